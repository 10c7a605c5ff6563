#include "tremor/parallel/communicator.hpp"

#include <cstdlib>
#include <limits>
#include <numeric>

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

struct Requests::Impl {
#if defined(TREMOR_HAVE_MPI)
  std::vector<MPI_Request> requests;
#endif
};

Requests::Requests() : impl_(std::make_unique<Impl>()) {}
Requests::~Requests() = default;
Requests::Requests(Requests&&) noexcept = default;
Requests& Requests::operator=(Requests&&) noexcept = default;

bool Requests::pending() const {
#if defined(TREMOR_HAVE_MPI)
  return impl_ && !impl_->requests.empty();
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

Communicator& Communicator::world() {
  static Communicator world;
  return world;
}

double Communicator::sum(double value) const {
  const std::vector<double> values = all_gather(value);
  return std::accumulate(values.begin(), values.end(), 0.0);  // rank order: the same bits everywhere
}

std::vector<double> Communicator::all_gather(double value) const {
  std::vector<double> values(static_cast<std::size_t>(size_), value);
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
#if defined(TREMOR_HAVE_MPI)
  std::vector<MPI_Request>& requests = started.impl_->requests;
  requests.assign(2 * ranks.size(), MPI_REQUEST_NULL);
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    TREMOR_CHECK(ranks[i] >= 0 && ranks[i] < size_ && ranks[i] != rank_, "an exchange with process ", ranks[i],
                 " from process ", rank_, " of ", size_);
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
  if (size_ > 1) MPI_Abort(MPI_COMM_WORLD, code);
#else
  (void)code;
#endif
}

void Communicator::barrier() const {
#if defined(TREMOR_HAVE_MPI)
  if (size_ > 1) check_mpi(MPI_Barrier(MPI_COMM_WORLD), "barrier");
#endif
}

}  // namespace tremor::parallel
