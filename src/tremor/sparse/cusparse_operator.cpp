// CusparseOperator (operators.hpp): cuSPARSE's generic SpMV on the assembled K, the baseline that
// tremor's own formats are measured against. Host code calling the cuSPARSE API; a build without
// CUDA compiles the class with a constructor that says so.
#include <limits>
#include <vector>

#include "tremor/core/error.hpp"
#include "tremor/sparse/csr.hpp"
#include "tremor/sparse/operators.hpp"

#if defined(TREMOR_HAVE_CUDA)
#include <cusparse.h>

#include "tremor/backend/cuda_check.hpp"
#endif

namespace tremor::sparse {

#if defined(TREMOR_HAVE_CUDA)
namespace {

void check(cusparseStatus_t status, const char* call) {
  if (status != CUSPARSE_STATUS_SUCCESS)
    throw Error(str("cuSPARSE: ", call, " failed: ", cusparseGetErrorString(status)));
}

template <class Real>
constexpr cudaDataType value_type() {
  return sizeof(Real) == 4 ? CUDA_R_32F : CUDA_R_64F;
}

}  // namespace

template <class Real>
CusparseOperator<Real>::CusparseOperator(const Exec& exec, const CsrMatrix& K) : exec_(exec), n_rows_(K.n_rows) {
  TREMOR_CHECK(exec.backend() == Backend::Cuda, "the cusparse stiffness operator runs on the GPU; ", exec.describe(),
               " was given (use backend cuda, or another operator)");
  TREMOR_CHECK(K.nnz() <= std::numeric_limits<std::int32_t>::max(), "the cusparse operator uses 32-bit offsets; K has ",
               K.nnz(), " entries");
  std::vector<std::int32_t> offsets(K.offsets.begin(), K.offsets.end());
  std::vector<std::int32_t> columns(K.columns.begin(), K.columns.end());
  std::vector<Real> values(K.values.begin(), K.values.end());
  offsets_ = DeviceArray<std::int32_t>(exec, std::span<const std::int32_t>(offsets));
  columns_ = DeviceArray<std::int32_t>(exec, std::span<const std::int32_t>(columns));
  values_ = DeviceArray<Real>(exec, std::span<const Real>(values));
  try {
    create(exec, K.nnz());
  } catch (...) {
    release();
    throw;
  }
}

template <class Real>
CusparseOperator<Real>::CusparseOperator(const Exec& exec, DeviceCsr<Real>&& K) : exec_(exec), n_rows_(K.n_rows) {
  TREMOR_CHECK(exec.backend() == Backend::Cuda, "the cusparse stiffness operator runs on the GPU; ", exec.describe(),
               " was given (use backend cuda, or another operator)");
  TREMOR_CHECK(K.nnz() <= std::numeric_limits<std::int32_t>::max(), "the cusparse operator uses 32-bit offsets; K has ",
               K.nnz(), " entries");
  // Columns and values are taken over as they are (Index is 32-bit); the offsets narrowed on the
  // host (8 B per row: no matrix entry leaves the device).
  const std::vector<Size> wide = K.offsets.to_host();
  const std::vector<std::int32_t> offsets(wide.begin(), wide.end());
  const Size nnz = K.nnz();
  offsets_ = DeviceArray<std::int32_t>(exec, std::span<const std::int32_t>(offsets));
  columns_ = std::move(K.columns);
  values_ = std::move(K.values);
  try {
    create(exec, nnz);
  } catch (...) {
    release();
    throw;
  }
}

template <class Real>
void CusparseOperator<Real>::create(const Exec& exec, Size nnz) {
  cusparseHandle_t handle = nullptr;
  check(cusparseCreate(&handle), "cusparseCreate");
  handle_ = handle;
  check(cusparseSetStream(handle, static_cast<cudaStream_t>(exec.stream())), "cusparseSetStream");
  cusparseSpMatDescr_t matrix = nullptr;
  check(cusparseCreateCsr(&matrix, n_rows_, n_rows_, nnz, offsets_.data(), columns_.data(), values_.data(),
                          CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, value_type<Real>()),
        "cusparseCreateCsr");
  matrix_ = matrix;
  // The workspace size needs vector descriptors; any device pointers of the right size serve.
  DeviceArray<Real> x(exec, n_rows_), y(exec, n_rows_);
  cusparseDnVecDescr_t vx = nullptr, vy = nullptr;
  check(cusparseCreateDnVec(&vx, n_rows_, x.data(), value_type<Real>()), "cusparseCreateDnVec");
  check(cusparseCreateDnVec(&vy, n_rows_, y.data(), value_type<Real>()), "cusparseCreateDnVec");
  const Real one = 1, zero = 0;
  std::size_t size = 0;
  check(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, matrix, vx, &zero, vy,
                                value_type<Real>(), CUSPARSE_SPMV_ALG_DEFAULT, &size),
        "cusparseSpMV_bufferSize");
  workspace_ = DeviceArray<unsigned char>(exec, static_cast<Index>(size));
  check(cusparseSpMV_preprocess(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, matrix, vx, &zero, vy,
                                value_type<Real>(), CUSPARSE_SPMV_ALG_DEFAULT, workspace_.data()),
        "cusparseSpMV_preprocess");
  cusparseDestroyDnVec(vx);
  cusparseDestroyDnVec(vy);
  exec.synchronize();
}

template <class Real>
void CusparseOperator<Real>::release() noexcept {
  if (matrix_) cusparseDestroySpMat(static_cast<cusparseSpMatDescr_t>(matrix_));
  if (handle_) cusparseDestroy(static_cast<cusparseHandle_t>(handle_));
  matrix_ = handle_ = nullptr;
}

template <class Real>
CusparseOperator<Real>::~CusparseOperator() {
  release();
}

template <class Real>
void CusparseOperator<Real>::apply_unchecked(const Real* u, Real* ku) const {
  auto handle = static_cast<cusparseHandle_t>(handle_);
  // Dense vector descriptors are cheap host structs; made per call since u and ku change.
  cusparseDnVecDescr_t vx = nullptr, vy = nullptr;
  check(cusparseCreateDnVec(&vx, n_rows_, const_cast<Real*>(u), value_type<Real>()), "cusparseCreateDnVec");
  check(cusparseCreateDnVec(&vy, n_rows_, ku, value_type<Real>()), "cusparseCreateDnVec");
  const Real one = 1, zero = 0;
  const cusparseStatus_t status =
      cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, static_cast<cusparseSpMatDescr_t>(matrix_), vx,
                   &zero, vy, value_type<Real>(), CUSPARSE_SPMV_ALG_DEFAULT, const_cast<unsigned char*>(workspace_.data()));
  cusparseDestroyDnVec(vx);
  cusparseDestroyDnVec(vy);
  check(status, "cusparseSpMV");
}

#else

template <class Real>
CusparseOperator<Real>::CusparseOperator(const Exec& exec, const CsrMatrix&) : exec_(exec) {
  throw Error("the cusparse stiffness operator needs a tremor built with CUDA (configure with -DTREMOR_CUDA=ON)");
}

template <class Real>
CusparseOperator<Real>::CusparseOperator(const Exec& exec, DeviceCsr<Real>&&) : exec_(exec) {
  throw Error("the cusparse stiffness operator needs a tremor built with CUDA (configure with -DTREMOR_CUDA=ON)");
}

template <class Real>
CusparseOperator<Real>::~CusparseOperator() = default;

template <class Real>
void CusparseOperator<Real>::apply_unchecked(const Real*, Real*) const {}

template <class Real>
void CusparseOperator<Real>::create(const Exec&, Size) {}

template <class Real>
void CusparseOperator<Real>::release() noexcept {}

#endif

template <class Real>
std::size_t CusparseOperator<Real>::bytes() const {
  return static_cast<std::size_t>(offsets_.size() + columns_.size()) * sizeof(std::int32_t) +
         static_cast<std::size_t>(values_.size()) * sizeof(Real);
}

template class CusparseOperator<float>;
template class CusparseOperator<double>;

}  // namespace tremor::sparse
