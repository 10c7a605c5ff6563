#pragma once
// The exchange of a run over several processes whose subdomains are on GPUs (the multi-GPU
// spectral-element paper, section 3, with NCCL in place of CUDA-aware MPI): the shared nodes'
// values never leave the devices, and the host never waits. The work runs on a side stream of
// the GPU (highest priority), ordered against the Exec's stream by events: start_forces queues it
// behind the work queued so far, finish_forces makes the Exec's later work wait for it, so the
// interior's work queued between them overlaps the transfers.
//   Point to point: one kernel packs the values each neighbour needs, one NCCL group sends and
// receives every neighbour's (NVLink between GPUs of a host), and one kernel sums each shared
// node's copies in subdomain order, as the other exchanges do (the same bits as MpiExchange).
//   All-reduce: one kernel writes the subdomain's shared values into the array over every shared
// node of the model (zero elsewhere), NCCL sums it in place over the processes, one kernel reads
// the sums back.
// The NCCL communicator is bootstrapped over `communicator` (MPI's processes, or a group of
// threads).
#include <memory>
#include <span>
#include <vector>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/exec.hpp"
#include "tremor/parallel/communicator.hpp"
#include "tremor/parallel/exchange.hpp"

namespace tremor::parallel {

// Whether this build has NCCL (CUDA builds where the toolkit's NCCL was found).
bool nccl_compiled();

template <class Real>
class NcclExchange final : public Exchange<Real> {
 public:
  // exec: a CUDA Exec, this process's GPU. Throws tremor::Error without NCCL or with a host Exec.
  NcclExchange(const Exec& exec, const partition::Decomposition& decomposition, int dim,
               const Communicator& communicator, Strategy strategy = Strategy::PointToPoint);
  ~NcclExchange() override;
  NcclExchange(const NcclExchange&) = delete;
  NcclExchange& operator=(const NcclExchange&) = delete;
  void start_forces(std::span<const View<Real>> forces) override;
  void finish_forces(std::span<const View<Real>> forces) override;
  const Exec* interface_exec() const override { return &side_; }
  void begin_forces() override;
  void sum_mass(std::span<const View<double>> mass) override;

 private:
  template <class T>
  void start(View<T> values, DeviceArray<T>& send, DeviceArray<T>& receive);
  void finish();
  void side_waits();  // the side stream follows the Exec's work queued so far

  struct Handle;  // the NCCL communicator and the events (no NCCL or CUDA header here)
  std::unique_ptr<Handle> handle_;
  Exec exec_, side_;
  int dim_ = 3;
  Strategy strategy_ = Strategy::PointToPoint;
  Index n_slots_ = 0;
  DeviceArray<Index> slots_;  // per shared node: its place in the all-reduce's array
  Index n_local_ = 0, n_owned_ = 0;
  std::vector<int> neighbours_;
  std::vector<Index> block_;          // per neighbour: its first row in the send and receive buffers, then the total
  DeviceArray<Index> send_rows_;      // per send row: the tail index it packs
  DeviceArray<Index> offsets_;        // per shared node: its copies in sources_
  DeviceArray<Index> sources_;        // a copy: >= 0 a receive row, < 0 this subdomain's own (-1 - tail index)
  // Point to point: the send and receive buffers; all-reduce: the array (in the first).
  DeviceArray<Real> send_, receive_;
  DeviceArray<double> send_mass_, receive_mass_;
};

extern template class NcclExchange<float>;
extern template class NcclExchange<double>;

}  // namespace tremor::parallel
