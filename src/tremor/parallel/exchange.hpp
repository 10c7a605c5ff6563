#pragma once
// The interface exchange of a decomposed run (the multi-GPU spectral-element paper, section 3):
// after every operator apply the internal forces of the nodes that several subdomains hold (its
// "common nodes") are summed over those subdomains, and so once in the set-up are the lumped mass
// and damping, so that a shared node's update is the same in every subdomain holding it. Each
// subdomain's vectors are in its own numbering (partition::Subdomain: shared nodes last).
//
// Between processes, two strategies (the paper's): point to point, where each pair of
// neighbouring subdomains sends each other exactly the nodes they share and each shared node's
// copies are summed in the order of their subdomains' numbers, and all-reduce, where one array
// over every shared node of the model (each process's own copies in their places, zero
// elsewhere) is summed over all processes by the library's all-reduce. Either way every copy of a
// node gets the same sum (the copies stay equal bit for bit), and a run repeats itself bit for bit
// with the same decomposition and strategy; the two strategies may differ in the last bit where
// three or more subdomains share a node.
//
// The forces' sum comes in two halves so that work can run between them (overlap): start once
// the shared nodes' forces are final, finish before they are read; the work between must neither
// read nor write the shared nodes' values (the interior elements' apply). An exchange with a
// stream of its own (NcclExchange) lends it for the forces of the elements touching shared nodes,
// so that they run beside the interior's and the exchange follows them at once.
#include <array>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/exec.hpp"
#include "tremor/backend/view.hpp"
#include "tremor/core/choice.hpp"
#include "tremor/core/config.hpp"
#include "tremor/core/error.hpp"
#include "tremor/parallel/communicator.hpp"
#include "tremor/partition/domains.hpp"

namespace tremor::parallel {

enum class Strategy { PointToPoint, AllReduce };
inline constexpr std::array<Named<Strategy>, 2> strategy_names{{{"p2p", Strategy::PointToPoint},
                                                               {"allreduce", Strategy::AllReduce}}};
// A name of strategy_names; anything else throws "unknown exchange ...".
Strategy parse_strategy(std::string_view name);
std::string_view to_string(Strategy strategy);

// Every shared node of a decomposition (model nodes held by several subdomains), numbered in model
// order: the all-reduce's array. slots[j]: the place of subdomain `domain`'s shared node j.
struct SharedSlots {
  SharedSlots(const partition::Decomposition& decomposition, int domain);
  Index n_slots = 0;
  std::vector<Index> slots;
};

// Sums the values of shared nodes over the subdomains, so each holds the total there. Entry s of a
// span is subdomain s's vector, local numbering, in its Exec's memory. A process with one
// subdomain passes a span of one. A node's values are its dim components, or of the forces of k
// shots stepped together its dim x k values side by side (explicit/central_difference.hpp): each
// vector's size over its nodes says which.
template <class Real>
class Exchange {
 public:
  virtual ~Exchange() = default;
  // The internal forces K u, after each operator apply (the time loop): start_forces once the
  // shared nodes' forces are final, finish_forces before any is read.
  virtual void start_forces(std::span<const View<Real>> forces) = 0;
  virtual void finish_forces(std::span<const View<Real>> forces) = 0;
  // The Exec (a stream of the run's GPU) on which start_forces queues its work, where the shared
  // nodes' forces may be computed too; null: the run's Exec. Work queued there between
  // begin_forces() and start_forces() follows the run's work queued before begin_forces().
  virtual const Exec* interface_exec() const { return nullptr; }
  virtual void begin_forces() {}
  void sum_forces(std::span<const View<Real>> forces) {
    start_forces(forces);
    finish_forces(forces);
  }
  // The lumped mass, and the damping, in the set-up before the integrator's coefficients.
  virtual void sum_mass(std::span<const View<double>> mass) = 0;
};

// The one vector of a process's subdomain (an exchange over processes is given spans of one).
template <class T>
View<T> this_process(std::span<const View<T>> values) {
  TREMOR_CHECK(values.size() == 1, "a process's exchange was given ", values.size(), " subdomains' vectors, not one");
  return values[0];
}

// One subdomain holding every node: nothing is shared.
template <class Real>
class NoSharedNodes final : public Exchange<Real> {
 public:
  void start_forces(std::span<const View<Real>>) override {}
  void finish_forces(std::span<const View<Real>>) override {}
  void sum_mass(std::span<const View<double>>) override {}
};

// The subdomains of a decomposition in one process, on one Exec: each shared node's values summed
// over the subdomains holding it in the order of their numbers, the same sum written to every
// copy (so the copies stay bit for bit equal, and a run repeats itself). A subdomain's shared
// nodes are its last local nodes (partition::Subdomain), so each sum is staged from the
// contiguous tails of the vectors: one copy into a staging array, one kernel per subdomain.
template <class Real>
class InProcessExchange final : public Exchange<Real> {
 public:
  InProcessExchange(const Exec& exec, const partition::Decomposition& decomposition, int dim);
  // All of it in finish_forces: the subdomains are stepped one after another on one Exec.
  void start_forces(std::span<const View<Real>>) override {}
  void finish_forces(std::span<const View<Real>> forces) override;
  void sum_mass(std::span<const View<double>> mass) override;
  // Shared node copies summed per exchange (the subdomains' shared nodes together).
  Index n_shared_copies() const { return total_; }

 private:
  template <class T>
  void sum(std::span<const View<T>> values, DeviceArray<T>& staging);

  Exec exec_;
  int dim_ = 3;
  Index total_ = 0;
  std::vector<Index> n_local_, n_owned_, base_;  // per subdomain; base_: its first row in the staging arrays
  // Per subdomain, per shared node j: the staging rows of its copies, sources[offsets[j]..offsets[j + 1]),
  // in subdomain order.
  std::vector<DeviceArray<Index>> offsets_, sources_;
  DeviceArray<Real> staged_forces_;
  DeviceArray<double> staged_mass_;
};

// What one subdomain of a decomposition exchanges with the others (subdomain `rank`, one per
// process): its neighbours (the subdomains sharing nodes with it, ascending), the shared nodes it
// sends each (tail indices, in ascending model node order: the order both sides use), and for
// each of its shared nodes the copies to sum, in subdomain order.
struct Neighbourhood {
  // Subdomain communicator.rank() of a decomposition into communicator.size() subdomains.
  Neighbourhood(const partition::Decomposition& decomposition, const Communicator& communicator);
  Index n_local = 0, n_owned = 0;
  std::vector<int> neighbours;
  std::vector<std::vector<Index>> send_nodes;
  // Shared node j's copies: copies[offsets[j] .. offsets[j + 1]), each (neighbour index, or -1 for
  // this subdomain's own; the node's place in that neighbour's list, or j).
  std::vector<Index> offsets;
  std::vector<std::pair<int, Index>> copies;
};

// The subdomains of a decomposition over the processes of `communicator`, one each (this process
// holds subdomain rank(), its vectors on `exec`), in host buffers: a GPU's values are copied to
// the host and back around the transfers. Point to point: the neighbours' transfers all at once,
// in ascending model node order; each shared node's copies then summed in subdomain order, as
// InProcessExchange does, so the two give the same bits. All-reduce: MPI's, in double. The
// transfers are non-blocking between start_forces and finish_forces.
template <class Real>
class MpiExchange final : public Exchange<Real> {
 public:
  MpiExchange(const Exec& exec, const partition::Decomposition& decomposition, int dim,
              const Communicator& communicator, Strategy strategy = Strategy::PointToPoint);
  // Spans of one: this process's subdomain.
  void start_forces(std::span<const View<Real>> forces) override;
  void finish_forces(std::span<const View<Real>> forces) override;
  void sum_mass(std::span<const View<double>> mass) override;
  const std::vector<int>& neighbours() const { return neighbours_; }

 private:
  template <class T>
  void start(View<T> values);
  template <class T>
  void finish(View<T> values);

  Exec exec_;
  int dim_ = 3;
  const Communicator* communicator_ = nullptr;
  Strategy strategy_ = Strategy::PointToPoint;
  SharedSlots slots_;
  std::vector<double> tail_, all_;  // this subdomain's shared values; the all-reduce's array
  Requests requests_;               // the transfers between start and finish
  Index n_local_ = 0, n_owned_ = 0;
  std::vector<int> neighbours_;                  // ascending
  std::vector<std::vector<Index>> send_nodes_;   // per neighbour: the shared nodes (tail index) it shares, by model node
  // Per shared node j: its copies in subdomain order, copies_[offsets_[j] .. offsets_[j + 1]):
  // (neighbour index, or -1 for this subdomain's own; the node's place in that neighbour's list).
  std::vector<Index> offsets_;
  std::vector<std::pair<int, Index>> copies_;
  std::vector<std::vector<double>> send_, receive_;
  std::size_t width_ = 3;  // values per node of the exchange under way
};

extern template class InProcessExchange<float>;
extern template class InProcessExchange<double>;
extern template class MpiExchange<float>;
extern template class MpiExchange<double>;

}  // namespace tremor::parallel
