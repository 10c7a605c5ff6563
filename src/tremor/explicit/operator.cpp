#include "tremor/explicit/operator.hpp"

#include "tremor/backend/forall.hpp"
#include "tremor/core/error.hpp"
#include "tremor/fem/dispatch.hpp"
#include "tremor/fem/element_matrices.hpp"
#include "tremor/sparse/assemble.hpp"

namespace tremor::explicit_fe {

namespace {

void check_host(const Exec& exec, std::string_view kind) {
  TREMOR_CHECK(exec.space() == MemorySpace::Host, "the ", kind, " stiffness operator runs on the host backends; ",
               exec.describe(), " was given");
}

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
    : exec_(exec), matrix_(sparse::convert<Real>(K)) {
  check_host(exec, "assembled");
}

template <class Real>
AssembledOperator<Real>::AssembledOperator(const Exec& exec, const Model& model)
    : AssembledOperator(exec, sparse::assemble_stiffness(model, exec)) {}

template <class Real>
void AssembledOperator<Real>::apply(const Real* u, Real* ku) const {
  sparse::spmv(exec_, matrix_, u, ku);
}

// ------------------------------------------------------------------------------------- block_csr

template <class Real>
BlockCsrOperator<Real>::BlockCsrOperator(const Exec& exec, const sparse::CsrMatrix& K, int dim)
    : exec_(exec), matrix_(sparse::to_block_csr<Real>(K, dim)) {
  check_host(exec, "block_csr");
}

template <class Real>
BlockCsrOperator<Real>::BlockCsrOperator(const Exec& exec, const Model& model)
    : BlockCsrOperator(exec, sparse::assemble_stiffness(model, exec), model.mesh.dim()) {}

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
    : exec_(exec) {
  check_host(exec, "matrix_free");
  const Mesh& mesh = model.mesh;
  dim_ = mesh.dim();
  n_dofs_ = mesh.n_nodes() * dim_;
  coordinates_ = mesh.coordinates;
  colouring_ = colouring;
  Index global = 0;
  for (const ElementBlock& source : mesh.blocks) {
    Block block;
    block.type = source.type;
    block.order = source.order;
    block.connectivity = source.connectivity;
    block.section.resize(static_cast<std::size_t>(source.n_elements()));
    block.stiffness_factor.resize(static_cast<std::size_t>(source.n_elements()));
    for (Index e = 0; e < source.n_elements(); ++e) {
      const auto g = static_cast<std::size_t>(global + e);
      block.section[static_cast<std::size_t>(e)] = table.element_section[g];
      block.stiffness_factor[static_cast<std::size_t>(e)] = table.stiffness_factor(g);
    }
    global += source.n_elements();
    blocks_.push_back(std::move(block));
  }
  for (std::size_t s = 0; s < table.D.size(); ++s) {
    D_.insert(D_.end(), table.D[s].begin(), table.D[s].end());
    thickness_.push_back(table.thickness[s]);
  }
}

template <class Real>
void MatrixFreeOperator<Real>::apply(const Real* u, Real* ku) const {
  forall(exec_, n_dofs_, [=] TREMOR_LAMBDA(Index i) { ku[i] = Real(0); });
  for (int c = 0; c < colouring_.n_colours; ++c)
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
      const Block& block = blocks_[b];
      const Index n = colouring_.n_in(static_cast<int>(b), c);
      if (n == 0) continue;
      fem::with_element(block.type, block.order, [&](auto element) {
        using E = decltype(element);
        apply_colour<E, Real>(exec_, n, colouring_.in(static_cast<int>(b), c), block.connectivity.data(),
                              block.section.data(), block.stiffness_factor.data(), coordinates_.data(), D_.data(), thickness_.data(), u, ku);
      });
    }
}

template <class Real>
std::size_t MatrixFreeOperator<Real>::bytes() const {
  std::size_t total = coordinates_.size() * sizeof(double) + (D_.size() + thickness_.size()) * sizeof(double);
  for (const Block& block : blocks_)
    total += block.connectivity.size() * sizeof(Index) +
             block.section.size() * (sizeof(int) + sizeof(Index) + sizeof(double));
  return total;
}

// ------------------------------------------------------------------------------------------ make

std::vector<std::string> stiffness_operator_kinds() { return {"assembled", "block_csr", "matrix_free"}; }

template <class Real>
std::unique_ptr<StiffnessOperator<Real>> make_stiffness_operator(const Model& model, std::string_view kind,
                                                                 const Exec& exec) {
  if (kind == "assembled" || kind == "block_csr" || kind == "matrix_free")
    return make_stiffness_operator<Real>(model, kind, exec, sparse::section_table(model),
                                         sparse::colour_elements(model.mesh));
  return make_stiffness_operator<Real>(model, kind, exec, {}, {});  // the error listing the kinds
}

template <class Real>
std::unique_ptr<StiffnessOperator<Real>> make_stiffness_operator(const Model& model, std::string_view kind,
                                                                 const Exec& exec, const sparse::SectionTable& table,
                                                                 const sparse::ElementColouring& colouring) {
  if (kind == "assembled")
    return std::make_unique<AssembledOperator<Real>>(exec, sparse::assemble_stiffness(model, table, colouring, exec));
  if (kind == "block_csr")
    return std::make_unique<BlockCsrOperator<Real>>(exec, sparse::assemble_stiffness(model, table, colouring, exec),
                                                    model.mesh.dim());
  if (kind == "matrix_free") return std::make_unique<MatrixFreeOperator<Real>>(exec, model, table, colouring);
  throw Error(str("unknown stiffness operator '", kind,
                  "': expected 'assembled' (CSR), 'block_csr' (nodal-block CSR) or 'matrix_free' (element by "
                  "element)"));
}

template class StiffnessOperator<float>;
template class StiffnessOperator<double>;
template class AssembledOperator<float>;
template class AssembledOperator<double>;
template class BlockCsrOperator<float>;
template class BlockCsrOperator<double>;
template class MatrixFreeOperator<float>;
template class MatrixFreeOperator<double>;
template std::unique_ptr<StiffnessOperator<float>> make_stiffness_operator<float>(const Model&, std::string_view,
                                                                                   const Exec&);
template std::unique_ptr<StiffnessOperator<double>> make_stiffness_operator<double>(const Model&, std::string_view,
                                                                                     const Exec&);
template std::unique_ptr<StiffnessOperator<float>> make_stiffness_operator<float>(
    const Model&, std::string_view, const Exec&, const sparse::SectionTable&, const sparse::ElementColouring&);
template std::unique_ptr<StiffnessOperator<double>> make_stiffness_operator<double>(
    const Model&, std::string_view, const Exec&, const sparse::SectionTable&, const sparse::ElementColouring&);

}  // namespace tremor::explicit_fe
