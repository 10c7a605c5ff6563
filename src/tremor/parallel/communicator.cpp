#include "tremor/parallel/communicator.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <numeric>
#include <utility>

#include "tremor/core/error.hpp"

#if defined(TREMOR_HAVE_MPI)
#include <mpi.h>
#endif

namespace tremor::parallel {

namespace {

#if defined(TREMOR_HAVE_MPI)
// Whether a launcher started this process as one of several (OpenMPI's mpirun, or a PMI/PMIx one).
bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(name)) return true;
  return false;
}

void check_mpi(int status, const char* what) {
  if (status == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(status, text, &length);
  throw Error(str("MPI ", what, " failed: ", std::string(text, static_cast<std::size_t>(length))));
}

void finalize_at_exit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}
#endif

}  // namespace

namespace detail {

// What the members of a group of threads share. One lock serves everything: the members meet
// only at check points, at set-up and, on host buffers, once a step.
struct ThreadGroup {
  ThreadGroup(int members, std::string name)
      : n(members), what(std::move(name)), slots(static_cast<std::size_t>(members)),
        channels(static_cast<std::size_t>(members) * members) {}

  // A message from one member to another: posted by the sender, taken (copied) by the receiver,
  // one at a time; the sender's buffer stays valid until it is taken.
  struct Channel {
    const double* data = nullptr;
    std::size_t size = 0;
    unsigned long long posted = 0, taken = 0;
  };

  const int n;
  const std::string what;
  std::mutex mutex;
  std::condition_variable changed;
  std::string failure;  // the first member's failure (fail()): every wait throws it
  int arrived = 0;      // at the barrier of this generation
  unsigned long long generation = 0;
  std::vector<std::span<const char>> slots;  // each member's part of a collective
  std::vector<Channel> channels;             // [from * n + to]

  Channel& channel(int from, int to) { return channels[static_cast<std::size_t>(from) * n + to]; }

  void throw_if_failed() const {
    if (!failure.empty()) throw Error(failure);
  }
  template <class Ready>
  void wait_for(std::unique_lock<std::mutex>& lock, Ready ready) {
    changed.wait(lock, [&] { return !failure.empty() || ready(); });
    throw_if_failed();
  }
  void fail(const std::string& message) {
    const std::lock_guard lock(mutex);
    if (failure.empty()) failure = message;
    changed.notify_all();
  }
  void barrier() {
    std::unique_lock lock(mutex);
    throw_if_failed();
    const unsigned long long now = generation;
    if (++arrived == n) {
      arrived = 0;
      ++generation;
      changed.notify_all();
      return;
    }
    wait_for(lock, [&] { return generation != now; });
  }
  // Every member's `mine` to read(slots) between two barriers (so that none is gone before all
  // have read); a failure in read() is the group's.
  template <class Read>
  void collective(int rank, std::span<const char> mine, Read read) {
    {
      const std::lock_guard lock(mutex);
      slots[static_cast<std::size_t>(rank)] = mine;
    }
    barrier();
    try {
      read(std::as_const(slots));
    } catch (const std::exception& error) {
      fail(error.what());
      throw;
    }
    barrier();
  }
};

}  // namespace detail

struct Requests::Impl {
#if defined(TREMOR_HAVE_MPI)
  std::vector<MPI_Request> requests;
#endif
  // A group of threads': the messages to take from `peers` into `receive` and then see this
  // member's own taken, or (`sum`) values to sum over the group.
  std::vector<int> peers;
  std::vector<std::span<double>> receive;
  std::span<double> values;
  bool sum = false;
};

Requests::Requests() : impl_(std::make_unique<Impl>()) {}
Requests::~Requests() = default;
Requests::Requests(Requests&&) noexcept = default;
Requests& Requests::operator=(Requests&&) noexcept = default;

bool Requests::pending() const {
  if (!impl_) return false;
  if (!impl_->peers.empty() || impl_->sum) return true;
#if defined(TREMOR_HAVE_MPI)
  return !impl_->requests.empty();
#else
  return false;
#endif
}

bool mpi_compiled() {
#if defined(TREMOR_HAVE_MPI)
  return true;
#else
  return false;
#endif
}

Communicator::Communicator() {
#if defined(TREMOR_HAVE_MPI)
  if (!launched_by_mpi()) return;
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    check_mpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "initialisation");
    std::atexit(finalize_at_exit);
  }
  // Errors come back as codes, which check_mpi turns into tremor::Error.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  check_mpi(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "rank");
  check_mpi(MPI_Comm_size(MPI_COMM_WORLD, &size_), "size");
  MPI_Comm host;
  check_mpi(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &host), "host split");
  check_mpi(MPI_Comm_rank(host, &local_rank_), "host rank");
  MPI_Comm_free(&host);
#endif
}

Communicator::Communicator(std::shared_ptr<detail::ThreadGroup> group, int rank)
    : rank_(rank), size_(group->n), local_rank_(rank), group_(std::move(group)) {}

Communicator& Communicator::world() {
  static Communicator world;
  return world;
}

std::vector<Communicator> Communicator::threads(int n, std::string what) {
  TREMOR_CHECK(n >= 1, "a group of ", n, " threads");
  auto group = std::make_shared<detail::ThreadGroup>(n, std::move(what));
  std::vector<Communicator> members;
  for (int k = 0; k < n; ++k) members.push_back(Communicator(group, k));
  return members;
}

std::string Communicator::name(int rank) const {
  return str(group_ ? group_->what : std::string("process"), " ", rank, " of ", size_);
}

void Communicator::fail(const std::string& message) const {
  if (group_) group_->fail(message);
}

std::string Communicator::failure() const {
  if (!group_) return {};
  const std::lock_guard lock(group_->mutex);
  return group_->failure;
}

double Communicator::sum(double value) const {
  const std::vector<double> values = all_gather(value);
  return std::accumulate(values.begin(), values.end(), 0.0);  // rank order: the same bits everywhere
}

std::vector<double> Communicator::all_gather(double value) const {
  std::vector<double> values(static_cast<std::size_t>(size_), value);
  if (group_) {
    const std::span<const char> mine(reinterpret_cast<const char*>(&value), sizeof value);
    group_->collective(rank_, mine, [&](const std::vector<std::span<const char>>& slots) {
      for (std::size_t r = 0; r < slots.size(); ++r) std::memcpy(&values[r], slots[r].data(), sizeof(double));
    });
    return values;
  }
#if defined(TREMOR_HAVE_MPI)
  if (size_ > 1) check_mpi(MPI_Allgather(&value, 1, MPI_DOUBLE, values.data(), 1, MPI_DOUBLE, MPI_COMM_WORLD), "all-gather");
#endif
  return values;
}

std::vector<std::vector<char>> Communicator::gather(std::span<const char> bytes, int root) const {
  std::vector<std::vector<char>> out;
  if (size_ == 1) {
    out.emplace_back(bytes.begin(), bytes.end());
    return out;
  }
  if (group_) {
    group_->collective(rank_, bytes, [&](const std::vector<std::span<const char>>& slots) {
      if (rank_ == root)
        for (const std::span<const char> slot : slots) out.emplace_back(slot.begin(), slot.end());
    });
    return out;
  }
#if defined(TREMOR_HAVE_MPI)
  TREMOR_CHECK(bytes.size() <= static_cast<std::size_t>(std::numeric_limits<int>::max()), "a message of ",
               bytes.size(), " bytes is too large for one MPI transfer");
  const int count = static_cast<int>(bytes.size());
  std::vector<int> counts(static_cast<std::size_t>(size_), 0), offsets(static_cast<std::size_t>(size_), 0);
  check_mpi(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, root, MPI_COMM_WORLD), "gather");
  std::vector<char> all;
  if (rank_ == root) {
    long long total = 0;
    for (int r = 0; r < size_; ++r) {
      offsets[static_cast<std::size_t>(r)] = static_cast<int>(total);
      total += counts[static_cast<std::size_t>(r)];
    }
    TREMOR_CHECK(total <= std::numeric_limits<int>::max(), "gathering ", total, " bytes: too large for one MPI transfer");
    all.resize(static_cast<std::size_t>(total));
  }
  check_mpi(MPI_Gatherv(bytes.data(), count, MPI_BYTE, all.data(), counts.data(), offsets.data(), MPI_BYTE, root,
                        MPI_COMM_WORLD),
            "gather");
  if (rank_ == root)
    for (int r = 0; r < size_; ++r) {
      const auto begin = all.begin() + offsets[static_cast<std::size_t>(r)];
      out.emplace_back(begin, begin + counts[static_cast<std::size_t>(r)]);
    }
#else
  (void)root;
#endif
  return out;
}

void Communicator::broadcast(std::vector<char>& bytes, int root) const {
  if (group_) {
    if (size_ == 1) return;
    const std::span<const char> mine = rank_ == root ? std::span<const char>(bytes) : std::span<const char>();
    group_->collective(rank_, mine, [&](const std::vector<std::span<const char>>& slots) {
      if (rank_ != root) bytes.assign(slots[static_cast<std::size_t>(root)].begin(), slots[static_cast<std::size_t>(root)].end());
    });
    return;
  }
#if defined(TREMOR_HAVE_MPI)
  if (size_ == 1) return;
  unsigned long long count = bytes.size();
  check_mpi(MPI_Bcast(&count, 1, MPI_UNSIGNED_LONG_LONG, root, MPI_COMM_WORLD), "broadcast");
  TREMOR_CHECK(count <= static_cast<unsigned long long>(std::numeric_limits<int>::max()), "a broadcast of ", count,
               " bytes is too large for one MPI transfer");
  bytes.resize(static_cast<std::size_t>(count));
  check_mpi(MPI_Bcast(bytes.data(), static_cast<int>(count), MPI_BYTE, root, MPI_COMM_WORLD), "broadcast");
#else
  (void)bytes;
  (void)root;
#endif
}

void Communicator::exchange(std::span<const int> ranks, std::span<const std::span<const double>> send,
                            std::span<const std::span<double>> receive) const {
  Requests requests = start_exchange(ranks, send, receive);
  wait(requests);
}

Requests Communicator::start_exchange(std::span<const int> ranks, std::span<const std::span<const double>> send,
                                      std::span<const std::span<double>> receive) const {
  TREMOR_CHECK(send.size() == ranks.size() && receive.size() == ranks.size(), "an exchange with ", ranks.size(),
               " processes was given ", send.size(), " and ", receive.size(), " buffers");
  Requests started;
  if (ranks.empty()) return started;
  for (const int peer : ranks)
    TREMOR_CHECK(peer >= 0 && peer < size_ && peer != rank_, "an exchange with ", name(peer), " from ", name(rank_));
  if (group_) {
    std::unique_lock lock(group_->mutex);
    for (std::size_t i = 0; i < ranks.size(); ++i) {
      detail::ThreadGroup::Channel& out = group_->channel(rank_, ranks[i]);
      group_->wait_for(lock, [&] { return out.taken == out.posted; });  // the last one taken (wait)
      out.data = send[i].data();
      out.size = send[i].size();
      ++out.posted;
    }
    group_->changed.notify_all();
    started.impl_->peers.assign(ranks.begin(), ranks.end());
    started.impl_->receive.assign(receive.begin(), receive.end());
    return started;
  }
#if defined(TREMOR_HAVE_MPI)
  std::vector<MPI_Request>& requests = started.impl_->requests;
  requests.assign(2 * ranks.size(), MPI_REQUEST_NULL);
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    check_mpi(MPI_Irecv(receive[i].data(), static_cast<int>(receive[i].size()), MPI_DOUBLE, ranks[i], 0,
                        MPI_COMM_WORLD, &requests[2 * i]),
              "receive");
    check_mpi(MPI_Isend(send[i].data(), static_cast<int>(send[i].size()), MPI_DOUBLE, ranks[i], 0, MPI_COMM_WORLD,
                        &requests[2 * i + 1]),
              "send");
  }
  return started;
#else
  throw Error(str("an exchange with process ", ranks[0], ": this tremor runs as one process (built without MPI)"));
#endif
}

Requests Communicator::start_sum(std::span<double> values) const {
  Requests started;
  if (group_) {  // summed in wait(), in rank order
    if (size_ > 1) {
      started.impl_->values = values;
      started.impl_->sum = true;
    }
    return started;
  }
#if defined(TREMOR_HAVE_MPI)
  if (size_ > 1 && !values.empty()) {
    TREMOR_CHECK(values.size() <= static_cast<std::size_t>(std::numeric_limits<int>::max()), "a sum of ",
                 values.size(), " values is too large for one MPI transfer");
    started.impl_->requests.assign(1, MPI_REQUEST_NULL);
    check_mpi(MPI_Iallreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_SUM,
                             MPI_COMM_WORLD, started.impl_->requests.data()),
              "all-reduce");
  }
#else
  (void)values;
#endif
  return started;
}

void Communicator::wait(Requests& requests) const {
  Requests::Impl& r = *requests.impl_;
  if (group_ && r.sum) {
    r.sum = false;
    std::vector<double> total(r.values.size(), 0.0);
    const std::span<const char> mine(reinterpret_cast<const char*>(r.values.data()), r.values.size_bytes());
    group_->collective(rank_, mine, [&](const std::vector<std::span<const char>>& slots) {
      for (std::size_t m = 0; m < slots.size(); ++m) {
        TREMOR_CHECK(slots[m].size() == mine.size(), "a sum of ", r.values.size(), " values on ", name(rank_),
                     " and of ", slots[m].size() / sizeof(double), " on ", name(static_cast<int>(m)));
        const auto* other = reinterpret_cast<const double*>(slots[m].data());
        for (std::size_t i = 0; i < total.size(); ++i) total[i] += other[i];
      }
    });
    std::copy(total.begin(), total.end(), r.values.begin());
    return;
  }
  if (group_ && !r.peers.empty()) {
    // Each peer's message copied out of its buffer (outside the lock), then this member's own
    // messages seen taken, so that its send buffers may be reused.
    std::vector<int> peers;
    peers.swap(r.peers);
    std::unique_lock lock(group_->mutex);
    for (std::size_t i = 0; i < peers.size(); ++i) {
      detail::ThreadGroup::Channel& in = group_->channel(peers[i], rank_);
      group_->wait_for(lock, [&] { return in.posted > in.taken; });
      if (in.size != r.receive[i].size()) {
        const std::string message = str(name(rank_), " expected ", r.receive[i].size(), " values from ",
                                        name(peers[i]), ", which sent ", in.size);
        lock.unlock();
        group_->fail(message);
        throw Error(message);
      }
      const double* data = in.data;
      lock.unlock();
      std::copy(data, data + r.receive[i].size(), r.receive[i].begin());
      lock.lock();
      ++in.taken;
      group_->changed.notify_all();
    }
    for (const int peer : peers) {
      detail::ThreadGroup::Channel& out = group_->channel(rank_, peer);
      group_->wait_for(lock, [&] { return out.taken == out.posted; });
    }
    return;
  }
#if defined(TREMOR_HAVE_MPI)
  std::vector<MPI_Request>& pending = requests.impl_->requests;
  if (pending.empty()) return;
  const int status = MPI_Waitall(static_cast<int>(pending.size()), pending.data(), MPI_STATUSES_IGNORE);
  pending.clear();
  check_mpi(status, "exchange");
#else
  (void)requests;
#endif
}

void Communicator::abort(int code) const {
#if defined(TREMOR_HAVE_MPI)
  if (size_ > 1 && !group_) MPI_Abort(MPI_COMM_WORLD, code);
#else
  (void)code;
#endif
}

void Communicator::barrier() const {
  if (group_) return group_->barrier();
#if defined(TREMOR_HAVE_MPI)
  if (size_ > 1) check_mpi(MPI_Barrier(MPI_COMM_WORLD), "barrier");
#endif
}

}  // namespace tremor::parallel
