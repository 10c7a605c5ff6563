// Where a sem block's memory variables lie (sem/point_state.hpp): every value of every point of
// every element has a place of its own within the array, and where the column kernel applies
// hexahedra a group's columns at one level of one value are a run of neighbours starting on a
// 32-byte sector; elsewhere element by element.
#include <gtest/gtest.h>

#include <vector>

#include "tremor/sem/point_state.hpp"

namespace tremor::sem {
namespace {

// Every (element, value, point) of n elements at a place of its own below the array's size.
void expect_one_place_each(const PointState& s, Index n, int values) {
  const Size size = s.size(n, values);
  std::vector<int> taken(static_cast<std::size_t>(size), 0);
  for (Index e = 0; e < n; ++e)
    for (int k = 0; k < values; ++k)
      for (int p = 0; p < s.points; ++p) {
        const Size at = s.element(e, s.per_group(values)) + k * s.stride() + s.point(p);
        ASSERT_GE(at, 0);
        ASSERT_LT(at, size) << "element " << e << " value " << k << " point " << p;
        ++taken[static_cast<std::size_t>(at)];
      }
  Size used = 0;
  for (const int t : taken) {
    ASSERT_LE(t, 1);
    used += t;
  }
  EXPECT_EQ(used, static_cast<Size>(n) * values * s.points);
  EXPECT_EQ(s.values(n, size), values);
}

TEST(SemPointState, EveryValueHasAPlaceOfItsOwn) {
  for (const int dim : {2, 3})
    for (int order = 1; order <= 8; ++order) {
      SCOPED_TRACE(testing::Message() << dim << "D, order " << order);
      for (const bool rows : {true, false}) {
        const PointState s = point_state(dim, order, rows);
        EXPECT_EQ(s.grouped, rows && dim == 3 && order >= 2);
        // Two whole groups and part of a third; one element; and 18 values a point as 3 solids in 3D.
        for (const Index n : {Index(2 * s.group + 3), Index(1)})
          for (const int values : {6, 18}) expect_one_place_each(s, n, values);
        if (!s.grouped)  // element by element: value k of point p of element e at (e values + k) points + p
          EXPECT_EQ(s.element(3, s.per_group(6)) + 2 * s.stride() + s.point(5), (3 * 6 + 2) * s.points + 5);
      }
    }
}

// The column kernel's threads: those of the block's elements at level z of a value read and write
// one row, thread t of the block at t, each row on a 32-byte boundary (8 floats, 4 doubles).
TEST(SemPointState, AColumnKernelBlocksColumnsAtALevelAreARowOnASector) {
  for (int order = 2; order <= 8; ++order) {
    SCOPED_TRACE(testing::Message() << "order " << order);
    const PointState s = point_state(3, order, true);
    const int n1 = order + 1, n2 = n1 * n1;
    EXPECT_EQ(s.group, n2 >= 128 ? 1 : 128 / n2);  // ColumnLayout's per_block, one vector a thread
    EXPECT_EQ(s.row % 8, 0);
    EXPECT_GE(s.row, s.group * n2);
    EXPECT_LT(s.row, s.group * n2 + 8);
    const int values = 18;
    const Size per_group = s.per_group(values);
    for (const Index first : {Index(0), Index(s.group)})  // the first group's elements and the second's
      for (int k = 0; k < values; k += 17)
        for (int z = 0; z < n1; ++z) {
          const Size start = s.element(first, per_group) + k * s.stride() + s.point(n2 * z);
          EXPECT_EQ(start % 8, 0);
          for (int t = 0; t < s.group * n2; ++t) {
            const Index e = first + t / n2;
            EXPECT_EQ(s.element(e, per_group) + k * s.stride() + s.point(t % n2 + n2 * z), start + t);
          }
        }
  }
}

}  // namespace
}  // namespace tremor::sem
