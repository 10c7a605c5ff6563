#pragma once
// The members of a run: processes, or threads of one process. Communicator::world() is MPI's
// COMM_WORLD when this process was started by an MPI launcher (mpirun: its environment says so),
// and this process alone otherwise, or when tremor was built without MPI (TREMOR_MPI=OFF, or no
// MPI found). MPI is initialised on first use and finalised at exit, so a program that never asks
// runs as it always did. Communicator::threads(n) makes the n members of a group of threads of
// this process (`tremor run --gpus N`: a thread per GPU), which behave as n processes would,
// through shared memory, with or without MPI.
//
// Host-buffer operations only: what a decomposed run's time loop and set-up need between
// members. Every member must make the same calls in the same order (they are collective),
// except send/receive pairs.
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace tremor::parallel {

namespace detail {
struct ThreadGroup;
}

// Whether this build can run over several processes.
bool mpi_compiled();

// Transfers under way (Communicator::start_exchange, start_sum), completed by Communicator::wait.
class Requests {
 public:
  Requests();
  ~Requests();
  Requests(Requests&&) noexcept;
  Requests& operator=(Requests&&) noexcept;
  bool pending() const;

 private:
  friend class Communicator;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

class Communicator {
 public:
  static Communicator& world();
  // The members of a new group of `n` threads, member k for thread k (its rank and local rank: the
  // GPU it takes), called `what` in messages ("GPU 1 of 2"). Each member serves one thread; their
  // operations wait for each other as processes' would, and stop with an Error once one member
  // has failed (fail()).
  static std::vector<Communicator> threads(int n, std::string what = "thread");

  int rank() const { return rank_; }
  int size() const { return size_; }
  // This process's number among those on its host (0 alone): which of the host's GPUs it takes.
  int local_rank() const { return local_rank_; }
  bool root() const { return rank_ == 0; }
  // Whether the members are threads of this process (threads()).
  bool threaded() const { return group_ != nullptr; }
  // Member `rank` in messages: "process 1 of 2", "GPU 1 of 2".
  std::string name(int rank) const;

  // The sum of `value` over the processes, the same bits on every one (summed in rank order).
  double sum(double value) const;
  // Every process's `value`, in rank order, on every process.
  std::vector<double> all_gather(double value) const;
  // Every process's bytes on `root`, in rank order (empty elsewhere).
  std::vector<std::vector<char>> gather(std::span<const char> bytes, int root = 0) const;
  // `bytes` of `root` on every process (resized there).
  void broadcast(std::vector<char>& bytes, int root = 0) const;
  // Exchanges with the processes `ranks` (distinct, not this one): send[i] goes to ranks[i] and
  // receive[i], whose size that process sends, comes from it. All transfers at once.
  void exchange(std::span<const int> ranks, std::span<const std::span<const double>> send,
                std::span<const std::span<double>> receive) const;
  // The same started (the buffers must outlive the wait), so that work can run until wait().
  Requests start_exchange(std::span<const int> ranks, std::span<const std::span<const double>> send,
                          std::span<const std::span<double>> receive) const;
  // values summed over every process in place (MPI's all-reduce), started; wait() completes it.
  Requests start_sum(std::span<double> values) const;
  // Completes the transfers (none: returns at once).
  void wait(Requests& requests) const;
  void barrier() const;
  // Ends every process of the run with `code` (MPI_Abort): for a failure the others cannot know
  // of, which would leave them waiting for this one. Returns without MPI (one process), and for
  // threads, which fail() serves.
  void abort(int code) const;
  // Threads: this member failed with `message` (the first failure of the group is kept): every
  // member's waits, now and from now on, throw an Error with it instead of waiting for this one.
  // Processes: nothing (abort() serves).
  void fail(const std::string& message) const;
  // Threads: the group's failure (empty while none).
  std::string failure() const;

 private:
  Communicator();
  Communicator(std::shared_ptr<detail::ThreadGroup> group, int rank);
  int rank_ = 0;
  int size_ = 1;
  int local_rank_ = 0;
  std::shared_ptr<detail::ThreadGroup> group_;  // threads(): the group's shared state
};

}  // namespace tremor::parallel
