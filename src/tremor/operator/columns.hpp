#pragma once
// One vector of several stepped together (explicit/central_difference.hpp's columns: entry i of
// vector s at i * columns + s) gathered into a vector of its own, and scattered back: how a kernel
// made for one vector serves each in turn, with the bits it gives that vector alone. (Defined in
// operator.cpp, once: a kernel's lambda instantiated in two libraries would be two.)
#include "tremor/backend/exec.hpp"
#include "tremor/core/config.hpp"

namespace tremor::op {

// to[i] = from[i * columns + s], i < n.
template <class Real>
void gather_column(const Exec& exec, Index n, int columns, int s, const Real* from, Real* to);

// to[i * columns + s] = from[i], i < n.
template <class Real>
void scatter_column(const Exec& exec, Index n, int columns, int s, const Real* from, Real* to);

extern template void gather_column<float>(const Exec&, Index, int, int, const float*, float*);
extern template void gather_column<double>(const Exec&, Index, int, int, const double*, double*);
extern template void scatter_column<float>(const Exec&, Index, int, int, const float*, float*);
extern template void scatter_column<double>(const Exec&, Index, int, int, const double*, double*);

}  // namespace tremor::op
