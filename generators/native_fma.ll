; a * b + c with one rounding, as LLVM's llvm.fma, which LLVM 14 lowers to
; the CPU's fused multiply-add (x86 FMA3 vfmadd*, AArch64 fmla). Halide 14
; has no fma and, under strict_float (tools/bazel/halide.bzl), never fuses a
; multiply and an add itself. The generators call these as extern functions
; (generators/fused_multiply_add.h); Halide picks the fooxN definition for an
; N-lane vector (wider vectors are split) and LLVM inlines it. Only targets
; whose CPUs fuse in hardware use them: elsewhere llvm.fma is a libm call.

declare float @llvm.fma.f32(float, float, float)

define weak_odr float @halnorm_fma(float %a, float %b, float %c) alwaysinline {
  %r = call float @llvm.fma.f32(float %a, float %b, float %c)
  ret float %r
}

declare <4 x float> @llvm.fma.v4f32(<4 x float>, <4 x float>, <4 x float>)

define weak_odr <4 x float> @halnorm_fmax4(<4 x float> %a, <4 x float> %b, <4 x float> %c) alwaysinline {
  %r = call <4 x float> @llvm.fma.v4f32(<4 x float> %a, <4 x float> %b, <4 x float> %c)
  ret <4 x float> %r
}

declare <8 x float> @llvm.fma.v8f32(<8 x float>, <8 x float>, <8 x float>)

define weak_odr <8 x float> @halnorm_fmax8(<8 x float> %a, <8 x float> %b, <8 x float> %c) alwaysinline {
  %r = call <8 x float> @llvm.fma.v8f32(<8 x float> %a, <8 x float> %b, <8 x float> %c)
  ret <8 x float> %r
}

declare <16 x float> @llvm.fma.v16f32(<16 x float>, <16 x float>, <16 x float>)

define weak_odr <16 x float> @halnorm_fmax16(<16 x float> %a, <16 x float> %b, <16 x float> %c) alwaysinline {
  %r = call <16 x float> @llvm.fma.v16f32(<16 x float> %a, <16 x float> %b, <16 x float> %c)
  ret <16 x float> %r
}
