// The column kernels' orders (sem/layout.hpp): ElementOrder and RowsOrder give each thread of a
// block one column of one of its elements, each once, and each element's node numbers one place;
// in RowsOrder a block's threads at one level of their columns read consecutive node numbers, and
// the consecutive threads of a row hold consecutive columns of one element, then the next's.
#include <gtest/gtest.h>

#include <numeric>
#include <utility>
#include <vector>

#include "tremor/sem/layout.hpp"

namespace tremor::sem {
namespace TREMOR_TEST_FILE {

template <class Order, int P>
void expect_order() {
  constexpr int n1 = P + 1, n2 = n1 * n1, n3 = n2 * n1, group = Order::group;
  SCOPED_TRACE(testing::Message() << "order " << P << ", " << group << " elements side by side");
  // Each thread a column of its own.
  std::vector<int> taken(static_cast<std::size_t>(group * n2), 0);
  for (int t = 0; t < group * n2; ++t) {
    const int s = Order::thread(t);
    ASSERT_GE(s, 0);
    ASSERT_LT(s, group * n2);
    ++taken[static_cast<std::size_t>(s)];
  }
  for (const int k : taken) EXPECT_EQ(k, 1);
  // A row's threads: column i of row j of element e at thread (j group + e) n + i.
  for (int j = 0; j < n1; ++j)
    for (int e = 0; e < group; ++e)
      for (int i = 0; i < n1; ++i) {
        const int s = Order::thread(group == 1 ? i + n1 * j : (j * group + e) * n1 + i);
        EXPECT_EQ(s / n2, e);
        EXPECT_EQ(s % n2, i + n1 * j);
      }
  // Node numbers: a place each, and those a block's threads read at one level consecutive.
  const Index n = 3 * group + (group > 1 ? group - 1 : 0);  // (a last group short)
  std::vector<Index> connectivity(static_cast<std::size_t>(n) * n3);
  std::iota(connectivity.begin(), connectivity.end(), Index(1));
  const std::vector<Index> ordered = ordered_connectivity<Order>(connectivity, n);
  ASSERT_EQ(ordered.size() % (static_cast<std::size_t>(group) * n3), 0u);
  std::vector<int> places(ordered.size(), 0);
  for (Index e = 0; e < n; ++e)
    for (int p = 0; p < n3; ++p) {
      const Size at = Order::position(e, p);
      ASSERT_LT(at, static_cast<Size>(ordered.size()));
      ++places[static_cast<std::size_t>(at)];
      EXPECT_EQ(ordered[static_cast<std::size_t>(at)], connectivity[static_cast<std::size_t>(e) * n3 + p]);
    }
  for (const int k : places) EXPECT_LE(k, 1);
  for (Index first = 0; first + group <= n; first += group)
    for (int k = 0; k < n1; ++k)
      for (int t = 0; t < group * n2; ++t) {
        const int s = Order::thread(t);
        EXPECT_EQ(Order::position(first + s / n2, s % n2 + n2 * k),
                  static_cast<Size>(first) * n3 + static_cast<Size>(k) * group * n2 + t);
      }
  // The elements' shared arrays apart by at least their 3 n^3 values.
  EXPECT_GE(Order::stride, 3 * n3);
}

template <int... P>
void expect_orders(std::integer_sequence<int, P...>) {
  (expect_order<RowsOrder<P + 2>, P + 2>(), ...);
}

TEST(SemLayout, RowsOrderGivesEachThreadAColumnAndReadsNodeNumbersInARun) {
  expect_orders(std::make_integer_sequence<int, 7>{});  // orders 2 to 8
}

TEST(SemLayout, ElementOrderIsTheElementsOwn) {
  expect_order<ElementOrder<4>, 4>();
  EXPECT_EQ(ElementOrder<4>::position(3, 7), 3 * 125 + 7);
}

}  // namespace TREMOR_TEST_FILE
}  // namespace tremor::sem
