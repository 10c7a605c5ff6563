// Where a sem block's memory variables lie (sem/point_state.hpp): every value of every point of
// every element has a place of its own within the array, and where the column kernel applies
// hexahedra a group's columns at one level of one value are a run of neighbours starting on a
// 32-byte sector; elsewhere element by element.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "explicit_test_models.hpp"
#include "tremor/fem/colouring.hpp"
#include "tremor/fem/device_elements.hpp"
#include "tremor/fem/sections.hpp"
#include "tremor/sem/operator.hpp"
#include "tremor/sem/point_state.hpp"

namespace tremor::sem {
namespace TREMOR_TEST_FILE {

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
        // Two groups and more (the last one partial where a group holds more than 3); one element;
        // 6 values a point and 18 (3 solids in 3D).
        for (const Index n : {Index(2 * s.group + 3), Index(1)})
          for (const int values : {6, 18}) expect_one_place_each(s, n, values);
        if (!s.grouped) {  // element by element: value k of point p of element e at (e values + k) points + p
          EXPECT_EQ(s.element(3, s.per_group(6)) + 2 * s.stride() + s.point(5), (3 * 6 + 2) * s.points + 5);
        }
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
    // (ColumnLayout's per_block, one vector a thread: operator_apply.hpp asserts the two the same)
    EXPECT_LE(s.group * n2, std::max(128, n2));
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

// On the host, colour by colour: the column kernel with its memory variables in rows against the
// point kernel with them element by element, over groups of elements and a partial last one (36
// elements of order 3, 8 a group; 16 of order 4, 5 a group). After the same applies the forces are
// the same sums (to rounding, 1e-12 of the largest) and so is the state got element by element
// (get_state converts); a state set into the rows is the one got back, to the bit.
TEST(SemPointState, RowsHoldTheMemoryVariablesElementByElementHolds) {
  for (const int order : {3, 4}) {
    SCOPED_TRACE(testing::Message() << "order " << order);
    const Model model = test::attenuating_bar(ElementType::HexGLL, order, order == 3 ? 3 : 2);
    const auto elements = std::make_shared<const fem::DeviceElements>(
        Exec::serial(), model.mesh, fem::section_table(model), fem::colour_elements(model.mesh));
    const double dt = 2e-9;
    const SemOperator<double> rows(elements, true, Geometry::Auto, Kernel::Columns, dt);
    const SemOperator<double> points(elements, true, Geometry::Auto, Kernel::Points, dt);
    ASSERT_NE(rows.details().find("a thread per column"), std::string::npos);
    const auto n = static_cast<std::size_t>(rows.n_dofs());
    std::vector<double> u(n), a(n), b(n);
    for (int step = 0; step < 4; ++step) {
      for (std::size_t i = 0; i < n; ++i) u[i] = 1e-6 * std::sin(0.37 * static_cast<double>(i) + step);
      rows.apply_unchecked(u.data(), a.data());
      points.apply_unchecked(u.data(), b.data());
      double largest = 0.0, apart = 0.0;
      for (std::size_t i = 0; i < n; ++i) {
        largest = std::max(largest, std::abs(b[i]));
        apart = std::max(apart, std::abs(a[i] - b[i]));
      }
      ASSERT_GT(largest, 0.0);
      EXPECT_LE(apart, 1e-12 * largest) << "step " << step;
    }
    const std::vector<double> by_rows = rows.get_state(), by_points = points.get_state();
    ASSERT_EQ(by_rows.size(), by_points.size());
    ASSERT_EQ(static_cast<Size>(by_rows.size()), rows.state_size());
    double largest = 0.0, apart = 0.0;
    for (std::size_t k = 0; k < by_rows.size(); ++k) {
      largest = std::max(largest, std::abs(by_points[k]));
      apart = std::max(apart, std::abs(by_rows[k] - by_points[k]));
    }
    ASSERT_GT(largest, 0.0);  // the memory variables have moved: not a comparison of zeros
    EXPECT_LE(apart, 1e-12 * largest);
    SemOperator<double> fresh(elements, true, Geometry::Auto, Kernel::Columns, dt);
    fresh.set_state(by_points);
    EXPECT_EQ(fresh.get_state(), by_points);
  }
}

}  // namespace
}  // namespace tremor::sem
