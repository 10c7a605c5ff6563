// SemOperator<double>: its kernels and apply (operator_apply.hpp).
#include "tremor/sem/operator_apply.hpp"

namespace tremor::sem {

template class SemOperator<double>;

}  // namespace tremor::sem
