#include "tremor/sparse/operators.hpp"

#include <memory>
#include <type_traits>
#include <utility>

#include "tremor/core/clock.hpp"
#include "tremor/core/error.hpp"
#include "tremor/operator/split.hpp"
#include "tremor/sparse/assemble.hpp"
#include "tremor/sparse/two_kernel.hpp"

namespace tremor::sparse {

// ------------------------------------------------------------------------------------- assembled

template <class Real>
CsrOperator<Real>::CsrOperator(const Exec& exec, const CsrMatrix& K)
    : exec_(exec), matrix_(exec, convert<Real>(K)) {}

template <class Real>
CsrOperator<Real>::CsrOperator(const Exec& exec, const Model& model)
    : CsrOperator(exec, assemble_stiffness(model, host_exec(exec))) {}

template <class Real>
CsrOperator<Real>::CsrOperator(const Exec& exec, const DeviceBlockCsr<double>& K)
    : exec_(exec), matrix_(to_csr<Real>(exec, K)) {}

template <class Real>
CsrOperator<Real>::CsrOperator(const Exec& exec, DeviceCsr<Real>&& K) : exec_(exec), matrix_(std::move(K)) {}

template <class Real>
void CsrOperator<Real>::apply_unchecked(const Real* u, Real* ku) const {
  spmv(exec_, matrix_.view(), u, ku);
}

template <class Real>
void CsrOperator<Real>::apply_batch_unchecked(const Real* u, Real* ku, int columns) const {
  spmv_columns(exec_, matrix_.view(), u, ku, columns);
}

// ------------------------------------------------------------------------------------- block_csr

template <class Real>
BlockCsrOperator<Real>::BlockCsrOperator(const Exec& exec, const CsrMatrix& K, int dim)
    : exec_(exec), matrix_(exec, to_block_csr<Real>(K, dim)) {}

template <class Real>
BlockCsrOperator<Real>::BlockCsrOperator(const Exec& exec, const Model& model)
    : BlockCsrOperator(exec, assemble_stiffness(model, host_exec(exec)), model.mesh.dim()) {}

template <class Real>
BlockCsrOperator<Real>::BlockCsrOperator(const Exec& exec, DeviceBlockCsr<Real>&& K)
    : exec_(exec), matrix_(std::move(K)) {}

template <class Real>
BlockCsrOperator<Real>::BlockCsrOperator(const Exec& exec, const DeviceBlockCsr<double>& K)
    : exec_(exec), matrix_(rounded<Real>(exec, K)) {}

template <class Real>
void BlockCsrOperator<Real>::apply_unchecked(const Real* u, Real* ku) const {
  spmv(exec_, matrix_, u, ku);
}

template <class Real>
void BlockCsrOperator<Real>::apply_batch_unchecked(const Real* u, Real* ku, int columns) const {
  spmv_columns(exec_, matrix_, u, ku, columns);
}

// ---------------------------------------------------------------------------- ell, sell, jds, block_ell

namespace {

template <class Real>
auto make_format(const Exec& exec, const CsrMatrix& K, FormatKind kind, int dim)
    -> std::variant<EllMatrix<Real>, SellMatrix<Real>, JdsMatrix<Real>,
                    BlockEllMatrix<Real>> {
  switch (kind) {
    case FormatKind::Ell: return to_ell<Real>(exec, K);
    case FormatKind::Sell: return to_sell<Real>(exec, K);
    case FormatKind::Jds: return to_jds<Real>(exec, K);
    case FormatKind::BlockEll: return to_block_ell<Real>(exec, K, dim);
  }
  throw Error("not a sparse format operator");
}

template <class Real>
auto make_format(const Exec& exec, const DeviceBlockCsr<double>& K, FormatKind kind, NodeRange nodes)
    -> std::variant<EllMatrix<Real>, SellMatrix<Real>, JdsMatrix<Real>,
                    BlockEllMatrix<Real>> {
  switch (kind) {
    case FormatKind::Ell: return to_ell<Real>(exec, K, nodes);
    case FormatKind::Sell: return to_sell<Real>(exec, K, 32, 256, nodes);
    case FormatKind::Jds: return to_jds<Real>(exec, K, nodes);
    case FormatKind::BlockEll: return to_block_ell<Real>(exec, K, nodes);
  }
  throw Error("not a sparse format operator");
}

}  // namespace

template <class Real>
FormatOperator<Real>::FormatOperator(const Exec& exec, const CsrMatrix& K, FormatKind kind, int dim)
    : exec_(exec), kind_(kind), n_rows_(K.n_rows), matrix_(make_format<Real>(exec, K, kind, dim)) {}

template <class Real>
FormatOperator<Real>::FormatOperator(const Exec& exec, const DeviceBlockCsr<double>& K, FormatKind kind,
                                     NodeRange nodes)
    : exec_(exec), kind_(kind),
      n_rows_(((nodes.last < 0 ? K.n_block_rows : nodes.last) - nodes.first) * K.block),
      matrix_(make_format<Real>(exec, K, kind, nodes)) {}

template <class Real>
void FormatOperator<Real>::apply_unchecked(const Real* u, Real* ku) const {
  std::visit([&](const auto& matrix) { spmv(exec_, matrix, u, ku); }, matrix_);
}

template <class Real>
void FormatOperator<Real>::apply_batch_unchecked(const Real* u, Real* ku, int columns) const {
  if (const auto* block_ell = std::get_if<BlockEllMatrix<Real>>(&matrix_))
    spmv(exec_, *block_ell, u, ku, columns);
  else
    op::Operator<Real>::apply_batch_unchecked(u, ku, columns);
}

template <class Real>
std::size_t FormatOperator<Real>::bytes() const {
  // Every stored column index is read (padding is recognised by its index), but a padding
  // entry's value is not: the kernels skip it.
  return std::visit(
      [](const auto& matrix) {
        const FormatStats stats = matrix.stats();
        return matrix.bytes() - static_cast<std::size_t>(stats.padding()) * sizeof(Real);
      },
      matrix_);
}

template <class Real>
std::string FormatOperator<Real>::details() const {
  return std::visit([](const auto& matrix) { return describe(matrix.stats()); }, matrix_);
}


// --------------------------------------------------------------------------------- registration

namespace {

// K assembled on the elements' Exec in double by the two-kernel assembly, then `convert`ed to the
// kind's format there, whole (`convert(exec, K, NodeRange{})`) or, with inputs.split_at_node, as
// two RowBlocks (the shared nodes' rows first); the double K is released before returning. What it
// took goes to inputs.setup.
template <class Real, class Convert>
std::unique_ptr<op::Operator<Real>> set_up(const op::OperatorInputs& inputs, Convert convert) {
  const Exec& exec = inputs.elements->exec;
  const RaceStrategy strategy = inputs.deterministic ? RaceStrategy::Colouring : RaceStrategy::Atomics;
  auto since = Clock::now();
  DeviceBlockCsr<double> K = assemble_block_csr<double>(exec, *inputs.elements, GlobalMatrix::Stiffness, strategy);
  exec.synchronize();
  const double assembly = lap(since);
  const std::size_t assembly_bytes = K.bytes();
  const Index at = inputs.split_at_node, n_nodes = K.n_block_rows;
  std::unique_ptr<op::Operator<Real>> out;
  if (at > 0 && at < n_nodes) {
    const Index n = K.n_rows();
    const Exec& first = inputs.first_exec ? *inputs.first_exec : exec;  // K is whole on exec (synchronised above)
    auto shared = std::make_unique<op::RowBlock<Real>>(convert(first, K, NodeRange{at, n_nodes}), at * K.block, n);
    first.synchronize();
    auto owned = std::make_unique<op::RowBlock<Real>>(convert(exec, K, NodeRange{0, at}), 0, n);
    out = std::make_unique<op::SplitOperator<Real>>(std::move(shared), std::move(owned));
  } else {
    out = convert(exec, K, NodeRange{});
  }
  K = DeviceBlockCsr<double>();
  if (inputs.setup) {
    inputs.setup->assembly_seconds = assembly;
    exec.synchronize();
    inputs.setup->format_seconds = lap(since);
    inputs.setup->assembly_bytes = assembly_bytes;
  }
  return out;
}

template <class Real>
std::unique_ptr<op::Operator<Real>> make_csr(const op::OperatorInputs& inputs) {
  return set_up<Real>(inputs, [](const Exec& exec, const DeviceBlockCsr<double>& K, NodeRange nodes) {
    return std::make_unique<CsrOperator<Real>>(exec, to_csr<Real>(exec, K, nodes));
  });
}

template <class Real>
std::unique_ptr<op::Operator<Real>> make_block_csr(const op::OperatorInputs& inputs) {
  op::OperatorInputs whole = inputs;  // the block CSR is K itself: not split
  whole.split_at_node = -1;
  return set_up<Real>(whole, [](const Exec& exec, DeviceBlockCsr<double>& K, NodeRange) {
    if constexpr (std::is_same_v<Real, double>)
      return std::make_unique<BlockCsrOperator<Real>>(exec, std::move(K));  // K itself: no copy
    else
      return std::make_unique<BlockCsrOperator<Real>>(exec, std::as_const(K));
  });
}

template <class Real>
std::unique_ptr<op::Operator<Real>> make_cusparse(const op::OperatorInputs& inputs) {
  op::OperatorInputs whole = inputs;  // cuSPARSE's square CSR: not split
  whole.split_at_node = -1;
  return set_up<Real>(whole, [](const Exec& exec, const DeviceBlockCsr<double>& K, NodeRange) {
    return std::make_unique<CusparseOperator<Real>>(exec, to_csr<Real>(exec, K));
  });
}

template <class Real, FormatKind kind>
std::unique_ptr<op::Operator<Real>> make_format(const op::OperatorInputs& inputs) {
  return set_up<Real>(inputs, [](const Exec& exec, const DeviceBlockCsr<double>& K, NodeRange nodes) {
    return std::make_unique<FormatOperator<Real>>(exec, K, kind, nodes);
  });
}

// The reference set-ups: K on the host, converted and copied to the Exec.
template <class Real>
std::unique_ptr<op::Operator<Real>> csr_from_host(const op::ReferenceInputs& inputs) {
  return std::make_unique<CsrOperator<Real>>(*inputs.exec, *inputs.stiffness);
}
template <class Real>
std::unique_ptr<op::Operator<Real>> block_csr_from_host(const op::ReferenceInputs& inputs) {
  return std::make_unique<BlockCsrOperator<Real>>(*inputs.exec, *inputs.stiffness, inputs.model->mesh.dim());
}
template <class Real>
std::unique_ptr<op::Operator<Real>> cusparse_from_host(const op::ReferenceInputs& inputs) {
  return std::make_unique<CusparseOperator<Real>>(*inputs.exec, *inputs.stiffness);
}
template <class Real, FormatKind kind>
std::unique_ptr<op::Operator<Real>> format_from_host(const op::ReferenceInputs& inputs) {
  return std::make_unique<FormatOperator<Real>>(*inputs.exec, *inputs.stiffness, kind, inputs.model->mesh.dim());
}

// Memory models: each format's arrays (their bytes()), from the pre-flight's counts.
std::size_t nnz_of(const op::OperatorSizes& s) { return static_cast<std::size_t>(s.stiffness_entries); }

std::size_t csr_bytes(const op::OperatorSizes& s) {  // offsets (8 B per row), a column (4 B) and a value per entry
  return (s.n_dofs() + 1) * sizeof(Size) + nnz_of(s) * (sizeof(Index) + s.real_size);
}
std::size_t cusparse_bytes(const op::OperatorSizes& s) {  // CSR with 32-bit offsets; the workspace is small
  return (s.n_dofs() + 1) * sizeof(std::int32_t) + nnz_of(s) * (sizeof(std::int32_t) + s.real_size);
}
std::size_t block_csr_bytes(const op::OperatorSizes& s) {  // offsets per node, a column per block, the values
  return (s.n_nodes() + 1) * sizeof(Size) + nnz_of(s) / (s.dim() * s.dim()) * sizeof(Index) + nnz_of(s) * s.real_size;
}
// ELL pads every row to the longest: the node-degree spread of linear elements pads it by up to
// ~40% (hex8 plates: 27 blocks inside, 12-18 on faces), taken from the widest row.
std::size_t ell_bytes(const op::OperatorSizes& s) {
  const std::size_t stored =
      s.max_neighbours > 0 ? static_cast<std::size_t>(s.max_neighbours) * s.dim() * s.n_dofs() : nnz_of(s);
  return stored * (sizeof(Index) + s.real_size) + s.n_dofs() * sizeof(Index);
}
// SELL (slices sorted by length: little padding) and JDS: a column and a value per entry, a
// permutation entry per row.
std::size_t sell_bytes(const op::OperatorSizes& s) {
  return nnz_of(s) * (sizeof(Index) + s.real_size) + s.n_dofs() * sizeof(Index);
}
std::size_t block_ell_bytes(const op::OperatorSizes& s) {  // block rows padded to the widest node row
  const std::size_t blocks = s.max_neighbours > 0 ? static_cast<std::size_t>(s.max_neighbours) * s.n_nodes()
                                                  : nnz_of(s) / (s.dim() * s.dim());
  return blocks * (sizeof(Index) + s.dim() * s.dim() * s.real_size);
}

// The set-up's peak: K in double while its format is filled (block_csr in double is K itself).
template <std::size_t (*Format)(const op::OperatorSizes&)>
std::size_t with_k(const op::OperatorSizes& s) {
  return s.assembled_k_bytes() + Format(s);
}
std::size_t block_csr_setup(const op::OperatorSizes& s) {
  return s.assembled_k_bytes() + (s.real_size == sizeof(double) ? 0 : block_csr_bytes(s));
}

// An entry with its reference set-up; `rows`: a decomposed run may build its K as the rows of its
// shared nodes and the rest (OperatorInputs::split_at_node).
op::OperatorEntry with(op::OperatorEntry entry, op::ReferenceFactory<float> reference_float,
                       op::ReferenceFactory<double> reference_double, bool rows) {
  entry.reference_float = reference_float;
  entry.reference_double = reference_double;
  entry.splits = rows;
  return entry;
}

// A format of FormatOperator, named by format_kind_names; every one splits by rows.
template <FormatKind kind, std::size_t (*Bytes)(const op::OperatorSizes&)>
op::OperatorEntry format_entry(std::string_view summary) {
  return with({name_of(kind, format_kind_names), summary, true, false, false, op::all_backends, Bytes, with_k<Bytes>,
               make_format<float, kind>, make_format<double, kind>},
              format_from_host<float, kind>, format_from_host<double, kind>, true);
}

}  // namespace

void register_operators(op::Registry& registry) {
  constexpr op::Backends cuda = op::backend_bit(Backend::Cuda);
  op::OperatorEntry assembled =
      with({"assembled", "K in scalar CSR (8-byte row offsets), one row per thread", true, false, false,
            op::all_backends, csr_bytes, with_k<csr_bytes>, make_csr<float>, make_csr<double>},
           csr_from_host<float>, csr_from_host<double>, true);
  assembled.reference = true;  // CSR of the host K: the kind every other is checked against
  assembled.fuses_batch = true;
  registry.add(assembled);
  op::OperatorEntry block_csr =
      with({"block_csr", "K in nodal-block CSR: one column index per dim x dim block", true, false, false,
            op::all_backends, block_csr_bytes, block_csr_setup, make_block_csr<float>, make_block_csr<double>},
           block_csr_from_host<float>, block_csr_from_host<double>, false);
  block_csr.fuses_batch = true;
  registry.add(block_csr);
  registry.add(format_entry<FormatKind::Ell, ell_bytes>("K in ELL: rows padded to the longest, column-major"));
  registry.add(format_entry<FormatKind::Sell, sell_bytes>(
      "K in SELL-C-sigma (C = 32, sigma = 256): ELL by slices of sorted rows"));
  registry.add(format_entry<FormatKind::Jds, sell_bytes>("K in jagged diagonals: rows sorted by length"));
  op::OperatorEntry block_ell = format_entry<FormatKind::BlockEll, block_ell_bytes>(
      "K in nodal-block ELL: dim x dim blocks, one column index per block, coalesced");
  block_ell.fuses_batch = true;
  registry.add(block_ell);
  registry.add(with({"cusparse", "K in CSR applied by cuSPARSE's SpMV: the baseline", true, false, false, cuda,
                     cusparse_bytes, with_k<cusparse_bytes>, make_cusparse<float>, make_cusparse<double>},
                    cusparse_from_host<float>, cusparse_from_host<double>, false));
}

template class CsrOperator<float>;
template class CsrOperator<double>;
template class BlockCsrOperator<float>;
template class BlockCsrOperator<double>;
template class FormatOperator<float>;
template class FormatOperator<double>;

}  // namespace tremor::sparse
