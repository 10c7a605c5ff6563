#include "tremor/partition/layout.hpp"

#include <algorithm>
#include <cmath>

#include "tremor/core/error.hpp"
#include "tremor/mesh/mesh.hpp"

namespace tremor::partition {

void BlockLayout::validate() const {
  TREMOR_CHECK(block_size >= row_width && block_size <= 1024 && block_size % row_width == 0, "block size ",
               block_size, " must be a multiple of 32 from 32 to 1024 (one thread per node)");
  TREMOR_CHECK(boundary_rows >= 1 && boundary_rows <= std::min(16, n_rows()), "boundary rows ", boundary_rows,
               " must be 1 to ", std::min(16, n_rows()), " for ", block_size, "-node blocks");
  for (int kind = 0; kind < 3; ++kind)
    TREMOR_CHECK(loads[kind] >= 0 && loads[kind] <= 4096, "the count of ", load_lengths[kind], "-node loads, ",
                 loads[kind], ", must be 0 to 4096");
  TREMOR_CHECK(n_loads() >= 1, "a block layout needs at least one load");
  TREMOR_CHECK(shared_slots() < 32768, "a block layout of ", block_size, " nodes and ", load_capacity(),
               " loaded slots exceeds the 32767 shared positions a 16-bit link can address");
}

int halo_rows(ElementType type, int order) {
  if (is_gll(type)) return std::max(order, 1);
  return polynomial_order(type, order);
}

namespace {

// Boundary nodes and halo (neighbouring nodes outside) of an ideal block of n nodes whose
// coupling reaches `t` node rows: a sqrt(2n) x sqrt(n/2) rectangle in 2D, a cube in 3D.
void ideal_block(int dim, int n, int t, double& boundary, double& halo) {
  if (dim == 2) {
    const double a = std::sqrt(2.0 * n), b = std::sqrt(0.5 * n);
    boundary = n - std::max(0.0, a - 2 * t) * std::max(0.0, b - 2 * t);
    halo = (a + 2 * t) * (b + 2 * t) - n;
  } else {
    const double s = std::cbrt(static_cast<double>(n));
    boundary = n - std::pow(std::max(0.0, s - 2 * t), 3);
    halo = std::pow(s + 2 * t, 3) - n;
  }
}

}  // namespace

BlockLayout default_layout(ElementType type, int order, int block_size) {
  BlockLayout layout;
  layout.block_size = block_size;
  TREMOR_CHECK(block_size >= row_width && block_size <= 1024 && block_size % row_width == 0, "block size ",
               block_size, " must be a multiple of 32 from 32 to 1024 (one thread per node)");
  const int dim = dimension(type), t = halo_rows(type, order);
  double boundary = 0, halo = 0;
  ideal_block(dim, block_size, t, boundary, halo);
  // The paper's 2D numbers (section 2.3): 128 boundary slots for the 92 boundary nodes of a 32 x 16
  // block; 2 x 32 + 10 x 16 + 8 x 8 loads for its halo of 100 nodes.
  // 3D: a cube's boundary is 58 % of its nodes (296 of 512) and an irregular block's often over
  // 75 %; any row limit below the block splits blocks for no gain (the rows cost nothing at run
  // time), so every row the 4-bit row field reaches may be loaded.
  const double margin = 128.0 / 92.0;
  const double reference_halo = dim == 2 ? 100.0 : 488.0;
  const int reference_loads[2][3] = {{2, 10, 8}, {16, 48, 48}};
  const int max_rows = std::min(16, layout.n_rows());
  layout.boundary_rows =
      dim == 3 ? max_rows
               : std::clamp(static_cast<int>(std::ceil(boundary * margin / row_width - 1e-9)), 1, max_rows);
  const double scale = halo / reference_halo;
  for (int kind = 0; kind < 3; ++kind)
    layout.loads[kind] = std::max(1, static_cast<int>(std::ceil(reference_loads[dim - 2][kind] * scale - 1e-9)));
  // Keep the shared positions within 16 bits: scale the loads down proportionally if needed.
  while (layout.shared_slots() >= 32768)
    for (int kind = 0; kind < 3; ++kind) layout.loads[kind] = std::max(1, layout.loads[kind] * 7 / 8);
  return layout;
}

BlockLayout default_layout(const Mesh& mesh, int block_size) {
  BlockLayout best = default_layout(mesh.dim() == 2 ? ElementType::Tri3 : ElementType::Tet4, 1, block_size);
  int best_halo = 1;
  for (const auto& block : mesh.blocks) {
    const int t = halo_rows(block.type, block.order);
    if (t > best_halo) {
      best_halo = t;
      best = default_layout(block.type, block.order, block_size);
    }
  }
  return best;
}

}  // namespace tremor::partition
