#pragma once
// Host-side geometry checks of a mesh against the reference elements.
#include <string_view>
#include <vector>

#include "tremor/fem/element_survey.hpp"
#include "tremor/mesh/mesh.hpp"

namespace tremor::fem {

// An element is degenerate when det J, scaled to the element's size, falls below this fraction:
// |det J| * |reference element| < tolerance * (largest vertex distance)^dim. A 1000:1 sliver in 3D
// sits near 1e-6, far above it; collapsed nodes and flat elements land at rounding level.
constexpr double degenerate_tolerance = 1e-10;

// Checks every element of `mesh`: det J at every default stiffness quadrature point and at every
// node must be positive and not tiny (see degenerate_tolerance). Throws tremor::Error naming the
// element by its label, its type and where the check failed ("SOURCE: element 17 (hex8) is
// inverted: ..."), `source` (the mesh file) prefixed when not empty.
void check_geometry(const Mesh& mesh, std::string_view source = {});

// One entry per global element (blocks in order): fem::ElementSize (element_survey.hpp).
std::vector<ElementSize> element_sizes(const Mesh& mesh);

}  // namespace tremor::fem
