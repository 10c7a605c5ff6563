// `tremor bench assembly`: how fast element matrices are computed and the global stiffness K is
// assembled, on every backend of one run (docs/benchmarks.md, "Assembly"):
//
//   element matrices  (element-matrices paper, section 3.3, Figs. 5-7) elements/s of the batched
//       stiffness, consistent mass (full and upper storage) and lumped mass (sparse/element_batch.hpp)
//       for hex8 boxes of that paper's Table 2 (32^3 .. 96^3 cells; 150^3 on a GPU), and tet4, tet10
//       and hex20 at one size.
//   two-kernel assembly  (two-kernel paper, section VI, Figs. 9-13) K of structured hex8 grids of
//       x^3 nodes into COO, CSR, ELL and block CSR, with colouring and with atomics
//       (sparse/two_kernel.hpp): kernel 1, kernel 2 and total times, the format's bytes (Fig. 9),
//       its non-zeros checked against Eq. 9 (structured_hex8_nnz); and an unstructured tet4 mesh
//       (perturbed_tetrahedra, random numbering), its non-zeros checked against the node graph.
//   the target line   1M hex8 elements (100^3 cells) into CSR on the GPU against 50 ms, and ELL
//       with colouring against ELL with atomics.
//
// Every case runs once untimed, then is timed (exec.synchronize() and steady_clock around the
// call) `--repeats` times and more until `--min-seconds` have been timed (bench/timing.hpp); the
// median is reported. An assembly call allocates its result, so its total includes the
// allocation. The host backends run only the meshes of at most `--cpu-max-elements` elements;
// the GPU runs every grid that fits its free memory (estimated per format before anything is
// allocated).
//
// Kernel 2's bytes, estimated as the least it must move: per element its connectivity, section,
// stiffness factor and colour-list entry (4 n + 16 B) and its nodes' coordinates (24 n B), then
// each of its (3n)^2 values read and written once in the matrix (2 sizeof(Real) each); plus the
// zeroing of the value array (one write per stored value, padding included). The element data of
// the element-matrix kernels is counted the same way, with their output written once.
#include "tremor/bench/assembly.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "tremor/backend/bandwidth.hpp"
#include "tremor/backend/memory_info.hpp"
#include "tremor/bench/report.hpp"
#include "tremor/bench/timing.hpp"
#include "tremor/core/clock.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"
#include "tremor/mesh/adjacency.hpp"
#include "tremor/mesh/generate.hpp"
#include "tremor/mesh/perturbed.hpp"
#include "tremor/model/model.hpp"
#include "tremor/sparse/assemble.hpp"
#include "tremor/fem/colouring.hpp"
#include "tremor/fem/device_elements.hpp"
#include "tremor/sparse/element_batch.hpp"
#include "tremor/sparse/two_kernel.hpp"

namespace tremor::bench {

namespace {

using sparse::RaceStrategy;

constexpr double target_ms = 50.0;      // 1M hex8 elements into CSR on the GPU
constexpr Size target_cells = 100;      // 100^3 cells = 1M elements, 101^3 nodes
constexpr double memory_margin = 0.8;   // of the free memory a case may plan to use

// The default grids: the paper's range (about 20 to 160 nodes a side, 4M nodes on 12 GB), the
// target's 101, and larger ones a GPU of more memory holds; each kept where it fits.
const std::vector<Size> default_sizes{20, 30, 40, 60, 80, 101, 128, 160, 200};
// Table 2 of the element-matrices paper: 32768, 110592, 262144, 884736 hex8; 3.4M on a GPU (4M
// full stiffness matrices would pass the 2^31 - 1 values one array indexes).
const std::vector<Size> default_element_cells{32, 48, 64, 96};
constexpr Size gpu_element_cells = 150;

enum class Format { Coo, Csr, Ell, BlockCsr };
const Format all_formats[] = {Format::Coo, Format::Csr, Format::Ell, Format::BlockCsr};
const RaceStrategy all_strategies[] = {RaceStrategy::Colouring, RaceStrategy::Atomics};

const char* format_name(Format f) {
  switch (f) {
    case Format::Coo: return "coo";
    case Format::Csr: return "csr";
    case Format::Ell: return "ell";
    case Format::BlockCsr: return "block_csr";
  }
  return "?";
}

struct ElementMatrixKind {
  const char* name;
  sparse::ElementMatrix matrix;
  sparse::MatrixStorage storage;
};
const ElementMatrixKind element_kinds[] = {
    {"stiffness full", sparse::ElementMatrix::Stiffness, sparse::MatrixStorage::Full},
    {"stiffness upper", sparse::ElementMatrix::Stiffness, sparse::MatrixStorage::Upper},
    {"consistent mass full", sparse::ElementMatrix::ConsistentMass, sparse::MatrixStorage::Full},
    {"consistent mass upper", sparse::ElementMatrix::ConsistentMass, sparse::MatrixStorage::Upper},
    {"lumped mass", sparse::ElementMatrix::LumpedMass, sparse::MatrixStorage::Full},
};


// A mesh of the benchmark: generated once, shared by every backend.
struct BenchMesh {
  std::string kind;  // "hex8 grid", "tet4 perturbed", or the element type of an element-matrix box
  Size cells = 0;    // per direction
  Model model;
  Index n_nodes() const { return model.mesh.n_nodes(); }
  Index n_elements() const { return model.mesh.n_elements(); }
};

Model steel_model(Mesh mesh, const std::string& source) {
  Model model;
  model.source = source;
  model.mesh = std::move(mesh);
  model.materials.push_back(Material::from_youngs("steel", 210e9, 0.3, 7850.0));
  model.sections.push_back({"all", "steel", Formulation::Solid, 1.0});
  model.validate();
  return model;
}

// A unit cube of cells^3 cells of `type` (the generator's numbering), or the perturbed tet4 block
// with its random numbering (the explicit benchmark's tet4, seed included).
BenchMesh make_mesh(const std::string& kind, ElementType type, Size cells) {
  BenchMesh m;
  m.kind = kind;
  m.cells = cells;
  const double h = 1.0 / static_cast<double>(cells);
  if (kind == "tet4 perturbed")
    m.model = steel_model(perturbed_tetrahedra({1.0, 1.0, 1.0}, {cells, cells, cells}, 20260101), "tremor bench assembly");
  else
    m.model = steel_model(generate_box({0, 0, 0}, {h * double(cells), h * double(cells), h * double(cells)},
                                       {cells, cells, cells}, type),
                          "tremor bench assembly");
  return m;
}

// Bytes per element of what every element kernel reads: connectivity, section, stiffness factor,
// colour-list entry and the nodes' coordinates.
std::size_t element_data_bytes(int n_element_nodes) { return std::size_t(n_element_nodes) * (4 + 24) + 16; }

struct ElementCase {
  Backend backend = Backend::Serial;
  std::string type, matrix;
  Size cells = 0;
  Index elements = 0;
  Size values_per_element = 0;
  int repeats = 0;
  double ms = 0.0;  // median
  std::size_t bytes = 0;
  double elements_per_second() const { return ms > 0 ? 1e3 * double(elements) / ms : 0.0; }
  double gbytes_per_second() const { return ms > 0 ? 1e-6 * double(bytes) / ms : 0.0; }
};

struct AssemblyCase {
  Backend backend = Backend::Serial;
  std::string mesh, format, strategy;
  Size size = 0;  // nodes per direction (hex8 grid) or cells per direction (tet4)
  Index nodes = 0, elements = 0;
  long long nnz = 0, expected_nnz = 0;
  std::size_t storage_bytes = 0, kernel2_bytes = 0;
  int repeats = 0;
  double kernel1_ms = 0.0, kernel2_ms = 0.0, total_ms = 0.0;  // medians
  double kernel2_gbytes_per_second() const { return kernel2_ms > 0 ? 1e-6 * double(kernel2_bytes) / kernel2_ms : 0.0; }
};

// What one assembly returned: non-zeros (padding excluded), the format's bytes, the stored
// values (padding included: what kernel 2 zeroes).
struct Assembled {
  long long nnz = 0;
  std::size_t bytes = 0, stored_values = 0;
};

// One assembly of K in `format`, timed around the call; the result freed outside the timing.
template <class Real>
Assembled assemble_once(Format format, const Exec& exec, const fem::DeviceElements& elements,
                        RaceStrategy strategy, sparse::AssemblyTimes& times, double& total_ms) {
  const auto stiffness = sparse::GlobalMatrix::Stiffness;
  exec.synchronize();
  const auto start = Clock::now();
  const auto finish = [&] {
    exec.synchronize();
    total_ms = 1e3 * seconds_since(start);
  };
  switch (format) {
    case Format::Coo: {
      const auto m = sparse::assemble_coo<Real>(exec, elements, stiffness, strategy, &times);
      finish();
      return {static_cast<long long>(m.nnz()), m.bytes(), static_cast<std::size_t>(m.values.size())};
    }
    case Format::Csr: {
      const auto m = sparse::assemble_csr<Real>(exec, elements, stiffness, strategy, &times);
      finish();
      return {static_cast<long long>(m.nnz()), m.bytes(), static_cast<std::size_t>(m.values.size())};
    }
    case Format::Ell: {
      const auto m = sparse::assemble_ell<Real>(exec, elements, stiffness, strategy, &times);
      finish();
      return {static_cast<long long>(m.nnz), m.bytes(), static_cast<std::size_t>(m.values.size())};
    }
    case Format::BlockCsr: {
      const auto m = sparse::assemble_block_csr<Real>(exec, elements, stiffness, strategy, &times);
      finish();
      return {static_cast<long long>(m.values.size()), m.bytes(), static_cast<std::size_t>(m.values.size())};
    }
  }
  return {};
}

// Bytes a case needs at its peak, estimated before allocating: the element data, kernel 1's
// pattern (twice: the incidence lists and the neighbour lists), and the format (ELL padded to the
// longest row; COO and CSR with their index arrays).
std::size_t estimate_bytes(Format format, Index nodes, Index elements, int n_element_nodes, long long nnz,
                           Index max_row_entries, std::size_t real_bytes) {
  const std::size_t element_data = std::size_t(elements) * element_data_bytes(n_element_nodes) + std::size_t(nodes) * 24;
  const std::size_t pattern = 2 * (std::size_t(nodes) * 8 + std::size_t(nnz) / 9 * 4 +
                                   std::size_t(elements) * std::size_t(n_element_nodes) * 8);
  std::size_t matrix = 0;
  const std::size_t rows = std::size_t(nodes) * 3;
  switch (format) {
    case Format::Coo: matrix = std::size_t(nnz) * (8 + real_bytes); break;
    case Format::Csr: matrix = std::size_t(nnz) * (4 + real_bytes) + rows * 8; break;
    case Format::Ell: matrix = rows * std::size_t(max_row_entries) * (4 + real_bytes); break;
    case Format::BlockCsr: matrix = std::size_t(nnz) / 9 * (4 + 9 * real_bytes) + std::size_t(nodes) * 8; break;
  }
  return element_data + pattern + matrix;
}

// The largest of the formats' estimates for a mesh.
std::size_t estimate_peak(Index nodes, Index elements, int n_element_nodes, long long nnz, Index max_row_entries,
                          std::size_t real_bytes) {
  std::size_t peak = 0;
  for (Format f : all_formats)
    peak = std::max(peak, estimate_bytes(f, nodes, elements, n_element_nodes, nnz, max_row_entries, real_bytes));
  return peak;
}

// The perturbed tet4 block of cells^3 cells: interior nodes of its Kuhn tetrahedra have 15
// neighbours, themselves included (the count before the mesh is generated).
long long tet4_nnz(Size cells) { return 15LL * 9 * (cells + 1) * (cells + 1) * (cells + 1); }
std::size_t tet4_peak(Size cells, std::size_t real_bytes) {
  return estimate_peak(Index((cells + 1) * (cells + 1) * (cells + 1)), Index(6 * cells * cells * cells), 4,
                       tet4_nnz(cells), 15 * 3, real_bytes);
}


// A grid of the run: its size (nodes per direction), K's non-zeros and the estimated peak bytes.
struct GridPlan {
  Size size = 0;
  long long nnz = 0;
  std::size_t peak_bytes = 0;
};

std::vector<Device> assembly_devices(const AssemblyArgs& args, bool measure) {
  std::vector<std::string> names = args.backends;
  if (names.empty()) {
    for (Backend b : available_backends())
      if (b != Backend::Serial) names.emplace_back(to_string(b));
    if (names.empty()) names.emplace_back("serial");
  }
  std::vector<Device> devices = make_devices(names);
  if (measure)
    for (Device& d : devices) d.copy = measure_copy(d.exec, args.copy_mb);
  // The GPU first: its cases are the ones the run is for.
  std::stable_sort(devices.begin(), devices.end(), [](const Device& a, const Device& b) { return !a.host() && b.host(); });
  return devices;
}

// Grids: those asked for, or the default list; each above 2^31 - 1 non-zeros left out, said so.
std::vector<GridPlan> plan_grids(const std::vector<Size>& asked, std::size_t real_bytes) {
  std::vector<GridPlan> grids;
  for (Size s : asked.empty() ? default_sizes : asked) {
    GridPlan g;
    g.size = s;
    g.nnz = static_cast<long long>(sparse::structured_hex8_nnz(s, s, s));
    if (g.nnz > 2147483647LL) {
      std::printf("grid %lld^3 nodes left out: %s non-zeros, more than an array indexes\n", (long long)s,
                  group_digits(g.nnz).c_str());
      continue;
    }
    const Index nodes = static_cast<Index>(s * s * s);
    const Index elements = static_cast<Index>((s - 1) * (s - 1) * (s - 1));
    g.peak_bytes = estimate_peak(nodes, elements, 8, g.nnz, 81, real_bytes);
    grids.push_back(g);
  }
  return grids;
}

// A mesh with what every backend's element data is made from.
struct PreparedMesh {
  BenchMesh mesh;
  fem::SectionTable table;
  fem::ElementColouring colouring;
  explicit PreparedMesh(BenchMesh m)
      : mesh(std::move(m)), table(fem::section_table(mesh.model)), colouring(fem::colour_elements(mesh.model.mesh)) {}
};

// The 1M-element CSR case against target_ms and ELL colouring against ELL atomics, on the GPU or,
// without one, the first host backend.
struct TargetLine {
  Backend backend = Backend::Serial;
  const AssemblyCase *csr_colouring = nullptr, *csr_atomics = nullptr, *ell_colouring = nullptr,
                     *ell_atomics = nullptr;
  std::string text;
};

// A run of the benchmark: the backends and meshes it plans, the cases it times, skips and fails.
struct AssemblyBench {
  const AssemblyArgs& args;
  std::size_t real_bytes;
  std::vector<Device> devices;
  bool gpu;
  std::vector<GridPlan> grids;
  std::vector<Size> element_cells;
  std::vector<ElementCase> element_cases;
  std::vector<AssemblyCase> assembly_cases;
  std::vector<Failure> failures;
  std::vector<Skip> skips;

  explicit AssemblyBench(const AssemblyArgs& args_)
      : args(args_),
        real_bytes(args.precision == "float" ? sizeof(float) : sizeof(double)),
        devices(assembly_devices(args, !args.dry_run)),
        gpu(std::any_of(devices.begin(), devices.end(), [](const Device& d) { return !d.host(); })),
        grids(plan_grids(args.sizes, real_bytes)),
        element_cells(args.element_cells.empty() ? default_element_cells : args.element_cells) {
    if (args.element_cells.empty() && gpu) element_cells.push_back(gpu_element_cells);
  }

  // Why `device` does not run a mesh of `elements` elements needing `bytes`; empty when it does.
  std::string why_not(const Device& device, Index elements, std::size_t bytes) const {
    if (device.host() && Size(elements) > args.cpu_max_elements)
      return str("more than --cpu-max-elements ", group_digits(args.cpu_max_elements));
    if (device.memory.free_bytes > 0 && double(bytes) > memory_margin * double(device.memory.free_bytes))
      return str("needs ~", gib(bytes), ", ", gib(device.memory.free_bytes), " free");
    return "";
  }

  void print_header() const {
    std::printf("tremor bench assembly: K of steel, %s values; every case once untimed, then the median of %d or more "
                "runs (at least %.2f s)\n",
                args.precision.c_str(), args.repeats, args.min_seconds);
    print_devices(devices, !args.dry_run);
  }

  // --dry-run ---------------------------------------------------------------------------------------
  // The end of a planned mesh's line: whether each backend would run it, and if not, why.
  void print_runs(Index elements, std::size_t bytes) const {
    for (const Device& d : devices) {
      const std::string why = why_not(d, elements, bytes);
      std::printf("  %s %s", d.name().c_str(), why.empty() ? "yes" : ("no (" + why + ")").c_str());
    }
    std::printf("\n");
  }

  void print_element_box_plan(const char* type, Size cells, Index elements, int n_nodes) const {
    const int n_dof = 3 * n_nodes;
    const std::size_t out = std::size_t(elements) * std::size_t(n_dof) * std::size_t(n_dof) * 8;
    std::printf("  %-6s %4lld^3 cells %12s elements, full stiffness output %s:", type, (long long)cells,
                group_digits(elements).c_str(), gib(out).c_str());
    print_runs(elements, out);
  }

  void print_plan() const {
    std::printf("\nelement matrices (output in double):\n");
    for (Size c : element_cells) print_element_box_plan("hex8", c, Index(c * c * c), 8);
    const Size t = args.type_cells;
    print_element_box_plan("tet4", t, Index(6 * t * t * t), 4);
    print_element_box_plan("tet10", t, Index(6 * t * t * t), 10);
    print_element_box_plan("hex20", t, Index(t * t * t), 20);
    std::printf("\ntwo-kernel assembly of K, 4 formats x 2 race strategies:\n");
    for (const GridPlan& g : grids) {
      const Index elements = Index((g.size - 1) * (g.size - 1) * (g.size - 1));
      std::printf("  hex8 grid %4lld^3 nodes %12s nodes %12s elements %14s non-zeros, peak ~%s:",
                  (long long)g.size, group_digits(g.size * g.size * g.size).c_str(), group_digits(elements).c_str(),
                  group_digits(g.nnz).c_str(), gib(g.peak_bytes).c_str());
      print_runs(elements, g.peak_bytes);
    }
    if (args.tet4_cells > 0) {
      const Size c = args.tet4_cells;
      const Index elements = Index(6 * c * c * c);
      const Index nodes = Index((c + 1) * (c + 1) * (c + 1));
      const std::size_t peak = tet4_peak(c, real_bytes);
      std::printf("  tet4 perturbed %4lld^3 cells x 6 %12s nodes %12s elements ~%s non-zeros, peak ~%s:",
                  (long long)c, group_digits(nodes).c_str(), group_digits(elements).c_str(),
                  group_digits(tet4_nnz(c)).c_str(), gib(peak).c_str());
      print_runs(elements, peak);
    }
  }

  // --- element matrices -----------------------------------------------------------------------------
  void time_element_matrices() {
    std::printf("\nelement matrices: ms (median), elements/s, GB/s written and read\n");
    for (Size cells : element_cells) time_element_box("hex8", ElementType::Hex8, cells);
    if (args.type_cells > 0) {
      time_element_box("tet4", ElementType::Tet4, args.type_cells);
      time_element_box("tet10", ElementType::Tet10, args.type_cells);
      time_element_box("hex20", ElementType::Hex20, args.type_cells);
    }
  }

  // Every kind of element matrix of a box of cells^3 cells of `type`, on every backend it fits;
  // the mesh made for the first of them.
  void time_element_box(const std::string& type_name, ElementType type, Size cells) {
    const std::string what = str(type_name, " ", cells, "^3 cells");
    std::optional<PreparedMesh> box;
    try {
      const Index n_elements = type == ElementType::Tet4 || type == ElementType::Tet10 ? Index(6 * cells * cells * cells)
                                                                                        : Index(cells * cells * cells);
      const int n_dof = 3 * nodes_per_element(type);
      const std::size_t out_values = std::size_t(n_elements) * std::size_t(n_dof) * std::size_t(n_dof);
      for (const Device& d : devices) {
        const std::string why = out_values > std::size_t(2147483647)
                                    ? str(group_digits(static_cast<long long>(out_values)),
                                          " values, more than an array indexes")
                                    : why_not(d, n_elements, out_values * 8);
        if (!why.empty()) {
          skips.push_back({str("element matrices ", what, " on ", d.name()), why});
          std::printf("  %-6s %-7s %4lld^3 cells: not run (%s)\n", type_name.c_str(), d.name().c_str(),
                      (long long)cells, why.c_str());
          continue;
        }
        if (!box) box.emplace(make_mesh(type_name, type, cells));
        const fem::DeviceElements elements(d.exec, box->mesh.model.mesh, box->table, box->colouring);
        DeviceArray<double> out(d.exec, static_cast<Index>(out_values));
        ElementCase c;
        c.backend = d.exec.backend();
        c.type = type_name;
        c.cells = cells;
        c.elements = n_elements;
        for (const ElementMatrixKind& kind : element_kinds) time_element_matrix(d, elements, kind, n_dof / 3, out, what, c);
      }
    } catch (const std::exception& e) {
      failures.push_back({str("element matrices ", what), e.what()});
      std::printf("  %s failed: %s\n", what.c_str(), e.what());
    }
  }

  // One kind of element matrix of a box (elements of `n_nodes` nodes) on one backend into `out`;
  // `c` names the box and the backend.
  void time_element_matrix(const Device& d, const fem::DeviceElements& elements, const ElementMatrixKind& kind,
                           int n_nodes, DeviceArray<double>& out, const std::string& what, ElementCase c) {
    c.matrix = kind.name;
    c.values_per_element = sparse::values_per_element(kind.matrix, kind.storage, 3 * n_nodes);
    c.bytes = std::size_t(c.elements) * (element_data_bytes(n_nodes) + std::size_t(c.values_per_element) * 8);
    try {
      const std::vector<double> times = warm_then_time(args.repeats, args.min_seconds, [&] {
        d.exec.synchronize();
        const auto start = Clock::now();
        sparse::element_matrices(d.exec, elements, 0, kind.matrix, kind.storage, out.data());
        d.exec.synchronize();
        return seconds_since(start);
      });
      c.repeats = int(times.size());
      c.ms = 1e3 * median(times);
    } catch (const std::exception& e) {
      failures.push_back({str("element matrices ", what, " ", kind.name, " on ", d.name()), e.what()});
      std::printf("  %-6s %-7s %-22s failed: %s\n", c.type.c_str(), d.name().c_str(), kind.name, e.what());
      return;
    }
    std::printf("  %-6s %-7s %4lld^3 cells %10s elements  %-22s %10.3f ms %10.3g elements/s %7.1f GB/s\n",
                c.type.c_str(), d.name().c_str(), (long long)c.cells, group_digits(c.elements).c_str(), kind.name, c.ms,
                c.elements_per_second(), c.gbytes_per_second());
    std::fflush(stdout);
    element_cases.push_back(c);
  }

  // --- two-kernel assembly --------------------------------------------------------------------------
  void time_assembly() {
    std::printf("\ntwo-kernel assembly of K (%s): kernel 1, kernel 2, total ms (medians), format MB, kernel 2 GB/s\n",
                args.precision.c_str());
    for (const GridPlan& g : grids) {
      try {
        const auto on = runners("hex8 grid", g.size, Index((g.size - 1) * (g.size - 1) * (g.size - 1)), g.peak_bytes);
        if (on.empty()) continue;
        BenchMesh mesh = make_mesh("hex8 grid", ElementType::Hex8, g.size - 1);
        assemble_mesh(mesh, g.size, g.nnz, on);
      } catch (const std::exception& e) {
        failures.push_back({str("assembly hex8 grid ", g.size), e.what()});
        std::printf("  hex8 grid %lld failed: %s\n", (long long)g.size, e.what());
      }
    }
    if (args.tet4_cells > 0) {
      try {
        const Size c = args.tet4_cells;
        const auto on = runners("tet4 perturbed", c, Index(6 * c * c * c), tet4_peak(c, real_bytes));
        if (!on.empty()) {
          BenchMesh mesh = make_mesh("tet4 perturbed", ElementType::Tet4, c);
          const long long nnz = static_cast<long long>(node_graph(mesh.model.mesh).n_entries()) * 9;
          assemble_mesh(mesh, c, nnz, on);
        }
      } catch (const std::exception& e) {
        failures.push_back({"assembly tet4 perturbed", e.what()});
        std::printf("  tet4 perturbed failed: %s\n", e.what());
      }
    }
  }

  // The devices that run a mesh of `elements` needing ~`peak_bytes`; the others listed as skipped.
  std::vector<const Device*> runners(const std::string& kind, Size size, Index elements, std::size_t peak_bytes) {
    std::vector<const Device*> out;
    for (const Device& d : devices) {
      const std::string why = why_not(d, elements, peak_bytes);
      if (why.empty()) {
        out.push_back(&d);
        continue;
      }
      skips.push_back({str("assembly ", kind, " ", size, " on ", d.name()), why});
      std::printf("  %-14s %4lld %-7s not run (%s)\n", kind.c_str(), (long long)size, d.name().c_str(), why.c_str());
    }
    return out;
  }

  // K of `mesh` in every format and race strategy on the devices `on`.
  void assemble_mesh(BenchMesh& mesh, Size size, long long expected_nnz, const std::vector<const Device*>& on) {
    const std::string what = str(mesh.kind, " ", size);
    const fem::SectionTable table = fem::section_table(mesh.model);
    const fem::ElementColouring colouring = fem::colour_elements(mesh.model.mesh);
    const int n_element_nodes = nodes_per_element(mesh.model.mesh.blocks.front().type);
    for (const Device* device : on) {
      const Device& d = *device;
      try {
        const fem::DeviceElements elements(d.exec, mesh.model.mesh, table, colouring);
        AssemblyCase c;
        c.backend = d.exec.backend();
        c.mesh = mesh.kind;
        c.size = size;
        c.nodes = mesh.n_nodes();
        c.elements = mesh.n_elements();
        c.expected_nnz = expected_nnz;
        for (Format format : all_formats)
          for (RaceStrategy strategy : all_strategies) time_assembly_case(d, elements, n_element_nodes, format, strategy, c);
      } catch (const std::exception& e) {
        failures.push_back({str("assembly ", what, " on ", d.name()), e.what()});
        std::printf("  %s on %s failed: %s\n", what.c_str(), d.name().c_str(), e.what());
      }
    }
  }

  // One format and race strategy of a mesh's K on one device; `c` names the mesh and the device.
  void time_assembly_case(const Device& d, const fem::DeviceElements& elements, int n_element_nodes, Format format,
                          RaceStrategy strategy, AssemblyCase c) {
    c.format = format_name(format);
    c.strategy = to_string(strategy);
    const std::string name = str("assembly ", c.mesh, " ", c.size, " ", c.format, " ", c.strategy, " on ", d.name());
    try {
      std::vector<double> k1, k2;  // every run's, the untimed first included
      Assembled result;
      const std::vector<double> total = warm_then_time(args.repeats, args.min_seconds, [&] {
        sparse::AssemblyTimes times;
        double total_ms = 0.0;
        result = real_bytes == sizeof(float) ? assemble_once<float>(format, d.exec, elements, strategy, times, total_ms)
                                             : assemble_once<double>(format, d.exec, elements, strategy, times, total_ms);
        k1.push_back(times.pattern_ms);
        k2.push_back(times.values_ms);
        return 1e-3 * total_ms;
      });
      c.repeats = int(total.size());
      c.kernel1_ms = median(timed_values(k1, total.size()));
      c.kernel2_ms = median(timed_values(k2, total.size()));
      c.total_ms = 1e3 * median(total);
      c.nnz = result.nnz;
      c.storage_bytes = result.bytes;
      const std::size_t element_values = std::size_t(3 * n_element_nodes) * std::size_t(3 * n_element_nodes);
      c.kernel2_bytes =
          std::size_t(c.elements) * (element_data_bytes(n_element_nodes) + element_values * 2 * real_bytes) +
          result.stored_values * real_bytes;
    } catch (const std::exception& e) {
      failures.push_back({name, e.what()});
      std::printf("  %-14s %4lld %-7s %-9s %-9s failed: %s\n", c.mesh.c_str(), (long long)c.size, d.name().c_str(),
                  c.format.c_str(), c.strategy.c_str(), e.what());
      return;
    }
    std::printf("  %-14s %4lld %-7s %-9s %-9s %10.3f %10.3f %10.3f ms %10.1f MB %7.1f GB/s (%4.1f%% of copy)%s\n",
                c.mesh.c_str(), (long long)c.size, d.name().c_str(), c.format.c_str(), c.strategy.c_str(), c.kernel1_ms,
                c.kernel2_ms, c.total_ms, 1e-6 * double(c.storage_bytes), c.kernel2_gbytes_per_second(),
                percent_of_copy(c.kernel2_gbytes_per_second(), d.copy),
                c.nnz == c.expected_nnz ? "" : str("  non-zeros ", c.nnz, ", expected ", c.expected_nnz).c_str());
    std::fflush(stdout);
    if (c.nnz != c.expected_nnz) failures.push_back({name, str(c.nnz, " non-zeros, expected ", c.expected_nnz)});
    assembly_cases.push_back(c);
  }

  // --- speed-ups, the target line, the report ------------------------------------------------------
  // CUDA's speed-up over OpenMP on the same case, 0 where either did not run it.
  double speedup(const ElementCase& c) const {
    if (c.backend != Backend::Cuda) return 0.0;
    for (const ElementCase& o : element_cases)
      if (o.backend == Backend::OpenMP && o.type == c.type && o.cells == c.cells && o.matrix == c.matrix)
        return o.ms / c.ms;
    return 0.0;
  }
  double speedup(const AssemblyCase& c) const {
    if (c.backend != Backend::Cuda) return 0.0;
    for (const AssemblyCase& o : assembly_cases)
      if (o.backend == Backend::OpenMP && o.mesh == c.mesh && o.size == c.size && o.format == c.format &&
          o.strategy == c.strategy)
        return o.total_ms / c.total_ms;
    return 0.0;
  }

  // The target grid's case in `format` and `strategy` on `backend`, null when it did not run.
  const AssemblyCase* target_case(Backend backend, const std::string& format,
                                  const std::string& strategy) const {
    for (const AssemblyCase& c : assembly_cases)
      if (c.backend == backend && c.mesh == "hex8 grid" && c.size == target_cells + 1 && c.format == format &&
          c.strategy == strategy)
        return &c;
    return nullptr;
  }

  TargetLine target_line() const {
    TargetLine t;
    // The target line is the GPU's; without one, the fastest host backend's, said so.
    t.backend = gpu ? Backend::Cuda : devices.front().exec.backend();
    t.csr_colouring = target_case(t.backend, "csr", "colouring");
    t.csr_atomics = target_case(t.backend, "csr", "atomics");
    t.ell_colouring = target_case(t.backend, "ell", "colouring");
    t.ell_atomics = target_case(t.backend, "ell", "atomics");
    const auto ms_text = [](const AssemblyCase* c) { return c ? fixed(c->total_ms, 2) + " ms" : std::string("not run"); };
    const AssemblyCase *csr_c = t.csr_colouring, *csr_a = t.csr_atomics;
    std::ostringstream text;
    text << "Target: 1M hex8 elements (100^3 cells, 101^3 nodes) into CSR on " << to_string(t.backend)
         << (gpu ? "" : " (no GPU in this run)") << ": colouring " << ms_text(csr_c) << ", atomics " << ms_text(csr_a);
    const AssemblyCase* best = csr_c && csr_a ? (csr_c->total_ms <= csr_a->total_ms ? csr_c : csr_a) : (csr_c ? csr_c : csr_a);
    if (best)
      text << "; best " << fixed(best->total_ms, 2) << " ms against " << fixed(target_ms, 0) << " ms: "
           << (best->total_ms <= target_ms ? "met" : "missed") << " (" << fixed(best->total_ms / target_ms, 2)
           << " x the target)";
    text << ". ELL colouring " << ms_text(t.ell_colouring) << " vs ELL atomics " << ms_text(t.ell_atomics);
    if (t.ell_colouring && t.ell_atomics)
      text << " (atomics / colouring " << fixed(t.ell_atomics->total_ms / t.ell_colouring->total_ms, 2) << ")";
    text << ".";
    t.text = text.str();
    return t;
  }

  // The report's head: what ran, when and where, on which backends.
  void write_head(std::ostream& json, std::ostream& md, const RunRecord& run) const {
    const std::string cpu_sizes = str("host backends run meshes of at most ", group_digits(args.cpu_max_elements),
                                      " elements (--cpu-max-elements)");
    json << "{\n  \"benchmark\": \"assembly and element matrices\"";
    run.json_provenance(json);
    run.json_machine(json);
    json << ",\n  \"precision\": " << json_string(args.precision) << ",\n  \"repeats\": " << args.repeats
         << ",\n  \"min_seconds\": " << args.min_seconds << ",\n  \"cpu_max_elements\": " << args.cpu_max_elements
         << ",\n  \"backends\": [";
    md << "Assembly and element matrices, " << run.date << ", commit " << run.commit << "; K of steel in "
       << args.precision << "; medians of " << args.repeats << " or more runs after one untimed; " << cpu_sizes
       << ".\n\n";
    write_devices(json, md, devices);
    json << "\n  ],\n  \"element_matrices\": ";
  }

  void write_element_cases(std::ostream& json, std::ostream& md) const {
    md << "\nElement matrices (element-matrices paper, Figs. 5-7): median ms per batch, elements/s, GB/s (element data "
          "read, output written in double), speed-up of CUDA over OpenMP.\n\n";
    markdown_head(md, {"type", "cells", "elements", "matrix", "values/element", "backend", "ms", "elements/s", "GB/s",
                       "x OpenMP"},
                  "lrrlrlrrrr");
    JsonArray entries(json);
    for (const ElementCase& c : element_cases) {
      const double x = speedup(c);
      entries.next() << "{\"backend\": " << json_string(std::string(to_string(c.backend)))
                     << ", \"type\": " << json_string(c.type)
                     << ", \"cells\": " << c.cells << ", \"elements\": " << c.elements
                     << ", \"matrix\": " << json_string(c.matrix) << ", \"values_per_element\": " << c.values_per_element
                     << ", \"repeats\": " << c.repeats << ", \"ms\": " << c.ms
                     << ", \"elements_per_second\": " << c.elements_per_second() << ", \"bytes\": " << c.bytes
                     << ", \"achieved_GBps\": " << c.gbytes_per_second() << ", \"speedup_over_openmp\": " << x << "}";
      markdown_row(md, {c.type, str(c.cells, "^3"), str(c.elements), c.matrix, str(c.values_per_element),
                        std::string(to_string(c.backend)),
                        fixed(c.ms, 3), fixed(c.elements_per_second() / 1e6, 2) + " M", fixed(c.gbytes_per_second(), 1),
                        x > 0 ? fixed(x, 1) : "-"});
    }
    entries.close();
  }

  void write_assembly_cases(std::ostream& json, std::ostream& md) const {
    md << "\nTwo-kernel assembly of K (two-kernel paper, Figs. 9-13): sizes are nodes per direction (hex8 grid) or "
          "cells per direction (tet4 perturbed, 6 tetrahedra each); medians, ms; format bytes (Fig. 9); kernel 2 GB/s "
          "from its estimated bytes (element data read, each element value read and written, the value array zeroed); "
          "speed-up of CUDA over OpenMP on the total.\n\n";
    markdown_head(md, {"mesh", "size", "nodes", "elements", "non-zeros", "format", "race", "backend", "kernel 1",
                       "kernel 2", "total", "format MB", "kernel 2 GB/s", "% of copy", "x OpenMP"},
                  "lrrrrlllrrrrrrr");
    JsonArray entries(json);
    for (const AssemblyCase& c : assembly_cases) {
      const double x = speedup(c);
      const Device& d =
          *std::find_if(devices.begin(), devices.end(), [&](const Device& o) { return o.exec.backend() == c.backend; });
      const double percent = percent_of_copy(c.kernel2_gbytes_per_second(), d.copy);
      entries.next() << "{\"backend\": " << json_string(std::string(to_string(c.backend)))
                     << ", \"mesh\": " << json_string(c.mesh)
                     << ", \"size\": " << c.size << ", \"nodes\": " << c.nodes << ", \"elements\": " << c.elements
                     << ", \"format\": " << json_string(c.format) << ", \"strategy\": " << json_string(c.strategy)
                     << ", \"nnz\": " << c.nnz << ", \"expected_nnz\": " << c.expected_nnz
                     << ", \"nnz_ok\": " << (c.nnz == c.expected_nnz ? "true" : "false")
                     << ", \"storage_bytes\": " << c.storage_bytes << ", \"repeats\": " << c.repeats
                     << ", \"kernel1_ms\": " << c.kernel1_ms << ", \"kernel2_ms\": " << c.kernel2_ms
                     << ", \"total_ms\": " << c.total_ms << ", \"kernel2_bytes\": " << c.kernel2_bytes
                     << ", \"kernel2_GBps\": " << c.kernel2_gbytes_per_second() << ", \"percent_of_copy\": " << percent
                     << ", \"speedup_over_openmp\": " << x << "}";
      markdown_row(md, {c.mesh, str(c.size), str(c.nodes), str(c.elements), str(c.nnz), c.format, c.strategy,
                        std::string(to_string(c.backend)),
                        fixed(c.kernel1_ms, 3), fixed(c.kernel2_ms, 3), fixed(c.total_ms, 3),
                        fixed(1e-6 * double(c.storage_bytes), 1), fixed(c.kernel2_gbytes_per_second(), 1),
                        fixed(percent, 1), x > 0 ? fixed(x, 1) : "-"});
    }
    entries.close();
  }

  void write_target(std::ostream& json, std::ostream& md, const TargetLine& t) const {
    const auto ms_json = [](const AssemblyCase* c) { return c ? str(c->total_ms) : std::string("null"); };
    json << ",\n  \"target\": {\"backend\": " << json_string(std::string(to_string(t.backend)))
         << ", \"elements\": " << target_cells * target_cells * target_cells << ", \"target_ms\": " << target_ms
         << ", \"csr_colouring_ms\": " << ms_json(t.csr_colouring) << ", \"csr_atomics_ms\": " << ms_json(t.csr_atomics)
         << ", \"ell_colouring_ms\": " << ms_json(t.ell_colouring) << ", \"ell_atomics_ms\": " << ms_json(t.ell_atomics)
         << ", \"text\": " << json_string(t.text) << "},\n  ";
    md << "\n" << t.text << "\n";
  }
};

}  // namespace

void run_assembly(const AssemblyArgs& args) {
  TREMOR_CHECK(args.precision == "float" || args.precision == "double", "--precision: '", args.precision,
               "' is neither float nor double");
  for (Size s : args.sizes) TREMOR_CHECK(s >= 2, "--sizes: ", s, " nodes per direction; at least 2");
  for (Size c : args.element_cells) TREMOR_CHECK(c >= 1, "--element-cells: ", c, " cells; at least 1");
  if (!args.output_dir.empty() && !args.dry_run) make_output_dir(args.output_dir);
  AssemblyBench bench(args);
  bench.print_header();
  if (args.dry_run) {
    bench.print_plan();
    return;
  }
  RunRecord run{args.commit, args.note};
  bench.time_element_matrices();
  bench.time_assembly();
  run.finish();

  const TargetLine target = bench.target_line();
  std::ostringstream json, md;
  bench.write_head(json, md, run);
  bench.write_element_cases(json, md);
  json << ",\n  \"assembly\": ";
  bench.write_assembly_cases(json, md);
  bench.write_target(json, md, target);
  write_skips_and_failures(json, md, bench.skips, bench.failures);
  std::printf("\n%s\n", target.text.c_str());
  if (!args.output_dir.empty()) write_report_to(args.output_dir, "assembly", json.str(), md.str());
  check_no_failures(bench.failures);
}

}  // namespace tremor::bench
