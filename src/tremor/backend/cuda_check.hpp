#pragma once
// TREMOR_CUDA_CHECK wraps every CUDA runtime call; failures become tremor::Error naming the call.
#include "tremor/core/error.hpp"

#if defined(TREMOR_HAVE_CUDA)
#include <cuda_runtime_api.h>

#define TREMOR_CUDA_CHECK(call)                                                                  \
  do {                                                                                          \
    cudaError_t tremor_cuda_status_ = (call);                                                   \
    if (tremor_cuda_status_ != cudaSuccess)                                                     \
      throw ::tremor::Error(::tremor::str("CUDA error in ", #call, ": ",                         \
                                          cudaGetErrorString(tremor_cuda_status_)));            \
  } while (0)
#endif
