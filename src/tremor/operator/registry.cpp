#include "tremor/operator/registry.hpp"

#include <algorithm>
#include <type_traits>

#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"

namespace tremor::op {

std::size_t OperatorSizes::n_nodes() const { return static_cast<std::size_t>(mesh->n_nodes()); }
std::size_t OperatorSizes::dim() const { return static_cast<std::size_t>(mesh->dim()); }
std::size_t OperatorSizes::n_dofs() const { return n_nodes() * dim(); }

std::size_t OperatorSizes::assembled_k_bytes() const {
  const auto nnz = static_cast<std::size_t>(stiffness_entries);
  return nnz * sizeof(double) + nnz / (dim() * dim()) * sizeof(Index) + (n_nodes() + 1) * sizeof(Size);
}

template <class Real>
std::unique_ptr<Operator<Real>> OperatorEntry::make(const OperatorInputs& inputs) const {
  TREMOR_CHECK(inputs.model && inputs.elements, "the ", name, " operator needs the model and its elements");
  const Backend backend = inputs.elements->exec.backend();
  TREMOR_CHECK(runs_on(backend), "the ", name, " operator does not run on ", inputs.elements->exec.describe(),
               " (use another backend, or another operator)");
  TREMOR_CHECK(!needs_colouring || inputs.elements->n_colours > 0 || inputs.elements->n_elements() == 0, "the ",
               name, " operator needs the elements built with a colouring");
  if (unsupported) {
    const std::string why = unsupported(inputs.model->mesh);
    TREMOR_CHECK(why.empty(), why);
  }
  if constexpr (std::is_same_v<Real, float>)
    return make_float(inputs);
  else
    return make_double(inputs);
}

template <class Real>
std::unique_ptr<Operator<Real>> OperatorEntry::make_reference(const ReferenceInputs& inputs) const {
  TREMOR_CHECK(inputs.model && inputs.exec && inputs.table && inputs.colouring, "the ", name,
               " operator's reference set-up needs the model, its section table and colouring");
  TREMOR_CHECK(!needs_assembly || inputs.stiffness, "the ", name, " operator's reference set-up needs K");
  if constexpr (std::is_same_v<Real, float>)
    return reference_float(inputs);
  else
    return reference_double(inputs);
}

void Registry::add(const OperatorEntry& entry) {
  TREMOR_CHECK(!entry.name.empty() && entry.name != "auto", "operator registry: '", entry.name,
               "' cannot name an operator");
  TREMOR_CHECK(find(entry.name) == nullptr, "operator registry: '", entry.name, "' is registered twice");
  TREMOR_CHECK(entry.make_float && entry.make_double && entry.reference_float && entry.reference_double &&
                   entry.loop_bytes && entry.setup_bytes,
               "operator registry: '", entry.name, "' lacks a factory or a memory model");
  TREMOR_CHECK(!entry.reference || std::none_of(entries_.begin(), entries_.end(),
                                                [](const OperatorEntry& e) { return e.reference; }),
               "operator registry: '", entry.name, "' is a second reference");
  entries_.push_back(entry);
}

void Registry::set_default(Backend backend, std::string_view name) {
  const OperatorEntry* entry = find(name);
  TREMOR_CHECK(entry && entry->runs_on(backend), "operator registry: no '", name, "' operator runs on ",
               to_string(backend));
  default_[static_cast<int>(backend)] = std::string(name);
}

const OperatorEntry* Registry::find(std::string_view name) const {
  for (const OperatorEntry& entry : entries_)
    if (entry.name == name) return &entry;
  return nullptr;
}

const OperatorEntry& Registry::default_for(Backend backend) const {
  const OperatorEntry* entry = find(default_[static_cast<int>(backend)]);
  TREMOR_CHECK(entry, "operator registry: no default operator for ", to_string(backend));
  return *entry;
}


bool all_of_types(const Mesh& mesh, ElementTypes types) {
  bool any = false;
  for (const ElementBlock& block : mesh.blocks) {
    if (block.n_elements() == 0) continue;
    if ((types & type_bit(block.type)) == 0) return false;
    any = true;
  }
  return any;
}

namespace {

// "hex8", "tri3 and quad4": the element types of the mesh's blocks that have elements.
std::string types_of(const Mesh& mesh) {
  std::vector<std::string> names;
  for (const ElementBlock& block : mesh.blocks) {
    if (block.n_elements() == 0) continue;
    std::string name = element_name(block.type, block.order);
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(std::move(name));
  }
  return listed_and(names);
}

std::string bytes_text(std::size_t bytes) { return str(si(static_cast<double>(bytes)), "B"); }

}  // namespace

AutoChoice Registry::choose_auto(Backend backend, const Mesh& mesh, bool deterministic, std::size_t free_bytes,
                                 const BytesOf& bytes, bool memory_variables) const {
  if (memory_variables) {
    for (const OperatorEntry& entry : entries_)
      if (entry.carries_memory_variables && entry.auto_where_it_takes && entry.runs_on(backend) && entry.takes(mesh))
        return {&entry, {}};
    for (const OperatorEntry& entry : entries_)
      if (entry.carries_memory_variables && entry.runs_on(backend) && entry.takes(mesh))
        return {&entry, str("attenuating materials keep memory variables where the stress is evaluated: ", entry.name)};
  }
  for (const OperatorEntry& entry : entries_)
    if (entry.auto_where_it_takes && entry.runs_on(backend) && entry.takes(mesh)) return {&entry, {}};
  for (const OperatorEntry& entry : entries_)
    for (const AutoPreference& rule : entry.auto_prefers)
      if ((rule.backends & backend_bit(backend)) != 0 && !(rule.atomics_only && deterministic) &&
          entry.runs_on(backend) && entry.takes(mesh) && all_of_types(mesh, rule.types))
        return {&entry, str(types_of(mesh), " elements: ", rule.why)};
  const OperatorEntry& fallback = default_for(backend);
  if (free_bytes == 0) return {&fallback, {}};
  const std::string named = str(fallback.name, ", the default on ", to_string(backend));
  std::vector<const OperatorEntry*> others;
  for (const OperatorEntry& entry : entries_)
    if (&entry != &fallback && (entry.auto_fits.backends & backend_bit(backend)) != 0 && entry.runs_on(backend) &&
        entry.takes(mesh) && all_of_types(mesh, entry.auto_fits.types))
      others.push_back(&entry);
  if (others.empty() || !bytes) return {&fallback, named};
  const char* device = backend == Backend::Cuda ? "the GPU" : "the host";
  const std::size_t needed = bytes(fallback);
  if (needed <= free_bytes)
    return {&fallback, str(named, ", needs ", bytes_text(needed), "; ", device, " has ", bytes_text(free_bytes), " free")};
  const std::string short_of =
      str(fallback.name, " needs ", bytes_text(needed), ", ", device, " has ", bytes_text(free_bytes), " free");
  std::string tried;
  for (const OperatorEntry* entry : others) {
    const std::size_t other = bytes(*entry);
    if (other <= free_bytes) return {entry, str(short_of, "; ", entry->name, " needs ", bytes_text(other))};
    tried += str("; ", entry->name, " needs ", bytes_text(other));
  }
  return {&fallback, str(short_of, tried, others.size() == 1 ? ": neither fits" : ": none fits"), false};
}

const OperatorEntry& Registry::reference() const {
  for (const OperatorEntry& entry : entries_)
    if (entry.reference) return entry;
  throw Error("operator registry: no reference operator");
}

const OperatorEntry& Registry::parse(std::string_view name, Backend backend, std::string_view where) const {
  const std::string at = where.empty() ? std::string() : str(where, ": ");
  if (name == "auto") return default_for(backend);
  const OperatorEntry* entry = find(name);
  if (!entry) {
    std::vector<std::string_view> known{"auto"};
    for (const OperatorEntry& e : entries_) known.push_back(e.name);
    throw Error(str(at, "unknown stiffness operator '", name, "'", suggestion(name, known), "; expected \"auto\" or one of ",
                    quoted_names()));
  }
  if (!entry->runs_on(backend)) {
    std::string where_it_runs;
    for (const Backend b : {Backend::Serial, Backend::OpenMP, Backend::Cuda})
      if (entry->runs_on(b)) where_it_runs += str(where_it_runs.empty() ? "" : ", ", to_string(b));
    throw Error(str(at, "the ", name, " operator runs on ", where_it_runs, "; the backend is ", to_string(backend),
                    " (use another backend, or another operator)"));
  }
  return *entry;
}

std::vector<std::string> Registry::names() const {
  std::vector<std::string> out;
  for (const OperatorEntry& entry : entries_) out.emplace_back(entry.name);
  return out;
}

std::vector<std::string> Registry::names(Backend backend) const {
  std::vector<std::string> out;
  for (const OperatorEntry& entry : entries_)
    if (entry.runs_on(backend)) out.emplace_back(entry.name);
  return out;
}

std::vector<std::string> Registry::names(Backend backend, const Mesh& mesh) const {
  std::vector<std::string> out;
  for (const OperatorEntry& entry : entries_)
    if (entry.runs_on(backend) && entry.takes(mesh)) out.emplace_back(entry.name);
  return out;
}

std::string Registry::quoted_names() const {
  std::string out;
  for (const OperatorEntry& entry : entries_) out += str(out.empty() ? "\"" : ", \"", entry.name, "\"");
  return out;
}

template std::unique_ptr<Operator<float>> OperatorEntry::make<float>(const OperatorInputs&) const;
template std::unique_ptr<Operator<double>> OperatorEntry::make<double>(const OperatorInputs&) const;
template std::unique_ptr<Operator<float>> OperatorEntry::make_reference<float>(const ReferenceInputs&) const;
template std::unique_ptr<Operator<double>> OperatorEntry::make_reference<double>(const ReferenceInputs&) const;

}  // namespace tremor::op
