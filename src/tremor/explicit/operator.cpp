#include "tremor/explicit/operator.hpp"
#include "tremor/explicit/partitioned_operator.hpp"

#include <algorithm>
#include <chrono>
#include <type_traits>

#include "tremor/backend/forall.hpp"
#include "tremor/core/clock.hpp"
#include "tremor/core/error.hpp"
#include "tremor/fem/dispatch.hpp"
#include "tremor/fem/element_matrices.hpp"
#include "tremor/sparse/assemble.hpp"

namespace tremor::explicit_fe {

namespace {

// ku += K_e u_e for the n elements `list` of one colour of one block of type E. Elements of one
// colour share no node, so the scatter-add has no races and each ku entry receives its element
// contributions in colour order: deterministic. Geometry is gathered and K_e u_e evaluated in
// double (fem::apply_element_stiffness: evaluate -> pointwise D -> integrate at every point of
// the default stiffness rule). Traffic per element: n_nodes indices, n_nodes * dim coordinates
// (8 B), n_nodes * dim u reads and ku read-modify-writes (sizeof(Real)), D (n_voigt^2 x 8 B),
// the element's absorbing-layer stiffness factor (8 B; K_e scales with D, so K_e u_e is scaled).
template <class E, class Real>
void apply_colour(const Exec& exec, Index n, const Index* list, const Index* connectivity, const int* section,
                  const double* factor, const double* coordinates, const double* D, const double* thickness,
                  const Real* u, Real* ku) {
  const fem::StiffnessRule<E> rule = fem::stiffness_rule<E>();
  forall(exec, n, [=] TREMOR_LAMBDA(Index i) {
    constexpr int dim = E::dim, n_dof = E::n_nodes * E::dim;
    const Index e = list[i];
    const Index* nodes = connectivity + static_cast<Size>(e) * E::n_nodes;
    double x[n_dof], ue[n_dof], fe[n_dof];
    for (int a = 0; a < E::n_nodes; ++a)  // gather
      for (int c = 0; c < dim; ++c) {
        const Size dof = static_cast<Size>(nodes[a]) * dim + c;
        x[a * dim + c] = coordinates[dof];
        ue[a * dim + c] = static_cast<double>(u[dof]);
      }
    const int s = section[e];
    fem::apply_element_stiffness<E>(x, D + 36 * s, thickness[s], rule, ue, fe);
    const double f = factor[e];
    for (int a = 0; a < E::n_nodes; ++a)  // scatter
      for (int c = 0; c < dim; ++c)
        ku[static_cast<Size>(nodes[a]) * dim + c] += static_cast<Real>(f * fe[a * dim + c]);
  });
}

}  // namespace

template <class Real>
StiffnessOperator<Real>::~StiffnessOperator() = default;

// ------------------------------------------------------------------------------------- assembled

template <class Real>
AssembledOperator<Real>::AssembledOperator(const Exec& exec, const sparse::CsrMatrix& K)
    : exec_(exec), matrix_(exec, sparse::convert<Real>(K)) {}

template <class Real>
AssembledOperator<Real>::AssembledOperator(const Exec& exec, const Model& model)
    : AssembledOperator(exec, sparse::assemble_stiffness(model, host_exec(exec))) {}

template <class Real>
AssembledOperator<Real>::AssembledOperator(const Exec& exec, const sparse::DeviceBlockCsr<double>& K)
    : exec_(exec), matrix_(sparse::to_csr<Real>(exec, K)) {}

template <class Real>
void AssembledOperator<Real>::apply(const Real* u, Real* ku) const {
  sparse::spmv(exec_, matrix_.view(), u, ku);
}

// ------------------------------------------------------------------------------------- block_csr

template <class Real>
BlockCsrOperator<Real>::BlockCsrOperator(const Exec& exec, const sparse::CsrMatrix& K, int dim)
    : exec_(exec), matrix_(exec, sparse::to_block_csr<Real>(K, dim)) {}

template <class Real>
BlockCsrOperator<Real>::BlockCsrOperator(const Exec& exec, const Model& model)
    : BlockCsrOperator(exec, sparse::assemble_stiffness(model, host_exec(exec)), model.mesh.dim()) {}

template <class Real>
BlockCsrOperator<Real>::BlockCsrOperator(const Exec& exec, sparse::DeviceBlockCsr<Real>&& K)
    : exec_(exec), matrix_(std::move(K)) {}

template <class Real>
BlockCsrOperator<Real>::BlockCsrOperator(const Exec& exec, const sparse::DeviceBlockCsr<double>& K)
    : exec_(exec), matrix_(sparse::rounded<Real>(exec, K)) {}

template <class Real>
void BlockCsrOperator<Real>::apply(const Real* u, Real* ku) const {
  sparse::spmv(exec_, matrix_, u, ku);
}

// ----------------------------------------------------------------------------------- matrix_free

template <class Real>
MatrixFreeOperator<Real>::MatrixFreeOperator(const Exec& exec, const Model& model)
    : MatrixFreeOperator(exec, model, sparse::section_table(model), sparse::colour_elements(model.mesh)) {}

template <class Real>
MatrixFreeOperator<Real>::MatrixFreeOperator(const Exec& exec, const Model& model, const sparse::SectionTable& table,
                                             const sparse::ElementColouring& colouring)
    : MatrixFreeOperator(exec, std::make_shared<const sparse::DeviceElements>(exec, model.mesh, table, colouring)) {}

template <class Real>
MatrixFreeOperator<Real>::MatrixFreeOperator(const Exec& exec, std::shared_ptr<const sparse::DeviceElements> elements)
    : exec_(exec), n_dofs_(elements->n_dofs()), elements_(std::move(elements)) {
  TREMOR_CHECK(elements_->exec.space() == exec.space(), "matrix-free operator: the elements are in ",
               elements_->exec.describe(), "'s memory; ", exec.describe(), " was given");
  TREMOR_CHECK(elements_->n_colours > 0 || elements_->n_elements() == 0,
               "matrix-free operator: the elements were built without a colouring");
}

template <class Real>
void MatrixFreeOperator<Real>::apply(const Real* u, Real* ku) const {
  forall(exec_, n_dofs_, [=] TREMOR_LAMBDA(Index i) { ku[i] = Real(0); });
  const sparse::DeviceElements& elements = *elements_;
  for (int c = 0; c < elements.n_colours; ++c)
    for (const sparse::DeviceElementBlock& block : elements.blocks) {
      const Index n = block.n_in(c);
      if (n == 0) continue;
      fem::with_element(block.type, block.order, [&](auto element) {
        using E = decltype(element);
        apply_colour<E, Real>(exec_, n, block.in(c), block.connectivity.data(), block.section.data(),
                              block.stiffness_factor.data(), elements.coordinates.data(), elements.D.data(),
                              elements.thickness.data(), u, ku);
      });
    }
}

template <class Real>
std::size_t MatrixFreeOperator<Real>::bytes() const {
  // What an apply reads: not the densities, which DeviceElements also holds for the mass kernels.
  std::size_t total =
      static_cast<std::size_t>(elements_->coordinates.size() + elements_->D.size() + elements_->thickness.size()) *
      sizeof(double);
  for (const sparse::DeviceElementBlock& block : elements_->blocks)
    total += static_cast<std::size_t>(block.connectivity.size()) * sizeof(Index) +
             static_cast<std::size_t>(block.section.size()) * (sizeof(int) + sizeof(Index) + sizeof(double));
  return total;
}

// ---------------------------------------------------------------------------- ell, sell, jds, block_ell

namespace {

template <class Real>
auto make_format(const Exec& exec, const sparse::CsrMatrix& K, std::string_view kind, int dim)
    -> std::variant<sparse::EllMatrix<Real>, sparse::SellMatrix<Real>, sparse::JdsMatrix<Real>,
                    sparse::BlockEllMatrix<Real>> {
  if (kind == "ell") return sparse::to_ell<Real>(exec, K);
  if (kind == "sell") return sparse::to_sell<Real>(exec, K);
  if (kind == "jds") return sparse::to_jds<Real>(exec, K);
  if (kind == "block_ell") return sparse::to_block_ell<Real>(exec, K, dim);
  throw Error(str("'", kind, "' is not a sparse format operator"));
}

template <class Real>
auto make_format(const Exec& exec, const sparse::DeviceBlockCsr<double>& K, std::string_view kind)
    -> std::variant<sparse::EllMatrix<Real>, sparse::SellMatrix<Real>, sparse::JdsMatrix<Real>,
                    sparse::BlockEllMatrix<Real>> {
  if (kind == "ell") return sparse::to_ell<Real>(exec, K);
  if (kind == "sell") return sparse::to_sell<Real>(exec, K);
  if (kind == "jds") return sparse::to_jds<Real>(exec, K);
  if (kind == "block_ell") return sparse::to_block_ell<Real>(exec, K);
  throw Error(str("'", kind, "' is not a sparse format operator"));
}

}  // namespace

template <class Real>
FormatOperator<Real>::FormatOperator(const Exec& exec, const sparse::CsrMatrix& K, std::string_view kind, int dim)
    : exec_(exec), kind_(kind), n_rows_(K.n_rows), matrix_(make_format<Real>(exec, K, kind, dim)) {}

template <class Real>
FormatOperator<Real>::FormatOperator(const Exec& exec, const sparse::DeviceBlockCsr<double>& K, std::string_view kind)
    : exec_(exec), kind_(kind), n_rows_(K.n_rows()), matrix_(make_format<Real>(exec, K, kind)) {}

template <class Real>
void FormatOperator<Real>::apply(const Real* u, Real* ku) const {
  std::visit([&](const auto& matrix) { sparse::spmv(exec_, matrix, u, ku); }, matrix_);
}

template <class Real>
std::size_t FormatOperator<Real>::bytes() const {
  // Every stored column index is read (padding is recognised by its index), but a padding
  // entry's value is not: the kernels skip it.
  return std::visit(
      [](const auto& matrix) {
        const sparse::FormatStats stats = matrix.stats();
        return matrix.bytes() - static_cast<std::size_t>(stats.padding()) * sizeof(Real);
      },
      matrix_);
}

template <class Real>
std::string FormatOperator<Real>::details() const {
  return std::visit([](const auto& matrix) { return sparse::describe(matrix.stats()); }, matrix_);
}

// ------------------------------------------------------------------------------------------ make

std::vector<std::string> stiffness_operator_kinds() {
  const auto kinds = explicit_operator_kinds();
  return {kinds.begin(), kinds.end()};
}

std::vector<std::string> stiffness_operator_kinds(Backend backend) {
  std::vector<std::string> out;
  for (const std::string& kind : stiffness_operator_kinds())
    if (backend == Backend::Cuda || kind != "cusparse") out.push_back(kind);
  return out;
}

std::string default_operator_kind(Backend backend) { return backend == Backend::Cuda ? "block_ell" : "block_csr"; }

template <class Real>
std::unique_ptr<StiffnessOperator<Real>> make_stiffness_operator(const Model& model, std::string_view kind,
                                                                 const Exec& exec) {
  const auto kinds = stiffness_operator_kinds();
  if (std::find(kinds.begin(), kinds.end(), kind) != kinds.end())
    return make_stiffness_operator<Real>(model, kind, exec, sparse::section_table(model),
                                         sparse::colour_elements(model.mesh));
  return make_stiffness_operator<Real>(model, kind, exec, {}, {});  // the error listing the kinds
}

bool is_assembled_kind(std::string_view kind) { return kind != "matrix_free"; }

template <class Real>
std::unique_ptr<StiffnessOperator<Real>> make_stiffness_operator(const Model& model, std::string_view kind,
                                                                 std::shared_ptr<const sparse::DeviceElements> elements,
                                                                 sparse::RaceStrategy strategy, OperatorSetup* setup) {
  const Exec& exec = elements->exec;
  const auto kinds = stiffness_operator_kinds();
  if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end())
    throw Error(str("unknown stiffness operator '", kind, "': expected one of ", explicit_operator_list()));
  if (kind == "matrix_free") return std::make_unique<MatrixFreeOperator<Real>>(exec, std::move(elements));
  if (kind == "partitioned") {
    // The partitioners work on the host node graph; the layout is filled from a host K.
    const sparse::SectionTable table = sparse::section_table(model);
    const sparse::ElementColouring colouring = sparse::colour_elements(model.mesh);
    return std::make_unique<PartitionedOperator<Real>>(
        exec, sparse::assemble_stiffness(model, table, colouring, host_exec(exec)), model.mesh);
  }
  TREMOR_CHECK(kind != "cusparse" || exec.backend() == Backend::Cuda, "the cusparse stiffness operator runs on the "
               "GPU; ", exec.describe(), " was given (use backend cuda, or another operator)");
  const auto lap = [&exec](Clock::time_point& since) {
    exec.synchronize();
    const auto now = Clock::now();
    const double seconds = seconds_between(since, now);
    since = now;
    return seconds;
  };
  auto since = Clock::now();
  sparse::DeviceBlockCsr<double> K =
      sparse::assemble_block_csr<double>(exec, *elements, sparse::GlobalMatrix::Stiffness, strategy);
  const double assembly = lap(since);
  std::unique_ptr<StiffnessOperator<Real>> out;
  const std::size_t assembly_bytes = K.bytes();
  if (kind == "block_csr") {
    if constexpr (std::is_same_v<Real, double>)
      out = std::make_unique<BlockCsrOperator<Real>>(exec, std::move(K));
    else
      out = std::make_unique<BlockCsrOperator<Real>>(exec, K);
  } else if (kind == "assembled") {
    out = std::make_unique<AssembledOperator<Real>>(exec, K);
  } else if (kind == "cusparse") {
    out = std::make_unique<CusparseOperator<Real>>(exec, sparse::to_csr<Real>(exec, K));
  } else {
    out = std::make_unique<FormatOperator<Real>>(exec, K, kind);
  }
  K = sparse::DeviceBlockCsr<double>();
  if (setup) {
    setup->assembly_seconds = assembly;
    setup->format_seconds = lap(since);
    setup->assembly_bytes = assembly_bytes;
  }
  return out;
}

template <class Real>
std::unique_ptr<StiffnessOperator<Real>> make_stiffness_operator(const Model& model, std::string_view kind,
                                                                 const Exec& exec, const sparse::SectionTable& table,
                                                                 const sparse::ElementColouring& colouring) {
  const auto kinds = stiffness_operator_kinds();
  if (std::find(kinds.begin(), kinds.end(), kind) != kinds.end() && is_assembled_kind(kind))
    return make_stiffness_operator<Real>(model, kind, exec, table, colouring,
                                         sparse::assemble_stiffness(model, table, colouring, host_exec(exec)));
  return make_stiffness_operator<Real>(model, kind, exec, table, colouring, sparse::CsrMatrix{});
}

template <class Real>
std::unique_ptr<StiffnessOperator<Real>> make_stiffness_operator(const Model& model, std::string_view kind,
                                                                 const Exec& exec, const sparse::SectionTable& table,
                                                                 const sparse::ElementColouring& colouring,
                                                                 const sparse::CsrMatrix& K) {
  if (kind == "assembled") return std::make_unique<AssembledOperator<Real>>(exec, K);
  if (kind == "block_csr") return std::make_unique<BlockCsrOperator<Real>>(exec, K, model.mesh.dim());
  if (kind == "cusparse") return std::make_unique<CusparseOperator<Real>>(exec, K);
  if (kind == "partitioned") return std::make_unique<PartitionedOperator<Real>>(exec, K, model.mesh);
  if (kind == "ell" || kind == "sell" || kind == "jds" || kind == "block_ell")
    return std::make_unique<FormatOperator<Real>>(exec, K, kind, model.mesh.dim());
  if (kind == "matrix_free") return std::make_unique<MatrixFreeOperator<Real>>(exec, model, table, colouring);
  throw Error(str("unknown stiffness operator '", kind, "': expected one of ", explicit_operator_list()));
}

template class StiffnessOperator<float>;
template class StiffnessOperator<double>;
template class AssembledOperator<float>;
template class AssembledOperator<double>;
template class BlockCsrOperator<float>;
template class BlockCsrOperator<double>;
template class MatrixFreeOperator<float>;
template class MatrixFreeOperator<double>;
template class FormatOperator<float>;
template class FormatOperator<double>;
template std::unique_ptr<StiffnessOperator<float>> make_stiffness_operator<float>(
    const Model&, std::string_view, std::shared_ptr<const sparse::DeviceElements>, sparse::RaceStrategy,
    OperatorSetup*);
template std::unique_ptr<StiffnessOperator<double>> make_stiffness_operator<double>(
    const Model&, std::string_view, std::shared_ptr<const sparse::DeviceElements>, sparse::RaceStrategy,
    OperatorSetup*);
template std::unique_ptr<StiffnessOperator<float>> make_stiffness_operator<float>(const Model&, std::string_view,
                                                                                   const Exec&);
template std::unique_ptr<StiffnessOperator<double>> make_stiffness_operator<double>(const Model&, std::string_view,
                                                                                     const Exec&);
template std::unique_ptr<StiffnessOperator<float>> make_stiffness_operator<float>(
    const Model&, std::string_view, const Exec&, const sparse::SectionTable&, const sparse::ElementColouring&);
template std::unique_ptr<StiffnessOperator<double>> make_stiffness_operator<double>(
    const Model&, std::string_view, const Exec&, const sparse::SectionTable&, const sparse::ElementColouring&);
template std::unique_ptr<StiffnessOperator<float>> make_stiffness_operator<float>(
    const Model&, std::string_view, const Exec&, const sparse::SectionTable&, const sparse::ElementColouring&,
    const sparse::CsrMatrix&);
template std::unique_ptr<StiffnessOperator<double>> make_stiffness_operator<double>(
    const Model&, std::string_view, const Exec&, const sparse::SectionTable&, const sparse::ElementColouring&,
    const sparse::CsrMatrix&);

}  // namespace tremor::explicit_fe
