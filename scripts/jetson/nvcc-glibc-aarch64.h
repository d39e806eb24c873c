/* Pre-included (-Xcompiler=-include,...) by nvcc in the aarch64 cross build
 * (scripts/jetson/cross-build.sh): before cuda_runtime.h, which nvcc includes first.
 *
 * glibc >= 2.39 declares its AArch64 vector math functions in <bits/math-vector.h> with GCC's
 * builtin vector types (__Float32x4_t, __SVFloat32_t, ...). The C++ front end of nvcc before 12.5
 * (cudafe++) does not know these builtins and stops with 'identifier "__Float32x4_t" is
 * undefined' when any .cu includes <cmath> (fixed in CUDA 12.5; Debian trixie has 12.4 and glibc
 * 2.41). The names are mapped to ordinary types before glibc's typedefs use them. Only those
 * declarations change (vector variants of sin, exp, ... that no code here calls), and they change
 * the same way in nvcc's host and device passes, so nothing is compiled against two meanings. */
#ifndef CVIS_NVCC_GLIBC_AARCH64_H
#define CVIS_NVCC_GLIBC_AARCH64_H
#if defined(__CUDACC__) && defined(__aarch64__) && defined(__CUDACC_VER_MAJOR__) && \
    (__CUDACC_VER_MAJOR__ < 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ < 5))
typedef float __cvis_f32x4 __attribute__((__vector_size__(16)));
typedef double __cvis_f64x2 __attribute__((__vector_size__(16)));
typedef struct __cvis_sv_f32 __cvis_sv_f32;
typedef struct __cvis_sv_f64 __cvis_sv_f64;
typedef struct __cvis_sv_bool __cvis_sv_bool;
#define __Float32x4_t __cvis_f32x4
#define __Float64x2_t __cvis_f64x2
#define __SVFloat32_t __cvis_sv_f32
#define __SVFloat64_t __cvis_sv_f64
#define __SVBool_t __cvis_sv_bool
#endif
#endif
