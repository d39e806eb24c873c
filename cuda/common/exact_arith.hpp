// Correctly rounded arithmetic with the same bits on the host and the device: one IEEE-754
// operation per call, rounded to nearest even. On the device these are the `__f*_rn` / `__d*_rn`
// intrinsics, which nvcc never contracts into an FMA; on the host they are the plain operators, so
// host code that includes this header must be compiled with -ffp-contract=off (every library under
// cuda/ is). A CPU reference written with them is the bit-faithful twin of a kernel written with
// them (cedd_core.hpp, cpwl_eval.hpp, bgsub_math.hpp).
//
// Each function exists for float and for double; operands of another type, or of two types, are
// refused at compile time rather than converted, so the precision of every step is the one written.
#pragma once

#include <cmath>

#include "common/hd.hpp"

namespace cvis {

CVIS_HD float mul_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
CVIS_HD double mul_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

CVIS_HD float add_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
CVIS_HD double add_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}

CVIS_HD float sub_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}
CVIS_HD double sub_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}

CVIS_HD float div_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}
CVIS_HD double div_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __ddiv_rn(a, b);
#else
  return a / b;
#endif
}

// a * b + c with one rounding.
CVIS_HD float fma_rn(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}
CVIS_HD double fma_rn(double a, double b, double c) {
#if defined(__CUDA_ARCH__)
  return __fma_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

template <class A, class B> void mul_rn(A, B) = delete;
template <class A, class B> void add_rn(A, B) = delete;
template <class A, class B> void sub_rn(A, B) = delete;
template <class A, class B> void div_rn(A, B) = delete;
template <class A, class B, class C> void fma_rn(A, B, C) = delete;

} // namespace cvis
