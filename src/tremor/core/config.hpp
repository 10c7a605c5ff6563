#pragma once
// Portability macros and the index/real types every layer shares.
#include <cstdint>

#if defined(__CUDACC__)
#define TREMOR_HOST_DEVICE __host__ __device__
#define TREMOR_DEVICE_CODE 1
#else
#define TREMOR_HOST_DEVICE
#endif

// A lambda that forall() may run on any backend: [=] TREMOR_LAMBDA (Index i) { ... }.
#define TREMOR_LAMBDA TREMOR_HOST_DEVICE

// Before a loop of a known, small trip count in a device kernel: unrolled, so that the arrays it
// indexes stay in registers (nvcc may otherwise keep them in local memory). Nothing on the host.
#if defined(__CUDA_ARCH__)
#define TREMOR_UNROLL _Pragma("unroll")
#else
#define TREMOR_UNROLL
#endif

namespace tremor {

// Node, element and degree-of-freedom indices. 32 bits reach 2^31 DOF, beyond any mesh that fits
// one GPU's memory with an assembled operator; counts of non-zeros use Size.
using Index = std::int32_t;
using Size = std::int64_t;
// Labels as they appear in input files (Abaqus and Gmsh ids may exceed 2^31).
using Label = std::int64_t;

}  // namespace tremor
