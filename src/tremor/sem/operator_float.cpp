// SemOperator<float>: its kernels and apply (operator_apply.hpp).
#include "tremor/sem/operator_apply.hpp"

namespace tremor::sem {

template class SemOperator<float>;

}  // namespace tremor::sem
