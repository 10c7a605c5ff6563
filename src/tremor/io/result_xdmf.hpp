#pragma once
// The XDMF (version 3) file written beside a result file: light XML describing the mesh and the
// snapshot fields, whose heavy data stay in the HDF5 file, so ParaView (Xdmf3 reader) opens the
// snapshots as a time series. Internal to io/result_file.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "tremor/mesh/element_type.hpp"

namespace tremor::io {

// One family of cells referenced from the HDF5 file.
struct XdmfCells {
  std::string topology;      // XDMF TopologyType: "Triangle", "Hexahedron_20", "Polyvertex", ...
  std::int64_t n_cells = 0;
  int nodes_per_cell = 0;
  std::string dataset;       // HDF5 path of the [n_cells][nodes_per_cell] int32 connectivity
  // HDF5 path of an int32 [n_cells] cell attribute "material" (each cell's element's material
  // row); empty: none.
  std::string material;
};

struct XdmfMesh {
  int dim = 3;
  std::int64_t n_nodes = 0;
  std::string coordinates;   // HDF5 path of the [n_nodes][dim] float64 coordinates
  std::vector<XdmfCells> blocks;
};

// A node-centred field with one dataset per snapshot.
struct XdmfField {
  std::string name;
  int components = 1;                 // 1: Scalar, otherwise Vector
  std::vector<std::string> datasets;  // one HDF5 path per snapshot, in the order of the times
  // column >= 0: a scalar field that is column `column` of [n_nodes][n_columns] datasets.
  int column = -1;
  int n_columns = 0;
};

// The XDMF name of a (linear or quadratic) element type; GLL types map to their linear sub-cells
// ("Quadrilateral", "Hexahedron").
const char* xdmf_topology(ElementType type);

// Linear sub-cells of a GLL block of `order`: p^d quadrilaterals or hexahedra per element, each
// spanning neighbouring GLL nodes, in tremor's quad4/hex8 vertex order.
std::vector<std::int32_t> gll_linear_cells(ElementType type, int order, const std::vector<std::int32_t>& connectivity);

// Writes `xdmf_path` (atomically: temporary name, then rename) referencing datasets in
// `h5_name` (a name relative to the XDMF file's folder). With no times, one grid of the mesh
// with `fields` (each with one dataset) on it; otherwise a Temporal collection with one grid per time. Several blocks make each grid a
// Spatial collection of one Uniform grid per block.
void write_xdmf(const std::filesystem::path& xdmf_path, const std::string& h5_name, const XdmfMesh& mesh,
                const std::vector<double>& times, const std::vector<XdmfField>& fields);

// A boundary-element result (/bem, docs/output-format.md): a Temporal collection with one grid
// per solved frequency (its Time value is the frequency, Hz, so ParaView's time steps through
// them), each the surface with the cell-centred fields displacement_real, displacement_imag,
// displacement_magnitude, traction_real and traction_imag, row k of the /bem datasets; with
// interior points, a Spatial collection of the surface and a Polyvertex grid of the points
// carrying displacement_real, displacement_imag and displacement_magnitude. With no frequency
// solved, one grid of the surface alone.
struct XdmfBem {
  std::int64_t n_nodes = 0;
  std::string coordinates;  // HDF5 path of the [n_nodes][3] coordinates
  XdmfCells cells;          // "Triangle", "Quadrilateral" ([n_cells][k]) or "Mixed" (a flat list)
  std::int64_t mixed_length = 0;  // Mixed: the length of the list
  std::int64_t n_points = 0;
  std::vector<double> frequencies;  // Hz, one per row written
};

void write_xdmf_bem(const std::filesystem::path& xdmf_path, const std::string& h5_name, const XdmfBem& bem);

}  // namespace tremor::io
