// The device state sinks of shmemx_cuda_state_sink_add (shmem/device/cuda/state.hpp). Device
// code registers them when its module loads, often before any Runtime exists, and the state
// they receive is the process's one GPU heap: so they are process-wide, like the log sink.
#include <mutex>
#include <vector>

#include "core/gpu_heap.hpp"

namespace shmem::core {
namespace {

struct Sinks {
  std::recursive_mutex mu;  // a sink may add another sink
  std::vector<shmemx_cuda_state_sink_t> list;
  GpuState current;  // version 0 while there is no GPU heap
};

Sinks& sinks() {
  static Sinks* s = new Sinks();  // never destroyed: modules may unregister nothing at exit
  return *s;
}

}  // namespace

void add_gpu_sink(shmemx_cuda_state_sink_t sink) noexcept {
  Sinks& s = sinks();
  std::lock_guard<std::recursive_mutex> lock(s.mu);
  s.list.push_back(sink);
  if (s.current.version != 0) sink(&s.current, sizeof s.current, s.current.device);
}

void publish_gpu_state(const GpuState& state) noexcept {
  Sinks& s = sinks();
  std::lock_guard<std::recursive_mutex> lock(s.mu);
  const int device = state.version != 0 ? state.device : s.current.device;
  s.current = state;
  for (std::size_t i = 0; i < s.list.size(); ++i) s.list[i](&s.current, sizeof s.current, device);
}

}  // namespace shmem::core
