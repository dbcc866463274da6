; f16 <-> f32 conversions as LLVM's own fpext/fptrunc, which LLVM 14 lowers
; to the CPU's conversion instructions (x86 F16C vcvtph2ps/vcvtps2ph, AArch64
; fcvtl/fcvtn). Halide 14 cannot emit those itself: it emulates every float16
; cast. The generators call these as extern functions on uint16 bits; Halide
; picks the fooxN definition for an N-lane vector (CodeGen_LLVM's
; find_vector_runtime_function) and LLVM inlines it. embed_bitcode.sh prefixes
; each architecture's datalayout and triple and assembles this to bitcode.

define weak_odr float @halnorm_f16_to_f32(i16 %bits) alwaysinline {
  %h = bitcast i16 %bits to half
  %f = fpext half %h to float
  ret float %f
}

define weak_odr <4 x float> @halnorm_f16_to_f32x4(<4 x i16> %bits) alwaysinline {
  %h = bitcast <4 x i16> %bits to <4 x half>
  %f = fpext <4 x half> %h to <4 x float>
  ret <4 x float> %f
}

define weak_odr <8 x float> @halnorm_f16_to_f32x8(<8 x i16> %bits) alwaysinline {
  %h = bitcast <8 x i16> %bits to <8 x half>
  %f = fpext <8 x half> %h to <8 x float>
  ret <8 x float> %f
}

define weak_odr <16 x float> @halnorm_f16_to_f32x16(<16 x i16> %bits) alwaysinline {
  %h = bitcast <16 x i16> %bits to <16 x half>
  %f = fpext <16 x half> %h to <16 x float>
  ret <16 x float> %f
}

; Rounds to nearest even (the FP environment's default rounding mode).
define weak_odr i16 @halnorm_f32_to_f16(float %f) alwaysinline {
  %h = fptrunc float %f to half
  %bits = bitcast half %h to i16
  ret i16 %bits
}

define weak_odr <4 x i16> @halnorm_f32_to_f16x4(<4 x float> %f) alwaysinline {
  %h = fptrunc <4 x float> %f to <4 x half>
  %bits = bitcast <4 x half> %h to <4 x i16>
  ret <4 x i16> %bits
}

define weak_odr <8 x i16> @halnorm_f32_to_f16x8(<8 x float> %f) alwaysinline {
  %h = fptrunc <8 x float> %f to <8 x half>
  %bits = bitcast <8 x half> %h to <8 x i16>
  ret <8 x i16> %bits
}

define weak_odr <16 x i16> @halnorm_f32_to_f16x16(<16 x float> %f) alwaysinline {
  %h = fptrunc <16 x float> %f to <16 x half>
  %bits = bitcast <16 x half> %h to <16 x i16>
  ret <16 x i16> %bits
}
