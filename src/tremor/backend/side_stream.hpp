#pragma once
// SideStream: work queued beside an Exec's own stream, ordered against it by events only. fork()
// makes the side stream wait for the work queued on the Exec so far; join() makes the Exec's later
// work wait for the work queued on the side stream so far. Between the two, kernels queued on
// side() may run at the same time as the Exec's (on a GPU, blocks of both resident together): a
// per-step term beside the stiffness's apply, an interface exchange beside the interior's work.
//
// On a Cuda Exec, side() is Exec::side_stream(priority) (by default its blocks scheduled first) and
// the events are two cudaEvent_t without timing. On the host backends there is no second stream:
// side() is the Exec itself, fork() and join() do nothing, and what is queued "beside" runs in turn.
#include "tremor/backend/exec.hpp"

namespace tremor {

// The priority of the work queued next on `exec`'s stream, where that stream was created with one
// (Exec::cuda_stream, Exec::side_stream): work queued before keeps its own. Nothing on the host
// backends or on the default stream. (exec.cpp)
void set_stream_priority(const Exec& exec, StreamPriority priority);

class SideStream {
 public:
  explicit SideStream(const Exec& exec, StreamPriority priority = StreamPriority::Highest);
  SideStream(const SideStream&) = delete;
  SideStream& operator=(const SideStream&) = delete;
  ~SideStream();

  const Exec& exec() const { return exec_; }
  const Exec& side() const { return side_; }
  // Whether side() is a stream of its own (a Cuda Exec).
  bool concurrent() const { return ready_ != nullptr; }
  void fork() const;
  void join() const;

 private:
  Exec exec_, side_;
  void* ready_ = nullptr;  // cudaEvent_t recorded on the Exec's stream, waited on by the side
  void* done_ = nullptr;   // and on the side stream, waited on by the Exec's
};

}  // namespace tremor
