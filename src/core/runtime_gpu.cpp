// The Runtime's side of the GPU heap (core/gpu_heap.hpp): ownership, and the node-local
// descriptor exchange the heap's creation runs a second time, after init.
#include "base/error.hpp"
#include "base/log.hpp"
#include "core/team.hpp"
#include "core/team_ops.hpp"
#include "core/gpu_heap.hpp"
#include "core/runtime.hpp"

namespace shmem {

void Runtime::set_gpu(std::unique_ptr<core::GpuHeap> heap) noexcept {
  gpu_ = std::move(heap);
  if (!gpu_) return;
  std::vector<const Team*> live;
  {
    std::lock_guard<std::mutex> g(teams_mu_);
    for (const auto& t : teams_) live.push_back(t.get());
  }
  for (const Team* t : live) gpu_team(*t, true);
}

void Runtime::gpu_team(const Team& t, bool live) noexcept {
  std::string error;
  const bool ok = live ? gpu_->set_team(t.slot(), core::team_handle(*this, &t), t.my_pe(), t.world_pes(), &error)
                       : gpu_->clear_team(t.slot(), &error);
  if (!ok)
    SHMEM_ERROR("cuda", "the device team table (team slot %d, %d PEs): %s; kernels cannot use this team", t.slot(),
                t.size(), error.c_str());
}

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
