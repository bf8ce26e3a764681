// The Runtime's side of the GPU heap (core/gpu_heap.hpp): ownership, and the node-local
// descriptor exchange the heap's creation runs a second time, after init.
#include "base/error.hpp"
#include "core/gpu_heap.hpp"
#include "core/runtime.hpp"

namespace shmem {

void Runtime::set_gpu(std::unique_ptr<core::GpuHeap> heap) noexcept { gpu_ = std::move(heap); }

std::vector<transport::PeerSegments> Runtime::exchange_node_fd(const std::string& tag, int fd, std::uint64_t bytes,
                                                               const std::uint64_t (&note)[2],
                                                               const std::vector<int>& peers) {
  if (npes_ == 1) return {};
  const auto timeout = bootstrap::Millis(static_cast<long long>(control_timeout_s_ * 1000));
  // A listener of its own (the init exchange's is closed), under a name of its own. The note
  // rides in the data segment's size and address, which go to the peers as they are even
  // without a descriptor (fd -1).
  auto ex = transport::listen_node(job_id_ + "-" + tag, me_, secret_);
  boot_->barrier("shm-listen-" + tag);
  return ex->exchange(peers, transport::SegmentDesc{fd, bytes, 0}, transport::SegmentDesc{-1, note[0], note[1]},
                      timeout);
}

}  // namespace shmem
