// CVIS_HD marks small inline functions shared verbatim by the CPU references and the CUDA kernels,
// so that both compute the same bits (the CPU reference is the GPU path's oracle).
#pragma once

#if defined(__CUDACC__)
#define CVIS_HD __host__ __device__ __forceinline__
#else
#define CVIS_HD inline
#endif
