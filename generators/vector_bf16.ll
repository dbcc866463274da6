; f32 -> bf16 for x86 cores without AVX512_BF16, in integer vector ops:
; the rounding of activations.cc's FloatToBf16, bit for bit, with its NaN
; lanes fixed behind one branch per vector (never taken on ordinary data)
; instead of a per-lane test and select. On AVX2 that is 14 instructions and
; a branch per 16 values where Halide's lowering of FloatToBf16 took 22 (per
; 8: and, compare, or, blend, and a lane extract for each narrowing).
; The generators call these as extern functions returning uint16 bits; Halide
; picks the fooxN definition for an N-lane vector (wider vectors are split)
; and LLVM inlines it. Plain LLVM IR, no intrinsics: LLVM selects each
; target's instructions (Activations links it into x86 kernels only).

declare i1 @llvm.vector.reduce.or.v8i1(<8 x i1>)

!0 = !{!"branch_weights", i32 1, i32 1000000}

; Scalars and 4-lane vectors (loop tails) go through the 8-lane version.
define weak_odr i16 @halnorm_f32_to_bf16(float %f) alwaysinline {
  %v = insertelement <8 x float> zeroinitializer, float %f, i32 0
  %b = call <8 x i16> @halnorm_f32_to_bf16x8(<8 x float> %v)
  %bits = extractelement <8 x i16> %b, i32 0
  ret i16 %bits
}

define weak_odr <4 x i16> @halnorm_f32_to_bf16x4(<4 x float> %f) alwaysinline {
  %v = shufflevector <4 x float> %f, <4 x float> zeroinitializer, <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7>
  %b = call <8 x i16> @halnorm_f32_to_bf16x8(<8 x float> %v)
  %bits = shufflevector <8 x i16> %b, <8 x i16> undef, <4 x i32> <i32 0, i32 1, i32 2, i32 3>
  ret <4 x i16> %bits
}

define weak_odr <8 x i16> @halnorm_f32_to_bf16x8(<8 x float> %f) alwaysinline {
entry:
  ; (u + 0x7fff + ((u >> 16) & 1)) >> 16: round to nearest even
  %u = bitcast <8 x float> %f to <8 x i32>
  %high = lshr <8 x i32> %u, <i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16>
  %odd = and <8 x i32> %high, <i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1>
  %half_ulp = add <8 x i32> %u, <i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767>
  %biased = add <8 x i32> %half_ulp, %odd
  %rounded = lshr <8 x i32> %biased, <i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16>
  %bits = trunc <8 x i32> %rounded to <8 x i16>
  %nan = fcmp uno <8 x float> %f, %f
  %any = call i1 @llvm.vector.reduce.or.v8i1(<8 x i1> %nan)
  br i1 %any, label %nans, label %done, !prof !0
nans:  ; quiet NaN: the high half with the top mantissa bit set
  %quiet = or <8 x i32> %high, <i32 64, i32 64, i32 64, i32 64, i32 64, i32 64, i32 64, i32 64>
  %quiet_bits = trunc <8 x i32> %quiet to <8 x i16>
  %fixed = select <8 x i1> %nan, <8 x i16> %quiet_bits, <8 x i16> %bits
  br label %done
done:
  %result = phi <8 x i16> [ %bits, %entry ], [ %fixed, %nans ]
  ret <8 x i16> %result
}

; 16 lanes (two AVX2 registers): one narrowing of both halves and one test
; and branch for both halves' NaNs.
define weak_odr <16 x i16> @halnorm_f32_to_bf16x16(<16 x float> %f) alwaysinline {
entry:
  %u = bitcast <16 x float> %f to <16 x i32>
  %high = lshr <16 x i32> %u, <i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16>
  %odd = and <16 x i32> %high, <i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1>
  %half_ulp = add <16 x i32> %u, <i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767>
  %biased = add <16 x i32> %half_ulp, %odd
  %rounded = lshr <16 x i32> %biased, <i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16>
  %bits = trunc <16 x i32> %rounded to <16 x i16>
  ; one compare tests both halves: unordered where either lane is a NaN
  %lo = shufflevector <16 x float> %f, <16 x float> undef, <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7>
  %hi = shufflevector <16 x float> %f, <16 x float> undef, <8 x i32> <i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15>
  %either_nan = fcmp uno <8 x float> %lo, %hi
  %any = call i1 @llvm.vector.reduce.or.v8i1(<8 x i1> %either_nan)
  br i1 %any, label %nans, label %done, !prof !0
nans:
  %nan = fcmp uno <16 x float> %f, %f
  %quiet = or <16 x i32> %high, <i32 64, i32 64, i32 64, i32 64, i32 64, i32 64, i32 64, i32 64, i32 64, i32 64, i32 64, i32 64, i32 64, i32 64, i32 64, i32 64>
  %quiet_bits = trunc <16 x i32> %quiet to <16 x i16>
  %fixed = select <16 x i1> %nan, <16 x i16> %quiet_bits, <16 x i16> %bits
  br label %done
done:
  %result = phi <16 x i16> [ %bits, %entry ], [ %fixed, %nans ]
  ret <16 x i16> %result
}
