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
  std::string backend, type, matrix;
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
  std::string backend, mesh, format, strategy;
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


// The planned grids, with what each backend does with them.
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
    for (Device& d : devices) d.copy = measure_copy_bandwidth(d.exec, std::size_t(args.copy_mb) << 20);
  // The GPU first: its cases are the ones the run is for.
  std::stable_sort(devices.begin(), devices.end(), [](const Device& a, const Device& b) { return !a.host() && b.host(); });
  return devices;
}

}  // namespace

void run_assembly(const AssemblyArgs& args) {
  TREMOR_CHECK(args.precision == "float" || args.precision == "double", "--precision: '", args.precision,
               "' is neither float nor double");
  for (Size s : args.sizes) TREMOR_CHECK(s >= 2, "--sizes: ", s, " nodes per direction; at least 2");
  for (Size c : args.element_cells) TREMOR_CHECK(c >= 1, "--element-cells: ", c, " cells; at least 1");
  if (!args.output_dir.empty() && !args.dry_run) make_output_dir(args.output_dir);
  const std::size_t real_bytes = args.precision == "float" ? sizeof(float) : sizeof(double);
  std::vector<Device> devices = assembly_devices(args, !args.dry_run);
  const bool gpu = std::any_of(devices.begin(), devices.end(), [](const Device& d) { return !d.host(); });

  // Grids: those asked for, or the default list; each above 2^31 - 1 non-zeros left out.
  std::vector<GridPlan> grids;
  for (Size s : args.sizes.empty() ? default_sizes : args.sizes) {
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
  std::vector<Size> element_cells = args.element_cells.empty() ? default_element_cells : args.element_cells;
  if (args.element_cells.empty() && gpu) element_cells.push_back(gpu_element_cells);

  // Whether `device` runs a mesh of `elements` elements needing `bytes`, and if not, why.
  const auto runs = [&](const Device& device, Index elements, std::size_t bytes) -> std::string {
    if (device.host() && Size(elements) > args.cpu_max_elements)
      return str("more than --cpu-max-elements ", group_digits(args.cpu_max_elements));
    if (device.memory.free_bytes > 0 && double(bytes) > memory_margin * double(device.memory.free_bytes))
      return str("needs ~", gib(bytes), ", ", gib(device.memory.free_bytes), " free");
    return "";
  };

  std::printf("tremor bench assembly: K of steel, %s values; every case once untimed, then the median of %d or more "
              "runs (at least %.2f s)\n",
              args.precision.c_str(), args.repeats, args.min_seconds);
  print_devices(devices, !args.dry_run);

  if (args.dry_run) {
    std::printf("\nelement matrices (output in double):\n");
    const auto dry_box = [&](const char* type, ElementType t, Size cells, Index elements, int n_nodes) {
      const int n_dof = 3 * n_nodes;
      const std::size_t out = std::size_t(elements) * std::size_t(n_dof) * std::size_t(n_dof) * 8;
      std::printf("  %-6s %4lld^3 cells %12s elements, full stiffness output %s:", type, (long long)cells,
                  group_digits(elements).c_str(), gib(out).c_str());
      (void)t;
      for (const Device& d : devices) {
        const std::string why = runs(d, elements, out);
        std::printf("  %s %s", d.name().c_str(), why.empty() ? "yes" : ("no (" + why + ")").c_str());
      }
      std::printf("\n");
    };
    for (Size c : element_cells) dry_box("hex8", ElementType::Hex8, c, Index(c * c * c), 8);
    const Size t = args.type_cells;
    dry_box("tet4", ElementType::Tet4, t, Index(6 * t * t * t), 4);
    dry_box("tet10", ElementType::Tet10, t, Index(6 * t * t * t), 10);
    dry_box("hex20", ElementType::Hex20, t, Index(t * t * t), 20);
    std::printf("\ntwo-kernel assembly of K, 4 formats x 2 race strategies:\n");
    for (const GridPlan& g : grids) {
      const Index elements = Index((g.size - 1) * (g.size - 1) * (g.size - 1));
      std::printf("  hex8 grid %4lld^3 nodes %12s nodes %12s elements %14s non-zeros, peak ~%s:",
                  (long long)g.size, group_digits(g.size * g.size * g.size).c_str(), group_digits(elements).c_str(),
                  group_digits(g.nnz).c_str(), gib(g.peak_bytes).c_str());
      for (const Device& d : devices) {
        const std::string why = runs(d, elements, g.peak_bytes);
        std::printf("  %s %s", d.name().c_str(), why.empty() ? "yes" : ("no (" + why + ")").c_str());
      }
      std::printf("\n");
    }
    if (args.tet4_cells > 0) {
      const Size c = args.tet4_cells;
      const Index elements = Index(6 * c * c * c);
      const Index nodes = Index((c + 1) * (c + 1) * (c + 1));
      const long long nnz = tet4_nnz(c);
      const std::size_t peak = tet4_peak(c, real_bytes);
      std::printf("  tet4 perturbed %4lld^3 cells x 6 %12s nodes %12s elements ~%s non-zeros, peak ~%s:",
                  (long long)c, group_digits(nodes).c_str(), group_digits(elements).c_str(),
                  group_digits(nnz).c_str(), gib(peak).c_str());
      for (const Device& d : devices) {
        const std::string why = runs(d, elements, peak);
        std::printf("  %s %s", d.name().c_str(), why.empty() ? "yes" : ("no (" + why + ")").c_str());
      }
      std::printf("\n");
    }
    return;
  }

  RunRecord run{args.commit, args.note};
  std::vector<ElementCase> element_cases;
  std::vector<AssemblyCase> assembly_cases;
  std::vector<Failure> failures;
  std::vector<Skip> skips;

  // --- element matrices -------------------------------------------------------------------------
  std::printf("\nelement matrices: ms (median), elements/s, GB/s written and read\n");
  const auto element_box = [&](const std::string& type_name, ElementType type, Size cells) {
    const std::string what = str(type_name, " ", cells, "^3 cells");
    std::optional<BenchMesh> mesh;
    std::optional<fem::SectionTable> table;
    std::optional<fem::ElementColouring> colouring;
    try {
      for (const Device& d : devices) {
        const Index n_elements = type == ElementType::Tet4 || type == ElementType::Tet10 ? Index(6 * cells * cells * cells)
                                                                                          : Index(cells * cells * cells);
        const int n_nodes = nodes_per_element(type);
        const int n_dof = 3 * n_nodes;
        const std::size_t out_bytes = std::size_t(n_elements) * std::size_t(n_dof) * std::size_t(n_dof) * 8;
        const std::size_t out_values = std::size_t(n_elements) * std::size_t(n_dof) * std::size_t(n_dof);
        const std::string why = out_values > std::size_t(2147483647)
                                    ? str(group_digits(static_cast<long long>(out_values)),
                                          " values, more than an array indexes")
                                    : runs(d, n_elements, out_bytes);
        if (!why.empty()) {
          skips.push_back({str("element matrices ", what, " on ", d.name()), why});
          std::printf("  %-6s %-7s %4lld^3 cells: not run (%s)\n", type_name.c_str(), d.name().c_str(),
                      (long long)cells, why.c_str());
          continue;
        }
        if (!mesh) {
          mesh = make_mesh(type_name, type, cells);
          table = fem::section_table(mesh->model);
          colouring = fem::colour_elements(mesh->model.mesh);
        }
        const fem::DeviceElements elements(d.exec, mesh->model.mesh, *table, *colouring);
        DeviceArray<double> out(d.exec, static_cast<Index>(out_values));
        for (const ElementMatrixKind& kind : element_kinds) {
          ElementCase c;
          c.backend = d.name();
          c.type = type_name;
          c.matrix = kind.name;
          c.cells = cells;
          c.elements = n_elements;
          c.values_per_element = sparse::values_per_element(kind.matrix, kind.storage, n_dof);
          c.bytes = std::size_t(n_elements) * (element_data_bytes(n_nodes) + std::size_t(c.values_per_element) * 8);
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
            std::printf("  %-6s %-7s %-22s failed: %s\n", type_name.c_str(), d.name().c_str(), kind.name, e.what());
            continue;
          }
          std::printf("  %-6s %-7s %4lld^3 cells %10s elements  %-22s %10.3f ms %10.3g elements/s %7.1f GB/s\n",
                      type_name.c_str(), d.name().c_str(), (long long)cells, group_digits(n_elements).c_str(),
                      kind.name, c.ms, c.elements_per_second(), c.gbytes_per_second());
          std::fflush(stdout);
          element_cases.push_back(c);
        }
      }
    } catch (const std::exception& e) {
      failures.push_back({str("element matrices ", what), e.what()});
      std::printf("  %s failed: %s\n", what.c_str(), e.what());
    }
  };
  for (Size cells : element_cells) element_box("hex8", ElementType::Hex8, cells);
  if (args.type_cells > 0) {
    element_box("tet4", ElementType::Tet4, args.type_cells);
    element_box("tet10", ElementType::Tet10, args.type_cells);
    element_box("hex20", ElementType::Hex20, args.type_cells);
  }

  // --- two-kernel assembly -----------------------------------------------------------------------
  std::printf("\ntwo-kernel assembly of K (%s): kernel 1, kernel 2, total ms (medians), format MB, kernel 2 GB/s\n",
              args.precision.c_str());
  // The devices that run a mesh of `elements` needing ~`peak_bytes`; the others listed as skipped.
  const auto runners = [&](const std::string& kind, Size size, Index elements, std::size_t peak_bytes) {
    std::vector<const Device*> out;
    for (const Device& d : devices) {
      const std::string why = runs(d, elements, peak_bytes);
      if (why.empty()) {
        out.push_back(&d);
        continue;
      }
      skips.push_back({str("assembly ", kind, " ", size, " on ", d.name()), why});
      std::printf("  %-14s %4lld %-7s not run (%s)\n", kind.c_str(), (long long)size, d.name().c_str(), why.c_str());
    }
    return out;
  };
  const auto assemble_mesh = [&](BenchMesh& mesh, Size size, long long expected_nnz,
                                 const std::vector<const Device*>& on) {
    const std::string what = str(mesh.kind, " ", size);
    const fem::SectionTable table = fem::section_table(mesh.model);
    const fem::ElementColouring colouring = fem::colour_elements(mesh.model.mesh);
    const int n_element_nodes = nodes_per_element(mesh.model.mesh.blocks.front().type);
    for (const Device* device : on) {
      const Device& d = *device;
      try {
        const fem::DeviceElements elements(d.exec, mesh.model.mesh, table, colouring);
        for (Format format : all_formats)
          for (RaceStrategy strategy : all_strategies) {
            AssemblyCase c;
            c.backend = d.name();
            c.mesh = mesh.kind;
            c.format = format_name(format);
            c.strategy = to_string(strategy);
            c.size = size;
            c.nodes = mesh.n_nodes();
            c.elements = mesh.n_elements();
            c.expected_nnz = expected_nnz;
            const std::string name = str("assembly ", what, " ", c.format, " ", c.strategy, " on ", d.name());
            try {
              std::vector<double> k1, k2;  // every run's, the untimed first included
              Assembled result;
              const std::vector<double> total = warm_then_time(args.repeats, args.min_seconds, [&] {
                sparse::AssemblyTimes times;
                double total_ms = 0.0;
                result = real_bytes == sizeof(float)
                             ? assemble_once<float>(format, d.exec, elements, strategy, times, total_ms)
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
              c.kernel2_bytes = std::size_t(c.elements) * (element_data_bytes(n_element_nodes) +
                                                           element_values * 2 * real_bytes) +
                                result.stored_values * real_bytes;
            } catch (const std::exception& e) {
              failures.push_back({name, e.what()});
              std::printf("  %-14s %4lld %-7s %-9s %-9s failed: %s\n", mesh.kind.c_str(), (long long)size,
                          d.name().c_str(), c.format.c_str(), c.strategy.c_str(), e.what());
              continue;
            }
            const double copy = d.copy.bytes_per_second();
            std::printf("  %-14s %4lld %-7s %-9s %-9s %10.3f %10.3f %10.3f ms %10.1f MB %7.1f GB/s (%4.1f%% of copy)%s\n",
                        mesh.kind.c_str(), (long long)size, d.name().c_str(), c.format.c_str(), c.strategy.c_str(),
                        c.kernel1_ms, c.kernel2_ms, c.total_ms, 1e-6 * double(c.storage_bytes),
                        c.kernel2_gbytes_per_second(), copy > 0 ? 100.0 * c.kernel2_gbytes_per_second() * 1e9 / copy : 0.0,
                        c.nnz == c.expected_nnz ? "" : str("  non-zeros ", c.nnz, ", expected ", c.expected_nnz).c_str());
            std::fflush(stdout);
            if (c.nnz != c.expected_nnz)
              failures.push_back({name, str(c.nnz, " non-zeros, expected ", c.expected_nnz)});
            assembly_cases.push_back(c);
          }
      } catch (const std::exception& e) {
        failures.push_back({str("assembly ", what, " on ", d.name()), e.what()});
        std::printf("  %s on %s failed: %s\n", what.c_str(), d.name().c_str(), e.what());
      }
    }
  };
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
  run.finish();

  // --- speed-ups, the target line, output -------------------------------------------------------
  const auto element_speedup = [&](const ElementCase& c) {
    if (c.backend != "cuda") return 0.0;
    for (const ElementCase& o : element_cases)
      if (o.backend == "openmp" && o.type == c.type && o.cells == c.cells && o.matrix == c.matrix)
        return o.ms / c.ms;
    return 0.0;
  };
  const auto assembly_speedup = [&](const AssemblyCase& c) {
    if (c.backend != "cuda") return 0.0;
    for (const AssemblyCase& o : assembly_cases)
      if (o.backend == "openmp" && o.mesh == c.mesh && o.size == c.size && o.format == c.format &&
          o.strategy == c.strategy)
        return o.total_ms / c.total_ms;
    return 0.0;
  };
  const auto find_assembly = [&](const std::string& backend, const std::string& format, const std::string& strategy) {
    for (const AssemblyCase& c : assembly_cases)
      if (c.backend == backend && c.mesh == "hex8 grid" && c.size == target_cells + 1 && c.format == format &&
          c.strategy == strategy)
        return &c;
    return static_cast<const AssemblyCase*>(nullptr);
  };
  // The target line is the GPU's; without one, the fastest host backend's, said so.
  std::string target_backend = gpu ? "cuda" : devices.front().name();
  const AssemblyCase* csr_c = find_assembly(target_backend, "csr", "colouring");
  const AssemblyCase* csr_a = find_assembly(target_backend, "csr", "atomics");
  const AssemblyCase* ell_c = find_assembly(target_backend, "ell", "colouring");
  const AssemblyCase* ell_a = find_assembly(target_backend, "ell", "atomics");
  const auto ms_text = [](const AssemblyCase* c) { return c ? fixed(c->total_ms, 2) + " ms" : std::string("not run"); };
  const auto ms_json = [](const AssemblyCase* c) { return c ? str(c->total_ms) : std::string("null"); };
  std::string target_text;
  {
    std::ostringstream t;
    t << "Target: 1M hex8 elements (100^3 cells, 101^3 nodes) into CSR on " << target_backend
      << (gpu ? "" : " (no GPU in this run)") << ": colouring " << ms_text(csr_c) << ", atomics " << ms_text(csr_a);
    const AssemblyCase* best = csr_c && csr_a ? (csr_c->total_ms <= csr_a->total_ms ? csr_c : csr_a) : (csr_c ? csr_c : csr_a);
    if (best)
      t << "; best " << fixed(best->total_ms, 2) << " ms against " << fixed(target_ms, 0) << " ms: "
        << (best->total_ms <= target_ms ? "met" : "missed") << " (" << fixed(best->total_ms / target_ms, 2) << " x the target)";
    t << ". ELL colouring " << ms_text(ell_c) << " vs ELL atomics " << ms_text(ell_a);
    if (ell_c && ell_a) t << " (atomics / colouring " << fixed(ell_a->total_ms / ell_c->total_ms, 2) << ")";
    t << ".";
    target_text = t.str();
  }

  const std::string cpu_sizes = str("host backends run meshes of at most ", group_digits(args.cpu_max_elements),
                                    " elements (--cpu-max-elements)");
  std::ostringstream json, md;
  json << "{\n  \"benchmark\": \"assembly and element matrices\"";
  run.json_provenance(json);
  run.json_machine(json);
  json << ",\n  \"precision\": " << json_string(args.precision)
       << ",\n  \"repeats\": " << args.repeats << ",\n  \"min_seconds\": " << args.min_seconds
       << ",\n  \"cpu_max_elements\": " << args.cpu_max_elements << ",\n  \"backends\": [";
  md << "Assembly and element matrices, " << run.date << ", commit " << run.commit << "; K of steel in " << args.precision
     << "; medians of " << args.repeats << " or more runs after one untimed; " << cpu_sizes << ".\n\n";
  write_devices(json, md, devices);
  json << "\n  ],\n  \"element_matrices\": [";
  md << "\nElement matrices (element-matrices paper, Figs. 5-7): median ms per batch, elements/s, GB/s (element data "
        "read, output written in double), speed-up of CUDA over OpenMP.\n\n"
     << "| type | cells | elements | matrix | values/element | backend | ms | elements/s | GB/s | x OpenMP |\n"
     << "|---|---:|---:|---|---:|---|---:|---:|---:|---:|\n";
  for (std::size_t i = 0; i < element_cases.size(); ++i) {
    const ElementCase& c = element_cases[i];
    const double speedup = element_speedup(c);
    json << (i ? ",\n" : "\n") << "    {\"backend\": " << json_string(c.backend) << ", \"type\": " << json_string(c.type)
         << ", \"cells\": " << c.cells << ", \"elements\": " << c.elements << ", \"matrix\": " << json_string(c.matrix)
         << ", \"values_per_element\": " << c.values_per_element << ", \"repeats\": " << c.repeats
         << ", \"ms\": " << c.ms << ", \"elements_per_second\": " << c.elements_per_second()
         << ", \"bytes\": " << c.bytes << ", \"achieved_GBps\": " << c.gbytes_per_second()
         << ", \"speedup_over_openmp\": " << speedup << "}";
    md << "| " << c.type << " | " << c.cells << "^3 | " << c.elements << " | " << c.matrix << " | "
       << c.values_per_element << " | " << c.backend << " | " << fixed(c.ms, 3) << " | "
       << fixed(c.elements_per_second() / 1e6, 2) << " M | " << fixed(c.gbytes_per_second(), 1) << " | "
       << (speedup > 0 ? fixed(speedup, 1) : "-") << " |\n";
  }
  json << (element_cases.empty() ? "" : "\n  ") << "],\n  \"assembly\": [";
  md << "\nTwo-kernel assembly of K (two-kernel paper, Figs. 9-13): sizes are nodes per direction (hex8 grid) or cells "
        "per direction (tet4 perturbed, 6 tetrahedra each); medians, ms; format bytes (Fig. 9); kernel 2 GB/s from its "
        "estimated bytes (element data read, each element value read and written, the value array zeroed); speed-up "
        "of CUDA over OpenMP on the total.\n\n"
     << "| mesh | size | nodes | elements | non-zeros | format | race | backend | kernel 1 | kernel 2 | total | "
        "format MB | kernel 2 GB/s | % of copy | x OpenMP |\n"
     << "|---|---:|---:|---:|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n";
  for (std::size_t i = 0; i < assembly_cases.size(); ++i) {
    const AssemblyCase& c = assembly_cases[i];
    const double speedup = assembly_speedup(c);
    const Device& d = *std::find_if(devices.begin(), devices.end(), [&](const Device& x) { return x.name() == c.backend; });
    const double copy = d.copy.bytes_per_second();
    const double percent = copy > 0 ? 100.0 * c.kernel2_gbytes_per_second() * 1e9 / copy : 0.0;
    json << (i ? ",\n" : "\n") << "    {\"backend\": " << json_string(c.backend) << ", \"mesh\": " << json_string(c.mesh)
         << ", \"size\": " << c.size << ", \"nodes\": " << c.nodes << ", \"elements\": " << c.elements
         << ", \"format\": " << json_string(c.format) << ", \"strategy\": " << json_string(c.strategy)
         << ", \"nnz\": " << c.nnz << ", \"expected_nnz\": " << c.expected_nnz
         << ", \"nnz_ok\": " << (c.nnz == c.expected_nnz ? "true" : "false") << ", \"storage_bytes\": " << c.storage_bytes
         << ", \"repeats\": " << c.repeats << ", \"kernel1_ms\": " << c.kernel1_ms << ", \"kernel2_ms\": " << c.kernel2_ms
         << ", \"total_ms\": " << c.total_ms << ", \"kernel2_bytes\": " << c.kernel2_bytes
         << ", \"kernel2_GBps\": " << c.kernel2_gbytes_per_second() << ", \"percent_of_copy\": " << percent
         << ", \"speedup_over_openmp\": " << speedup << "}";
    md << "| " << c.mesh << " | " << c.size << " | " << c.nodes << " | " << c.elements << " | " << c.nnz << " | "
       << c.format << " | " << c.strategy << " | " << c.backend << " | " << fixed(c.kernel1_ms, 3) << " | "
       << fixed(c.kernel2_ms, 3) << " | " << fixed(c.total_ms, 3) << " | " << fixed(1e-6 * double(c.storage_bytes), 1)
       << " | " << fixed(c.kernel2_gbytes_per_second(), 1) << " | " << fixed(percent, 1) << " | "
       << (speedup > 0 ? fixed(speedup, 1) : "-") << " |\n";
  }
  json << (assembly_cases.empty() ? "" : "\n  ") << "],\n  \"target\": {\"backend\": " << json_string(target_backend)
       << ", \"elements\": " << target_cells * target_cells * target_cells << ", \"target_ms\": " << target_ms
       << ", \"csr_colouring_ms\": " << ms_json(csr_c) << ", \"csr_atomics_ms\": " << ms_json(csr_a)
       << ", \"ell_colouring_ms\": " << ms_json(ell_c) << ", \"ell_atomics_ms\": " << ms_json(ell_a)
       << ", \"text\": " << json_string(target_text) << "},\n  ";
  md << "\n" << target_text << "\n";
  write_skips_and_failures(json, md, skips, failures);

  std::printf("\n%s\n", target_text.c_str());
  if (!args.output_dir.empty()) write_report_to(args.output_dir, "assembly", json.str(), md.str());
  check_no_failures(failures);
}

}  // namespace tremor::bench
