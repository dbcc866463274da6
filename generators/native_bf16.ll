; f32 -> bf16 through AVX512_BF16's vcvtneps2bf16 (Cooper Lake, Sapphire
; Rapids, Zen 4): one instruction per 16 elements where the integer-op
; rounding of activations.cc takes about nine. It rounds to nearest even and
; quiets NaNs as that rounding does, but treats denormal inputs as zero (the
; SDM; MXCSR is not consulted). So each vector also asks vfpclassps for
; denormal lanes and, only when there are some (a branch that is never taken
; on ordinary data), rounds those lanes with integer ops: the results are
; bit for bit those of every other target.
; The generators call these as extern functions returning uint16 bits; Halide
; picks the fooxN definition for an N-lane vector (wider vectors are split)
; and LLVM inlines it. x86-64 only: the kernels using it are compiled with
; +avx512bf16 (tools/bazel/halide.bzl, target x86_avx512_bf16).

declare <8 x i16> @llvm.x86.avx512bf16.cvtneps2bf16.256(<8 x float>)
declare <16 x i16> @llvm.x86.avx512bf16.cvtneps2bf16.512(<16 x float>)
declare <32 x i16> @llvm.x86.avx512bf16.cvtne2ps2bf16.512(<16 x float>, <16 x float>)
declare <8 x i1> @llvm.x86.avx512.fpclass.ps.256(<8 x float>, i32)  ; 32: denormal
declare <16 x i1> @llvm.x86.avx512.fpclass.ps.512(<16 x float>, i32)

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
  %native = call <8 x i16> @llvm.x86.avx512bf16.cvtneps2bf16.256(<8 x float> %f)
  %denormal = call <8 x i1> @llvm.x86.avx512.fpclass.ps.256(<8 x float> %f, i32 32)
  %lanes = bitcast <8 x i1> %denormal to i8
  %any = icmp ne i8 %lanes, 0
  br i1 %any, label %denormals, label %done, !prof !0
denormals:  ; (u + 0x7fff + ((u >> 16) & 1)) >> 16, as activations.cc rounds
  %u = bitcast <8 x float> %f to <8 x i32>
  %high = lshr <8 x i32> %u, <i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16>
  %odd = and <8 x i32> %high, <i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1>
  %half_ulp = add <8 x i32> %u, <i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767>
  %biased = add <8 x i32> %half_ulp, %odd
  %rounded = lshr <8 x i32> %biased, <i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16>
  %bits = trunc <8 x i32> %rounded to <8 x i16>
  %fixed = select <8 x i1> %denormal, <8 x i16> %bits, <8 x i16> %native
  br label %done
done:
  %result = phi <8 x i16> [ %native, %entry ], [ %fixed, %denormals ]
  ret <8 x i16> %result
}

define weak_odr <16 x i16> @halnorm_f32_to_bf16x16(<16 x float> %f) alwaysinline {
entry:
  %native = call <16 x i16> @llvm.x86.avx512bf16.cvtneps2bf16.512(<16 x float> %f)
  %denormal = call <16 x i1> @llvm.x86.avx512.fpclass.ps.512(<16 x float> %f, i32 32)
  %lanes = bitcast <16 x i1> %denormal to i16
  %any = icmp ne i16 %lanes, 0
  br i1 %any, label %denormals, label %done, !prof !0
denormals:  ; (u + 0x7fff + ((u >> 16) & 1)) >> 16, as activations.cc rounds
  %u = bitcast <16 x float> %f to <16 x i32>
  %high = lshr <16 x i32> %u, <i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16>
  %odd = and <16 x i32> %high, <i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1>
  %half_ulp = add <16 x i32> %u, <i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767, i32 32767>
  %biased = add <16 x i32> %half_ulp, %odd
  %rounded = lshr <16 x i32> %biased, <i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16, i32 16>
  %bits = trunc <16 x i32> %rounded to <16 x i16>
  %fixed = select <16 x i1> %denormal, <16 x i16> %bits, <16 x i16> %native
  br label %done
done:
  %result = phi <16 x i16> [ %native, %entry ], [ %fixed, %denormals ]
  ret <16 x i16> %result
}

; 32 lanes (vector_width 32 schedules): vcvtne2ps2bf16 converts both halves
; in one instruction, where two vcvtneps2bf16 take two (each is a port 0 and
; a port 5 micro-op on Intel cores), and one test and branch covers both
; halves' denormal checks.
define weak_odr <32 x i16> @halnorm_f32_to_bf16x32(<32 x float> %f) alwaysinline {
entry:
  %lo = shufflevector <32 x float> %f, <32 x float> undef, <16 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15>
  %hi = shufflevector <32 x float> %f, <32 x float> undef, <16 x i32> <i32 16, i32 17, i32 18, i32 19, i32 20, i32 21, i32 22, i32 23, i32 24, i32 25, i32 26, i32 27, i32 28, i32 29, i32 30, i32 31>
  ; the instruction's lower half comes from its second source
  %native = call <32 x i16> @llvm.x86.avx512bf16.cvtne2ps2bf16.512(<16 x float> %hi, <16 x float> %lo)
  %denormal_lo = call <16 x i1> @llvm.x86.avx512.fpclass.ps.512(<16 x float> %lo, i32 32)
  %denormal_hi = call <16 x i1> @llvm.x86.avx512.fpclass.ps.512(<16 x float> %hi, i32 32)
  %lanes_lo = bitcast <16 x i1> %denormal_lo to i16
  %lanes_hi = bitcast <16 x i1> %denormal_hi to i16
  %lanes = or i16 %lanes_lo, %lanes_hi
  %any = icmp ne i16 %lanes, 0
  br i1 %any, label %denormals, label %done, !prof !0
denormals:
  %fixed_lo = call <16 x i16> @halnorm_f32_to_bf16x16(<16 x float> %lo)
  %fixed_hi = call <16 x i16> @halnorm_f32_to_bf16x16(<16 x float> %hi)
  %fixed = shufflevector <16 x i16> %fixed_lo, <16 x i16> %fixed_hi, <32 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15, i32 16, i32 17, i32 18, i32 19, i32 20, i32 21, i32 22, i32 23, i32 24, i32 25, i32 26, i32 27, i32 28, i32 29, i32 30, i32 31>
  br label %done
done:
  %result = phi <32 x i16> [ %native, %entry ], [ %fixed, %denormals ]
  ret <32 x i16> %result
}
