#pragma once
// The point-to-point exchange of a run over several processes whose subdomains are on GPUs (the
// multi-GPU spectral-element paper, section 3, with NCCL in place of CUDA-aware MPI): the shared
// nodes' values never leave the devices. Per sum, on the Exec's stream and without waiting on the
// host: one kernel packs the values each neighbour needs, one NCCL group sends and receives every
// neighbour's (NVLink between GPUs of a host), and one kernel sums each shared node's copies in
// subdomain order, as the other exchanges do (the same bits as MpiExchange on the same values).
// The NCCL communicator is bootstrapped over `communicator` (MPI).
#include <memory>
#include <span>
#include <vector>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/exec.hpp"
#include "tremor/parallel/communicator.hpp"
#include "tremor/parallel/exchange.hpp"

namespace tremor::parallel {

// Whether this build has NCCL (CUDA and MPI builds where the toolkit's NCCL was found).
bool nccl_compiled();

template <class Real>
class NcclExchange final : public Exchange<Real> {
 public:
  // exec: a CUDA Exec, this process's GPU. Throws tremor::Error without NCCL or with a host Exec.
  NcclExchange(const Exec& exec, const partition::Decomposition& decomposition, int dim,
               const Communicator& communicator);
  ~NcclExchange() override;
  NcclExchange(const NcclExchange&) = delete;
  NcclExchange& operator=(const NcclExchange&) = delete;
  void sum_forces(std::span<const View<Real>> forces) override;
  void sum_mass(std::span<const View<double>> mass) override;

 private:
  template <class T>
  void sum(std::span<const View<T>> values, DeviceArray<T>& send, DeviceArray<T>& receive);

  struct Handle;  // the NCCL communicator (no NCCL header here)
  std::unique_ptr<Handle> handle_;
  Exec exec_;
  int dim_ = 3;
  Index n_local_ = 0, n_owned_ = 0;
  std::vector<int> neighbours_;
  std::vector<Index> block_;          // per neighbour: its first row in the send and receive buffers, then the total
  DeviceArray<Index> send_rows_;      // per send row: the tail index it packs
  DeviceArray<Index> offsets_;        // per shared node: its copies in sources_
  DeviceArray<Index> sources_;        // a copy: >= 0 a receive row, < 0 this subdomain's own (-1 - tail index)
  DeviceArray<Real> send_, receive_;
  DeviceArray<double> send_mass_, receive_mass_;
};

extern template class NcclExchange<float>;
extern template class NcclExchange<double>;

}  // namespace tremor::parallel
