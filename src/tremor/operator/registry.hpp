#pragma once
// The registry of operator kinds: one entry per kind (its name, a line about it, whether it is
// built from an assembled K, where it runs, its memory model, its factories and what it can do: take
// a block file, split, run decomposed). The model reader's check, the CLI's choices, the
// pre-flight's memory estimate, the benchmark and `tremor info` read it, and ask the entry, never
// its name, what a kind can do; adding a kind is one entry and one class.
//
// A Registry is a value; each layer that implements kinds adds them (sparse::register_operators for
// the assembled formats, explicit_fe::register_operators for the matrix-free and partitioned ones)
// and explicit_fe::operators() is the registry of a run, complete. A kind's name is parsed into its
// entry once, at the edge (the pre-flight, the CLI); past it, code holds the entry, not a string.
// A kind may take only some element types (sem: GLL hexahedra): its entry says why not for a mesh,
// and the pre-flight and the factory refuse with that message.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tremor/backend/exec.hpp"
#include "tremor/core/config.hpp"
#include "tremor/fem/colouring.hpp"
#include "tremor/fem/device_elements.hpp"
#include "tremor/fem/sections.hpp"
#include "tremor/mesh/mesh.hpp"
#include "tremor/model/model.hpp"
#include "tremor/operator/operator.hpp"

namespace tremor::sparse {
template <class Real>
struct CsrMatrixT;  // sparse/csr.hpp: the host K of the reference set-up, built and read above this layer
}

namespace tremor::op {

// What a kind's memory model is given: counts the pre-flight has before anything is built.
struct OperatorSizes {
  const Mesh* mesh = nullptr;
  Size stiffness_entries = 0;  // scalar entries of K (dim^2 per nodal block)
  Index max_neighbours = 0;    // the longest row of K in nodes (0: unknown)
  std::size_t real_size = sizeof(double);
  std::size_t element_bytes = 0;  // fem::DeviceElements as the run builds them
  // The geometric factors an element-by-element kind keeps (sem: per element 10 for affine blocks,
  // 25 for trilinear ones, 10 per point otherwise), counted by the pre-flight's own sem operator;
  // 0: unknown (the kind assumes the most).
  std::size_t geometry_values = 0;
  // Memory variables of attenuating sections per point of evaluation, the most solids x n_voigt
  // (0: none); a kind that keeps them counts them at its own points.
  std::size_t memory_per_point = 0;
  bool coloured = true;  // the elements carry colour lists (an assembly or scatter colour by colour)
  bool host = false;     // the run's Exec is the host's (Serial, OpenMP)

  std::size_t n_dofs() const;
  std::size_t n_nodes() const;
  std::size_t dim() const;
  // K in double in nodal-block CSR while the two-kernel assembly holds it (values, a column per
  // block, offsets per node).
  std::size_t assembled_k_bytes() const;
};

// What the set-up spent building one operator, for the run summary.
struct OperatorSetup {
  double assembly_seconds = 0.0;   // K by the two-kernel assembly in double (pattern and values)
  double format_seconds = 0.0;     // K converted to the kind's format, rounded to Real
  std::size_t assembly_bytes = 0;  // the double K in the Exec's memory while it exists
};

// What a factory builds from: the elements on the Exec the operator will run on.
struct OperatorInputs {
  const Model* model = nullptr;
  std::shared_ptr<const fem::DeviceElements> elements;  // built from model->mesh on the operator's Exec
  bool deterministic = true;  // assemble colour by colour (elements built with a colouring), else atomics
  std::string blocks;         // a block file (`tremor partition`) for the kinds that read one
  OperatorSetup* setup = nullptr;  // filled when not null
  // >= 0, for a kind that splits by rows (OperatorEntry::splits and needs_assembly): K built as an
  // op::SplitOperator of RowBlocks, the rows of nodes [split_at_node, n) first, the rest second
  // (a subdomain's shared nodes are its last); built whole where either part would be empty.
  Index split_at_node = -1;
  // Where the first part runs (a stream of the elements' device; null: the elements' Exec).
  const Exec* first_exec = nullptr;
  // s, > 0 for the time loop's operator: a kind that carries memory variables keeps those of the
  // attenuating sections, advanced by a step of this length in every apply. 0: stateless (the
  // unrelaxed moduli's K, as the stable step and the damping term take it).
  double time_step = 0.0;
};

template <class Real>
using Factory = std::unique_ptr<Operator<Real>> (*)(const OperatorInputs&);

// What the reference set-up builds from: K assembled on the host in double
// (sparse::assemble_stiffness from `table` and `colouring`), converted and copied to `exec`; the
// set-up on an Exec (Factory) is tested against it.
struct ReferenceInputs {
  const Model* model = nullptr;
  const Exec* exec = nullptr;
  const fem::SectionTable* table = nullptr;
  const fem::ElementColouring* colouring = nullptr;
  const sparse::CsrMatrixT<double>* stiffness = nullptr;  // K; may be null for a kind without K (needs_assembly false)
};

template <class Real>
using ReferenceFactory = std::unique_ptr<Operator<Real>> (*)(const ReferenceInputs&);

// Where a kind runs: a bit per Backend.
using Backends = std::uint8_t;
constexpr Backends backend_bit(Backend backend) { return static_cast<Backends>(1u << static_cast<unsigned>(backend)); }
constexpr Backends all_backends = backend_bit(Backend::Serial) | backend_bit(Backend::OpenMP) | backend_bit(Backend::Cuda);

// A set of element types: a bit per ElementType.
using ElementTypes = std::uint32_t;
constexpr ElementTypes type_bit(ElementType type) { return ElementTypes(1u) << static_cast<unsigned>(type); }
// Whether `mesh` has elements and every block that has some is of `types`.
bool all_of_types(const Mesh& mesh, ElementTypes types);

// Where "auto" takes a kind before the backend's default: on `backends`, on meshes whose element
// blocks are all of `types`, and (atomics_only) only where the run sums by atomics (a GPU run
// without --deterministic: the form that was measured). `why` is what was measured, and where it is
// written; the pre-flight says it after the mesh's element types.
struct AutoPreference {
  Backends backends = 0;
  ElementTypes types = 0;
  bool atomics_only = false;
  std::string_view why;
};

// Where "auto" takes a kind instead of the backend's default when the pre-flight's estimate of the
// default does not fit the device's free memory and this kind's does: on `backends`, on meshes
// whose element blocks are all of `types`. Kinds are tried in registration order.
struct AutoFallback {
  Backends backends = 0;
  ElementTypes types = 0;
};

struct OperatorEntry {
  std::string_view name;
  std::string_view summary;       // one line: what it stores and how it applies
  bool needs_assembly = true;     // built from K assembled in double (the set-up holds K)
  bool needs_colouring = false;   // reads the elements colour by colour in every apply
  bool reads_blocks = false;      // takes a block file (`tremor partition`)
  Backends backends = all_backends;
  // Its arrays in the time loop (Operator::bytes(), padding included).
  std::size_t (*loop_bytes)(const OperatorSizes&) = nullptr;
  // What building it holds on the Exec at most besides the elements, mass and damping.
  std::size_t (*setup_bytes)(const OperatorSizes&) = nullptr;
  Factory<float> make_float = nullptr;
  Factory<double> make_double = nullptr;
  // Why the kind cannot run on a mesh (its element types), empty when it can; null: every mesh.
  std::string (*unsupported)(const Mesh&) = nullptr;
  // Whether a decomposed run can build it in two parts (op::SplitOperator) to overlap the
  // exchange: by elements (the element-by-element kinds, which add into y) or by rows
  // (OperatorInputs::split_at_node).
  bool splits = false;
  // Its layout is made for the whole mesh in tremor run's one domain (partitioned: GPU blocks of
  // the whole node graph): refused for a decomposed run and for a kept set-up (Simulation).
  bool whole_mesh_only = false;
  // "auto" takes it on every mesh it takes (unsupported), before the backend's default: sem, two
  // orders of magnitude faster on GLL hexahedra than any assembled kind (docs/benchmarks.md).
  bool auto_where_it_takes = false;
  // Where "auto" prefers it to the backend's default (after the kinds above; a rule per set of
  // backends measured), and where it takes it when the default does not fit the device's memory:
  // Registry::choose_auto.
  std::vector<AutoPreference> auto_prefers{};
  AutoFallback auto_fits{};
  // It evaluates each section's pointwise law (fem/laws.hpp) at the elements' points in every
  // apply (matrix_free, sem), so a law with state per point (memory variables, PML convolution
  // variables) can run in it; an assembled kind holds K, the laws' tangent, and cannot.
  bool evaluates_laws = false;
  // It keeps the memory variables of attenuating sections at its points (fem/viscoelastic.hpp;
  // built with OperatorInputs::time_step): the pre-flight refuses an attenuating model on a kind
  // that does not, naming those that do.
  bool carries_memory_variables = false;
  // And coarse-grained ones too (a material's q_coarse_grained: one solid's per point).
  bool coarse_grains_memory_variables = false;
  // It takes a material field's moduli at each GLL point (fem/point_materials.hpp; the others take
  // each element's centre's), keeping two values in Real per point of the blocks that do: the
  // pre-flight counts them (explicit_fe's point_moduli_bytes).
  bool moduli_per_point = false;
  // The reference every other kind is checked against (scalar CSR of the host K): what `tremor
  // info` estimates when the model names no kind that takes its mesh.
  bool reference = false;
  // The reference set-up from a host K (ReferenceInputs).
  ReferenceFactory<float> reference_float = nullptr;
  ReferenceFactory<double> reference_double = nullptr;
  // Its operators read their matrix once for several vectors (Operator::fuses_batch): where "auto"
  // steps a model's shots together (explicit/solver.hpp, RunOptions::shots_together).
  bool fuses_batch = false;
  // Where it reads them once on some meshes only, or not colour by colour: whether it does on this
  // one, its elements' forces added colour by colour or not (null: fuses_batch says for all).
  bool (*fuses_batch_on)(const Mesh&, bool coloured) = nullptr;
  bool fuses(const Mesh& mesh, bool coloured) const {
    return fuses_batch && (!fuses_batch_on || fuses_batch_on(mesh, coloured));
  }
  // Whether "auto" steps shots together on it in this precision (bytes per value), where reading
  // once is not faster in both (null: it is): as measured (docs/benchmarks.md).
  bool (*batch_gains)(std::size_t real_size) = nullptr;

  bool runs_on(Backend backend) const { return (backends & backend_bit(backend)) != 0; }
  bool takes(const Mesh& mesh) const { return !unsupported || unsupported(mesh).empty(); }
  template <class Real>
  std::unique_ptr<Operator<Real>> make(const OperatorInputs& inputs) const;
  template <class Real>
  std::unique_ptr<Operator<Real>> make_reference(const ReferenceInputs& inputs) const;
};

// What "auto" resolves to, and why in one line (the pre-flight's "operator" line): empty where it is
// the backend's default and no device memory was given (the host backends).
struct AutoChoice {
  const OperatorEntry* entry = nullptr;
  std::string reason;
  bool fits = true;  // false: neither the default nor any fallback fits the free memory given
};

// A kind's estimated bytes on the device for the run at hand (the pre-flight's memory model).
using BytesOf = std::function<std::size_t(const OperatorEntry&)>;

class Registry {
 public:
  // Throws tremor::Error when the name is taken, empty, or the entry lacks a factory or memory model,
  // or a second entry claims to be the reference.
  void add(const OperatorEntry& entry);
  // The fastest kind measured on a backend (docs/benchmarks.md): what "auto" means there.
  void set_default(Backend backend, std::string_view name);

  const std::vector<OperatorEntry>& entries() const { return entries_; }
  const OperatorEntry* find(std::string_view name) const;
  // The entry of `name`; anything else throws tremor::Error: "WHERE: unknown stiffness operator
  // 'NAME'; expected "auto" or one of ..." (`where` prefixed when not empty). "auto" gives
  // default_for(backend), and a kind that does not run on `backend` is refused saying where it does.
  const OperatorEntry& parse(std::string_view name, Backend backend, std::string_view where = {}) const;
  const OperatorEntry& default_for(Backend backend) const;
  // What "auto" means for a run on `backend` over `mesh` (`deterministic`: --deterministic), in
  // this order: a kind marked auto_where_it_takes that takes the mesh (sem on GLL hexahedra); the
  // first kind whose auto_prefers holds for the run; else the backend's default, unless
  // `free_bytes` (the device's free memory; 0: unknown, no check) is less than bytes(default), in
  // which case the first kind whose auto_fits holds and whose bytes fit. Asks bytes only there.
  // memory_variables (the model attenuates): before all these, the kinds that keep them
  // (carries_memory_variables) and take the mesh, an auto_where_it_takes one first.
  AutoChoice choose_auto(Backend backend, const Mesh& mesh, bool deterministic, std::size_t free_bytes = 0,
                         const BytesOf& bytes = {}, bool memory_variables = false) const;
  // The entry marked reference.
  const OperatorEntry& reference() const;
  // Names in registration order: all, or those that run on `backend`.
  std::vector<std::string> names() const;
  std::vector<std::string> names(Backend backend) const;
  // Those that run on `backend` and take the mesh's element types (OperatorEntry::unsupported).
  std::vector<std::string> names(Backend backend, const Mesh& mesh) const;
  // "\"assembled\", \"block_csr\", ..." for messages.
  std::string quoted_names() const;

 private:
  std::vector<OperatorEntry> entries_;
  std::string default_[3];
};

extern template std::unique_ptr<Operator<float>> OperatorEntry::make<float>(const OperatorInputs&) const;
extern template std::unique_ptr<Operator<double>> OperatorEntry::make<double>(const OperatorInputs&) const;
extern template std::unique_ptr<Operator<float>> OperatorEntry::make_reference<float>(const ReferenceInputs&) const;
extern template std::unique_ptr<Operator<double>> OperatorEntry::make_reference<double>(const ReferenceInputs&) const;

}  // namespace tremor::op
