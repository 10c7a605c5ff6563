#pragma once
// A state kept in two arrays with a share of each per element (an operator's memory variables
// and a PML's, sem/operator.hpp; the PML general kernel's variables and its solids',
// explicit/pml.hpp), as op::Operator's get_state / set_state lay it out: element by element, an
// element's share of the first array, then of the second, in double (a float state widened
// exactly, and exact back).
#include <cstddef>
#include <span>
#include <vector>

#include "tremor/core/error.hpp"

namespace tremor::op {

// Appends n elements' values of `first` and `second` (either empty; each n equal shares) to out.
template <class A, class B>
void append_by_element(std::size_t n, const std::vector<A>& first, const std::vector<B>& second,
                       std::vector<double>& out) {
  const std::size_t a = n > 0 ? first.size() / n : 0, b = n > 0 ? second.size() / n : 0;
  for (std::size_t e = 0; e < n; ++e) {
    for (std::size_t k = 0; k < a; ++k) out.push_back(static_cast<double>(first[e * a + k]));
    for (std::size_t k = 0; k < b; ++k) out.push_back(static_cast<double>(second[e * b + k]));
  }
}

// The reverse: fills `first` and `second` (sized already) from the front of `values`, n elements'
// shares; returns what follows them.
template <class A, class B>
std::span<const double> take_by_element(std::size_t n, std::span<const double> values, std::vector<A>& first,
                                        std::vector<B>& second) {
  const std::size_t a = n > 0 ? first.size() / n : 0, b = n > 0 ? second.size() / n : 0;
  TREMOR_CHECK(values.size() >= n * (a + b), "a state of ", values.size(), " values for ", n, " elements of ", a + b);
  for (std::size_t e = 0; e < n; ++e) {
    for (std::size_t k = 0; k < a; ++k) first[e * a + k] = static_cast<A>(values[k]);
    for (std::size_t k = 0; k < b; ++k) second[e * b + k] = static_cast<B>(values[a + k]);
    values = values.subspan(a + b);
  }
  return values;
}

}  // namespace tremor::op
