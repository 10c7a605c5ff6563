#include "tremor/io/result_xdmf.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "tremor/core/error.hpp"
#include "tremor/io/file.hpp"

namespace tremor::io {

const char* xdmf_topology(ElementType type) {
  switch (type) {
    case ElementType::Tri3: return "Triangle";
    case ElementType::Tri6: return "Triangle_6";
    case ElementType::Quad4:
    case ElementType::QuadGLL: return "Quadrilateral";
    case ElementType::Quad8: return "Quadrilateral_8";
    case ElementType::Tet4: return "Tetrahedron";
    case ElementType::Tet10: return "Tetrahedron_10";
    case ElementType::Hex8:
    case ElementType::HexGLL: return "Hexahedron";
    case ElementType::Hex20: return "Hexahedron_20";
  }
  return "Polyvertex";
}

std::vector<std::int32_t> gll_linear_cells(ElementType type, int order, const std::vector<std::int32_t>& connectivity) {
  const int n = order + 1;  // GLL nodes per direction, lexicographic with x fastest
  const bool hex = type == ElementType::HexGLL;
  const auto per_element = static_cast<std::size_t>(hex ? n * n * n : n * n);
  const std::size_t n_elements = connectivity.size() / per_element;
  std::vector<std::int32_t> cells;
  cells.reserve(n_elements * static_cast<std::size_t>(hex ? order * order * order * 8 : order * order * 4));
  const auto local = [n](int i, int j, int k) { return static_cast<std::size_t>(i + n * (j + n * k)); };
  for (std::size_t e = 0; e < n_elements; ++e) {
    const std::int32_t* nodes = connectivity.data() + e * per_element;
    for (int k = 0; k < (hex ? order : 1); ++k)
      for (int j = 0; j < order; ++j)
        for (int i = 0; i < order; ++i) {
          // quad4 order: (i,j) (i+1,j) (i+1,j+1) (i,j+1); hex8 adds the same face one layer up.
          for (int layer = 0; layer < (hex ? 2 : 1); ++layer) {
            cells.push_back(nodes[local(i, j, k + layer)]);
            cells.push_back(nodes[local(i + 1, j, k + layer)]);
            cells.push_back(nodes[local(i + 1, j + 1, k + layer)]);
            cells.push_back(nodes[local(i, j + 1, k + layer)]);
          }
        }
  }
  return cells;
}

namespace {

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

class Writer {
 public:
  Writer(const std::string& h5_name, const XdmfMesh& mesh) : h5_(escape(h5_name)), mesh_(mesh) {}

  void grid(std::ostringstream& out, const std::string& indent, const std::string& name, const double* time,
            const std::vector<XdmfField>& fields, std::size_t snapshot) const {
    std::vector<const XdmfCells*> blocks;
    for (const auto& block : mesh_.blocks)
      if (block.n_cells > 0) blocks.push_back(&block);
    const bool collection = blocks.size() > 1;
    std::string inner = indent;
    if (collection) {
      out << indent << "<Grid Name=\"" << name << "\" GridType=\"Collection\" CollectionType=\"Spatial\">\n";
      if (time != nullptr) out << indent << "  <Time Value=\"" << number(*time) << "\"/>\n";
      inner += "  ";
    }
    for (std::size_t b = 0; b < std::max<std::size_t>(blocks.size(), 1); ++b) {
      const XdmfCells* block = blocks.empty() ? nullptr : blocks[b];
      const std::string grid_name = collection ? str(name, "_block", b) : name;
      out << inner << "<Grid Name=\"" << grid_name << "\" GridType=\"Uniform\">\n";
      if (time != nullptr && !collection) out << inner << "  <Time Value=\"" << number(*time) << "\"/>\n";
      if (block != nullptr) {
        out << inner << "  <Topology TopologyType=\"" << block->topology << "\" NumberOfElements=\""
            << block->n_cells << "\"";
        if (block->topology == "Polyvertex") out << " NodesPerElement=\"1\"";
        out << ">\n";
        item(out, inner + "    ", str(block->n_cells, " ", block->nodes_per_cell),
             "Int", 4, block->dataset);
        out << inner << "  </Topology>\n";
      }
      if (block != nullptr && !block->material.empty()) {
        out << inner << "  <Attribute Name=\"material\" AttributeType=\"Scalar\" Center=\"Cell\">\n";
        item(out, inner + "    ", str(block->n_cells), "Int", 4, block->material);
        out << inner << "  </Attribute>\n";
      }
      out << inner << "  <Geometry GeometryType=\"" << (mesh_.dim == 2 ? "XY" : "XYZ") << "\">\n";
      item(out, inner + "    ", str(mesh_.n_nodes, " ", mesh_.dim), "Float", 8,
           mesh_.coordinates);
      out << inner << "  </Geometry>\n";
      for (const auto& field : fields) {
        out << inner << "  <Attribute Name=\"" << escape(field.name) << "\" AttributeType=\""
            << (field.components == 1 ? "Scalar" : "Vector") << "\" Center=\"Node\">\n";
        const std::string dims =
            field.components > 1 ? str(mesh_.n_nodes, " ", field.components) : str(mesh_.n_nodes);
        if (field.column >= 0)
          column(out, inner + "    ", field.column, field.n_columns, field.datasets.at(snapshot));
        else
          item(out, inner + "    ", dims, "Float", 8, field.datasets.at(snapshot));
        out << inner << "  </Attribute>\n";
      }
      out << inner << "</Grid>\n";
    }
    if (collection) out << indent << "</Grid>\n";
  }

 private:
  // Column `k` of a [n_nodes][n_columns] dataset: a HyperSlab (start, stride, count rows).
  void column(std::ostringstream& out, const std::string& indent, int k, int n_columns,
              const std::string& dataset) const {
    out << indent << "<DataItem ItemType=\"HyperSlab\" Dimensions=\"" << mesh_.n_nodes << " 1\" Type=\"HyperSlab\">\n";
    out << indent << "  <DataItem Dimensions=\"3 2\" Format=\"XML\">0 " << k << " 1 1 " << mesh_.n_nodes
        << " 1</DataItem>\n";
    item(out, indent + "  ", str(mesh_.n_nodes, " ", n_columns), "Float", 8, dataset);
    out << indent << "</DataItem>\n";
  }

  void item(std::ostringstream& out, const std::string& indent, const std::string& dims, const char* type,
            int precision, const std::string& dataset) const {
    out << indent << "<DataItem Dimensions=\"" << dims << "\" NumberType=\"" << type << "\" Precision=\""
        << precision << "\" Format=\"HDF\">" << h5_ << ":" << escape(dataset) << "</DataItem>\n";
  }

  std::string h5_;
  const XdmfMesh& mesh_;
};

}  // namespace

void write_xdmf(const std::filesystem::path& xdmf_path, const std::string& h5_name, const XdmfMesh& mesh,
                const std::vector<double>& times, const std::vector<XdmfField>& fields) {
  std::ostringstream out;
  out << "<?xml version=\"1.0\" ?>\n"
      << "<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
      << "<Xdmf Version=\"3.0\">\n"
      << "  <Domain>\n";
  const Writer writer(h5_name, mesh);
  if (times.empty()) {
    writer.grid(out, "    ", "mesh", nullptr, fields, 0);
  } else {
    out << "    <Grid Name=\"snapshots\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
    for (std::size_t s = 0; s < times.size(); ++s)
      writer.grid(out, "      ", str("snapshot", s), &times[s], fields, s);
    out << "    </Grid>\n";
  }
  out << "  </Domain>\n"
      << "</Xdmf>\n";

  write_file_atomically(xdmf_path, out.str(), "XDMF file");
}

namespace {

// Row `row` of a [rows][n][3] (vector) or [rows][n] (scalar) dataset, as a HyperSlab of n x 3 or n.
void bem_row(std::ostringstream& out, const std::string& indent, const std::string& h5, const std::string& dataset,
             std::size_t rows, std::size_t row, std::int64_t n, bool vector) {
  const std::string shape = vector ? str(n, " 3") : str(n);
  out << indent << "<DataItem ItemType=\"HyperSlab\" Dimensions=\"" << shape << "\" Type=\"HyperSlab\">\n";
  if (vector)
    out << indent << "  <DataItem Dimensions=\"3 3\" Format=\"XML\">" << row << " 0 0 1 1 1 1 " << n
        << " 3</DataItem>\n";
  else
    out << indent << "  <DataItem Dimensions=\"3 2\" Format=\"XML\">" << row << " 0 1 1 1 " << n << "</DataItem>\n";
  out << indent << "  <DataItem Dimensions=\"" << rows << " " << shape
      << "\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">" << h5 << ":" << dataset << "</DataItem>\n";
  out << indent << "</DataItem>\n";
}

}  // namespace

void write_xdmf_bem(const std::filesystem::path& xdmf_path, const std::string& h5_name, const XdmfBem& bem) {
  const std::string h5 = escape(h5_name);
  const std::size_t rows = bem.frequencies.size();
  const std::int64_t n_cells = bem.cells.n_cells;
  std::ostringstream out;
  out << "<?xml version=\"1.0\" ?>\n"
      << "<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
      << "<Xdmf Version=\"3.0\">\n"
      << "  <Domain>\n";
  // No frequency solved (the first one failed): the surface alone, as the mesh of a run without
  // snapshots is written.
  if (rows > 0) out << "    <Grid Name=\"frequencies\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  const auto attribute = [&](const std::string& indent, const char* name, bool vector, const char* centre,
                             const std::string& dataset, std::size_t row, std::int64_t n) {
    out << indent << "<Attribute Name=\"" << name << "\" AttributeType=\"" << (vector ? "Vector" : "Scalar")
        << "\" Center=\"" << centre << "\">\n";
    bem_row(out, indent + "  ", h5, dataset, rows, row, n, vector);
    out << indent << "</Attribute>\n";
  };
  const auto geometry = [&](const std::string& indent, std::int64_t n, const std::string& dataset) {
    out << indent << "<Geometry GeometryType=\"XYZ\">\n"
        << indent << "  <DataItem Dimensions=\"" << n << " 3\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">"
        << h5 << ":" << dataset << "</DataItem>\n"
        << indent << "</Geometry>\n";
  };
  const auto topology = [&](const std::string& indent) {
    out << indent << "<Topology TopologyType=\"" << bem.cells.topology << "\" NumberOfElements=\"" << n_cells
        << "\">\n";
    if (bem.cells.topology == "Mixed")
      out << indent << "  <DataItem Dimensions=\"" << bem.mixed_length
          << "\" NumberType=\"Int\" Precision=\"4\" Format=\"HDF\">" << h5 << ":" << escape(bem.cells.dataset)
          << "</DataItem>\n";
    else
      out << indent << "  <DataItem Dimensions=\"" << n_cells << " " << bem.cells.nodes_per_cell
          << "\" NumberType=\"Int\" Precision=\"4\" Format=\"HDF\">" << h5 << ":" << escape(bem.cells.dataset)
          << "</DataItem>\n";
    out << indent << "</Topology>\n";
  };
  if (rows == 0) {
    out << "    <Grid Name=\"surface\" GridType=\"Uniform\">\n";
    topology("      ");
    geometry("      ", bem.n_nodes, bem.coordinates);
    out << "    </Grid>\n";
  }
  for (std::size_t k = 0; k < rows; ++k) {
    const std::string time = number(bem.frequencies[k]);
    std::string indent = "      ";
    const bool points = bem.n_points > 0;
    if (points) {
      out << indent << "<Grid Name=\"f" << k << "\" GridType=\"Collection\" CollectionType=\"Spatial\">\n"
          << indent << "  <Time Value=\"" << time << "\"/>\n";
      indent += "  ";
    }
    out << indent << "<Grid Name=\"" << (points ? "surface" : str("f", k)) << "\" GridType=\"Uniform\">\n";
    if (!points) out << indent << "  <Time Value=\"" << time << "\"/>\n";
    topology(indent + "  ");
    geometry(indent + "  ", bem.n_nodes, bem.coordinates);
    attribute(indent + "  ", "displacement_real", true, "Cell", "/bem/displacement_real", k, n_cells);
    attribute(indent + "  ", "displacement_imag", true, "Cell", "/bem/displacement_imag", k, n_cells);
    attribute(indent + "  ", "displacement_magnitude", false, "Cell", "/bem/displacement_magnitude", k, n_cells);
    attribute(indent + "  ", "traction_real", true, "Cell", "/bem/traction_real", k, n_cells);
    attribute(indent + "  ", "traction_imag", true, "Cell", "/bem/traction_imag", k, n_cells);
    out << indent << "</Grid>\n";
    if (points) {
      const std::int64_t n = bem.n_points;
      out << indent << "<Grid Name=\"interior\" GridType=\"Uniform\">\n"
          << indent << "  <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"" << n
          << "\" NodesPerElement=\"1\">\n"
          << indent << "    <DataItem Dimensions=\"" << n << " 1\" NumberType=\"Int\" Precision=\"4\" Format=\"HDF\">"
          << h5 << ":/bem/interior/vertices</DataItem>\n"
          << indent << "  </Topology>\n";
      geometry(indent + "  ", n, "/bem/interior/points");
      attribute(indent + "  ", "displacement_real", true, "Node", "/bem/interior/displacement_real", k, n);
      attribute(indent + "  ", "displacement_imag", true, "Node", "/bem/interior/displacement_imag", k, n);
      attribute(indent + "  ", "displacement_magnitude", false, "Node", "/bem/interior/displacement_magnitude", k, n);
      out << indent << "</Grid>\n";
      out << indent.substr(2) << "</Grid>\n";
    }
  }
  if (rows > 0) out << "    </Grid>\n";
  out << "  </Domain>\n"
      << "</Xdmf>\n";
  write_file_atomically(xdmf_path, out.str(), "XDMF file");
}

}  // namespace tremor::io
