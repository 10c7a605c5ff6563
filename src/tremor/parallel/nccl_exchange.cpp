#include "tremor/parallel/nccl_exchange.hpp"

#include <cstring>
#include <type_traits>
#include <utility>

#include "tremor/backend/forall.hpp"
#include "tremor/core/error.hpp"
#include "tremor/parallel/node_width.hpp"

#if defined(TREMOR_HAVE_NCCL)
#include <cuda_runtime.h>
#include <nccl.h>

#include "tremor/backend/cuda_check.hpp"
#endif

namespace tremor::parallel {

namespace {

#if defined(TREMOR_HAVE_NCCL)
void check_nccl(ncclResult_t status, const char* what) {
  if (status != ncclSuccess) throw Error(str("NCCL ", what, " failed: ", ncclGetErrorString(status)));
}

template <class T>
ncclDataType_t nccl_type() {
  return std::is_same_v<T, float> ? ncclFloat : ncclDouble;
}
#endif

// send[r dim + c] = tail[rows[r] dim + c].
template <class T>
void pack(const Exec& exec, Index n_rows, Index dim, const Index* rows, const T* tail, T* send) {
  forall(exec, n_rows * dim, [=] TREMOR_LAMBDA(Index k) { send[k] = tail[rows[k / dim] * dim + k % dim]; });
}

// tail[j dim + c] = the sum of node j's copies in subdomain order: receive rows (source >= 0) and
// its own value (source < 0). Each thread reads only its own entry of tail before writing it.
template <class T>
void sum_copies(const Exec& exec, Index n_shared, Index dim, const Index* offsets, const Index* sources,
                const T* receive, T* tail) {
  forall(exec, n_shared * dim, [=] TREMOR_LAMBDA(Index k) {
    const Index j = k / dim, c = k % dim;
    T total = T(0);
    for (Index e = offsets[j]; e < offsets[j + 1]; ++e) {
      const Index source = sources[e];
      total += source >= 0 ? receive[source * dim + c] : tail[k];
    }
    tail[k] = total;
  });
}

// all[slots[j] dim + c] = tail[j dim + c] (the array zeroed first).
template <class T>
void scatter_slots(const Exec& exec, Index n_shared, Index dim, const Index* slots, const T* tail, T* all) {
  forall(exec, n_shared * dim, [=] TREMOR_LAMBDA(Index k) { all[slots[k / dim] * dim + k % dim] = tail[k]; });
}

// tail[j dim + c] = all[slots[j] dim + c].
template <class T>
void gather_slots(const Exec& exec, Index n_shared, Index dim, const Index* slots, const T* all, T* tail) {
  forall(exec, n_shared * dim, [=] TREMOR_LAMBDA(Index k) { tail[k] = all[slots[k / dim] * dim + k % dim]; });
}

}  // namespace

bool nccl_compiled() {
#if defined(TREMOR_HAVE_NCCL)
  return true;
#else
  return false;
#endif
}

template <class Real>
struct NcclExchange<Real>::Handle {
#if defined(TREMOR_HAVE_NCCL)
  ncclComm_t comm = nullptr;
  cudaEvent_t ready = nullptr, done = nullptr;  // on the Exec's stream, then on the side stream
#endif
};

template <class Real>
NcclExchange<Real>::NcclExchange(const Exec& exec, const partition::Decomposition& decomposition, int dim,
                                 const Communicator& communicator, Strategy strategy)
    : handle_(std::make_unique<Handle>()), exec_(exec), side_(exec), dim_(dim), strategy_(strategy) {
  TREMOR_CHECK(nccl_compiled(), "the NCCL exchange needs a build with CUDA and NCCL");
  TREMOR_CHECK(exec.backend() == Backend::Cuda, "the NCCL exchange runs on a GPU; the backend is ",
               to_string(exec.backend()));
  side_ = exec.side_stream();
  const Neighbourhood around(decomposition, communicator);
  n_local_ = around.n_local;
  n_owned_ = around.n_owned;
  neighbours_ = around.neighbours;
  std::vector<Index> rows;
  block_.push_back(0);
  for (const std::vector<Index>& nodes : around.send_nodes) {
    rows.insert(rows.end(), nodes.begin(), nodes.end());
    block_.push_back(static_cast<Index>(rows.size()));
  }
  std::vector<Index> sources;
  for (const auto& [n, at] : around.copies)
    sources.push_back(n < 0 ? -1 - at : block_[static_cast<std::size_t>(n)] + at);
  send_rows_ = DeviceArray<Index>(exec, std::span<const Index>(rows));
  offsets_ = DeviceArray<Index>(exec, std::span<const Index>(around.offsets));
  sources_ = DeviceArray<Index>(exec, std::span<const Index>(sources));
  if (strategy == Strategy::AllReduce) {
    const SharedSlots shared(decomposition, communicator.rank());
    n_slots_ = shared.n_slots;
    slots_ = DeviceArray<Index>(exec, std::span<const Index>(shared.slots));
    send_ = DeviceArray<Real>(exec, n_slots_ * dim);
    send_mass_ = DeviceArray<double>(exec, n_slots_ * dim);
  } else {
    const Index n_values = static_cast<Index>(rows.size()) * dim;
    send_ = DeviceArray<Real>(exec, n_values);
    receive_ = DeviceArray<Real>(exec, n_values);
    send_mass_ = DeviceArray<double>(exec, n_values);
    receive_mass_ = DeviceArray<double>(exec, n_values);
  }
#if defined(TREMOR_HAVE_NCCL)
  TREMOR_CUDA_CHECK(cudaSetDevice(exec.device()));
  TREMOR_CUDA_CHECK(cudaEventCreateWithFlags(&handle_->ready, cudaEventDisableTiming));
  TREMOR_CUDA_CHECK(cudaEventCreateWithFlags(&handle_->done, cudaEventDisableTiming));
  // The first process's unique id to every process (with whether it could make one, so that a
  // failure there stops every process here rather than in the next collective), then every
  // process joins.
  ncclUniqueId id;
  std::vector<char> bytes(1 + sizeof(id), 0);
  if (communicator.root() && ncclGetUniqueId(&id) == ncclSuccess) {
    bytes[0] = 1;
    std::memcpy(bytes.data() + 1, &id, sizeof(id));
  }
  communicator.broadcast(bytes);
  TREMOR_CHECK(bytes.at(0) == 1, "NCCL could not make the communicator's id on the first process");
  std::memcpy(&id, bytes.data() + 1, sizeof(id));
  check_nccl(ncclCommInitRank(&handle_->comm, communicator.size(), id, communicator.rank()), "communicator set-up");
#endif
}

template <class Real>
NcclExchange<Real>::~NcclExchange() {
#if defined(TREMOR_HAVE_NCCL)
  if (!handle_) return;
  if (handle_->comm) ncclCommDestroy(handle_->comm);
  if (handle_->ready) (void)cudaEventDestroy(handle_->ready);
  if (handle_->done) (void)cudaEventDestroy(handle_->done);
#endif
}

template <class Real>
template <class T>
void NcclExchange<Real>::start(View<T> v, DeviceArray<T>& send, DeviceArray<T>& receive) {
  // dim values a node, or dim x k: the forces of k shots stepped together (exchange.hpp).
  const Index width = node_width(v.size, n_local_, dim_, "a subdomain's vector");
  // Buffers for the widest exchange so far (made before the time loop's first one).
  const Index rows = strategy_ == Strategy::AllReduce ? n_slots_ : block_.back();
  if (send.size() < rows * width) send = DeviceArray<T>(exec_, rows * width);
  if (strategy_ != Strategy::AllReduce && receive.size() < rows * width) receive = DeviceArray<T>(exec_, rows * width);
  T* tail = v.data + static_cast<std::size_t>(n_owned_) * static_cast<std::size_t>(width);
  const Index n_shared = n_local_ - n_owned_;
  // The side stream starts when the work queued so far on the Exec's (the forces) is done, and
  // the work queued on it since begin_forces() (the shared nodes' forces).
  side_waits();
#if defined(TREMOR_HAVE_NCCL)
  const auto stream = static_cast<cudaStream_t>(side_.stream());
  if (strategy_ == Strategy::AllReduce) {
    const std::size_t count = static_cast<std::size_t>(n_slots_) * static_cast<std::size_t>(width);
    TREMOR_CUDA_CHECK(cudaMemsetAsync(send.data(), 0, count * sizeof(T), stream));
    scatter_slots(side_, n_shared, width, std::as_const(slots_).data(), static_cast<const T*>(tail), send.data());
    check_nccl(ncclAllReduce(send.data(), send.data(), count, nccl_type<T>(), ncclSum, handle_->comm, stream),
               "all-reduce");
    gather_slots(side_, n_shared, width, std::as_const(slots_).data(), std::as_const(send).data(), tail);
  } else {
    pack(side_, block_.back(), width, std::as_const(send_rows_).data(), static_cast<const T*>(tail), send.data());
    check_nccl(ncclGroupStart(), "group start");
    for (std::size_t n = 0; n < neighbours_.size(); ++n) {
      const std::size_t first = static_cast<std::size_t>(block_[n]) * static_cast<std::size_t>(width);
      const std::size_t count = static_cast<std::size_t>(block_[n + 1] - block_[n]) * static_cast<std::size_t>(width);
      check_nccl(ncclSend(send.data() + first, count, nccl_type<T>(), neighbours_[n], handle_->comm, stream), "send");
      check_nccl(ncclRecv(receive.data() + first, count, nccl_type<T>(), neighbours_[n], handle_->comm, stream),
                 "receive");
    }
    check_nccl(ncclGroupEnd(), "group end");
    sum_copies(side_, n_shared, width, std::as_const(offsets_).data(), std::as_const(sources_).data(),
               std::as_const(receive).data(), tail);
  }
  TREMOR_CUDA_CHECK(cudaEventRecord(handle_->done, stream));
#else
  (void)tail;
  (void)n_shared;
  (void)send;
  (void)receive;
#endif
}

template <class Real>
void NcclExchange<Real>::side_waits() {
#if defined(TREMOR_HAVE_NCCL)
  TREMOR_CUDA_CHECK(cudaSetDevice(exec_.device()));
  TREMOR_CUDA_CHECK(cudaEventRecord(handle_->ready, static_cast<cudaStream_t>(exec_.stream())));
  TREMOR_CUDA_CHECK(cudaStreamWaitEvent(static_cast<cudaStream_t>(side_.stream()), handle_->ready, 0));
#endif
}

template <class Real>
void NcclExchange<Real>::begin_forces() {
  side_waits();
}

template <class Real>
void NcclExchange<Real>::finish() {
#if defined(TREMOR_HAVE_NCCL)
  // The Exec's later work (the update) waits for the sums.
  TREMOR_CUDA_CHECK(cudaStreamWaitEvent(static_cast<cudaStream_t>(exec_.stream()), handle_->done, 0));
#endif
}

template <class Real>
void NcclExchange<Real>::start_forces(std::span<const View<Real>> forces) {
  start(this_process<Real>(forces), send_, receive_);
}

template <class Real>
void NcclExchange<Real>::finish_forces(std::span<const View<Real>>) {
  finish();
}

template <class Real>
void NcclExchange<Real>::sum_mass(std::span<const View<double>> mass) {
  start(this_process<double>(mass), send_mass_, receive_mass_);
  finish();
}

template class NcclExchange<float>;
template class NcclExchange<double>;

}  // namespace tremor::parallel
