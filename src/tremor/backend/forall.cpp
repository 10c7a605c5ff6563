#include "tremor/core/error.hpp"

namespace tremor::detail {

void throw_not_compiled_for_cuda() {
  throw Error("a kernel was launched on the CUDA backend from a source compiled without CUDA "
              "(rebuild with TREMOR_CUDA=ON)");
}

}  // namespace tremor::detail
