#include "tremor/backend/forall.hpp"

#include "tremor/core/error.hpp"

namespace tremor {

namespace detail {

void throw_not_compiled_for_cuda() {
  throw Error("a kernel was launched on the CUDA backend from a source compiled without CUDA "
              "(rebuild with TREMOR_CUDA=ON)");
}

}  // namespace detail

template <class T>
void fill_zero(const Exec& exec, T* values, Index n) {
  forall(exec, n, [=] TREMOR_LAMBDA(Index i) { values[i] = T(0); });
}

template void fill_zero<float>(const Exec&, float*, Index);
template void fill_zero<double>(const Exec&, double*, Index);
template void fill_zero<Index>(const Exec&, Index*, Index);

}  // namespace tremor
