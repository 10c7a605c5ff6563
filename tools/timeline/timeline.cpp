// A GPU timeline of any CUDA program, for the benchmarks: the start and end of every kernel,
// memcpy and memset on the device's clock, with its stream, launch shape and registers, written as
// CSV. The CUDA driver loads it into the program (CUDA_INJECTION64_PATH) and calls
// InitializeInjection before the first CUDA call; the records come from CUPTI's activity API, as
// Nsight Systems takes them, where no such tool is installed. Usage (tools/timeline/README.md):
//   TREMOR_TIMELINE=trace.csv CUDA_INJECTION64_PATH=$PWD/.gpu/lib/libtremor_timeline.so tremor ...
// TREMOR_TIMELINE_MAX bounds the records written (default 2,000,000; those past it are counted).
#include <cupti.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

namespace {

std::mutex file_mutex;
std::FILE* out = nullptr;
long long written = 0, limit = 2'000'000, dropped = 0;
std::atomic<bool> ready{false};

void report(CUptiResult result, const char* what) {
  if (result == CUPTI_SUCCESS) return;
  const char* text = nullptr;
  cuptiGetResultString(result, &text);
  std::fprintf(stderr, "tremor timeline: %s: %s\n", what, text ? text : "unknown CUPTI error");
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  constexpr size_t bytes = 8u << 20;  // (CUPTI asks records 8-byte aligned)
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, bytes));
  *size = *buffer ? bytes : 0;
  *max_records = 0;  // as many as fit
}

// One CSV row: kind, stream, start and end (ns, the device's timestamps), grid, block, registers a
// thread, dynamic shared bytes, bytes moved (memcpy, memset) and the kernel's mangled name.
void row(const char* kind, uint32_t stream, uint64_t start, uint64_t end, long long grid, long long block,
         int registers, long long shared, unsigned long long bytes, const char* name) {
  if (written >= limit) {
    ++dropped;
    return;
  }
  std::fprintf(out, "%s,%u,%llu,%llu,%lld,%lld,%d,%lld,%llu,%s\n", kind, stream,
               static_cast<unsigned long long>(start), static_cast<unsigned long long>(end), grid, block, registers,
               shared, bytes, name ? name : "");
  ++written;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  {
    const std::lock_guard lock(file_mutex);
    CUpti_Activity* record = nullptr;
    while (out && cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
      switch (record->kind) {
        case CUPTI_ACTIVITY_KIND_KERNEL:
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
          const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
          row("kernel", k->streamId, k->start, k->end, static_cast<long long>(k->gridX) * k->gridY * k->gridZ,
              static_cast<long long>(k->blockX) * k->blockY * k->blockZ, k->registersPerThread,
              k->dynamicSharedMemory, 0, k->name);
          break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
          const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
          row("memcpy", m->streamId, m->start, m->end, 0, 0, 0, 0, m->bytes, "");
          break;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
          const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
          row("memset", m->streamId, m->start, m->end, 0, 0, 0, 0, m->bytes, "");
          break;
        }
        default:
          break;
      }
    }
    if (out) std::fflush(out);
  }
  std::free(buffer);
}

// Every record still buffered, then the file closed (at the program's exit).
void finish() {
  if (!ready.exchange(false)) return;
  report(cuptiActivityFlushAll(1), "flushing the records");
  const std::lock_guard lock(file_mutex);
  if (!out) return;
  std::fclose(out);
  out = nullptr;
  std::fprintf(stderr, "tremor timeline: %lld records written to %s%s\n", written, std::getenv("TREMOR_TIMELINE"),
               dropped > 0 ? (", " + std::to_string(dropped) + " past TREMOR_TIMELINE_MAX left out").c_str() : "");
}

}  // namespace

// Called by the CUDA driver at its initialisation (CUDA_INJECTION64_PATH); nonzero: success.
extern "C" int InitializeInjection(void) {
  const char* path = std::getenv("TREMOR_TIMELINE");
  if (!path || !*path) {
    std::fprintf(stderr, "tremor timeline: TREMOR_TIMELINE (the CSV to write) is not set; no timeline taken\n");
    return 1;
  }
  if (const char* most = std::getenv("TREMOR_TIMELINE_MAX")) limit = std::atoll(most);
  out = std::fopen(path, "w");
  if (!out) {
    std::fprintf(stderr, "tremor timeline: cannot write %s; no timeline taken\n", path);
    return 1;
  }
  std::fprintf(out, "kind,stream,start_ns,end_ns,grid,block,registers,dynamic_shared,bytes,name\n");
  report(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed), "registering the buffers");
  for (const CUpti_ActivityKind kind :
       {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET})
    report(cuptiActivityEnable(kind), "enabling a kind of record");
  ready = true;
  std::atexit(finish);
  return 1;
}
