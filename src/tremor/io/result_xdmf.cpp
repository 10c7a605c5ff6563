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

}  // namespace tremor::io
