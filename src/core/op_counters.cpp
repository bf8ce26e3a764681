// The target counter of shmemx_pcntr_get_completed_target (SHMEM_PCNTR_TARGET=1): a word on the
// line below the collective check's, in every PE's internal area, added to by the PE that
// completes a write or AMO there (core/op_counters.hpp).
#include "core/op_counters.hpp"

#include "core/coll_check.hpp"

namespace shmem::op_counters {
namespace {
constexpr std::size_t kTargetCountOffset = coll_check::kCallLineOffset - 64;
static_assert(kTeamPushOffset + sizeof(TeamPushArea) <= kTargetCountOffset);
}  // namespace

void count_target(Ctx* c, int world_pe, const char* func) noexcept {
  Runtime& r = *c->rt;
  if (char* word = r.heap_at(world_pe, kTargetCountOffset)) {  // node-local: after the operation's stores
    std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t*>(word)).fetch_add(1, std::memory_order_release);
    return;
  }
  if (transport::RemoteTransport* tr = r.remote()) {  // another host: ordered after the operation
    tr->fence();
    tr->amo(world_pe, transport::Seg::kHeap, kTargetCountOffset, AmoOp::kAdd, sizeof(std::uint64_t), 1, 0, nullptr,
            func);
  }
}

std::uint64_t target_count(const Runtime& r) noexcept {
  return std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t*>(r.my_heap() + kTargetCountOffset))
      .load(std::memory_order_acquire);
}

}  // namespace shmem::op_counters
