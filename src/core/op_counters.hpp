#pragma once
// Sandia OpenSHMEM's performance counters (shmemx_pcntr_*), counted as Sandia counts them: per
// context, the writes (puts, put-with-signal, non-fetching AMOs) and reads (gets, fetching AMOs:
// fetch, swap, compare-swap, fetch-op) issued and those completed; per PE, with
// SHMEM_PCNTR_TARGET=1, the writes and AMOs other PEs completed into its memory.
//
// The data path pays one increment per operation on its context's first cache line (the line
// the operation reads anyway): an operation complete when its call returns (a node-local copy or
// atomic, a GPU copy, any blocking get or fetch) counts in `now`; one that completes at the next
// quiet (a put or non-fetching AMO to another host, a nonblocking get or fetch there) in `later`,
// which the context's quiet copies to `later_done`, only where there is a remote transport. The
// getters add them up: issued = now + later, completed = now + later_done. The increments are
// plain adds (atomic_ref under ThreadSanitizer), not atomic read-modify-writes: a thread of
// SHMEM_THREAD_MULTIPLE sharing a context with another may lose one (the counts are hints).
#include <atomic>
#include <cstdint>

#include "core/runtime.hpp"
#include "transport/amo_op.hpp"

namespace shmem::op_counters {

[[gnu::always_inline]] inline void bump(std::uint64_t& word) noexcept {
#if defined(__SANITIZE_THREAD__)
  std::atomic_ref<std::uint64_t> w(word);
  w.store(w.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
#else
  ++word;  // one add to memory; only the getters read it concurrently (a word-sized load)
#endif
}

// SHMEM_PCNTR_TARGET=1: one more count in `pe`'s target counter, after the operation (out of
// line; op_counters.cpp). world_pe: the PE as a world PE.
void count_target(Ctx* c, int world_pe, const char* func) noexcept;
[[gnu::always_inline]] inline bool counts_target(const Ctx* c) noexcept { return c->rt->config().pcntr_target; }
[[gnu::always_inline]] inline void target(Ctx* c, int world_pe, const char* func) noexcept {
  if (__builtin_expect(counts_target(c), 0)) count_target(c, world_pe, func);
}
// This PE's target counter.
std::uint64_t target_count(const Runtime& r) noexcept;

// A write complete on return (local: node-local or GPU) or at the next quiet.
[[gnu::always_inline]] inline void write(Ctx* c, bool complete) noexcept {
  if (complete)
    bump(c->counted.write_now);
  else
    bump(c->counted.write_later);
}
[[gnu::always_inline]] inline void read(Ctx* c, bool complete) noexcept {
  if (complete)
    bump(c->counted.read_now);
  else
    bump(c->counted.read_later);
}
// An AMO: a read when it fetches, else a write.
[[gnu::always_inline]] inline void amo(Ctx* c, AmoOp op, bool complete) noexcept {
  if (amo_fetches(op))
    read(c, complete);
  else
    write(c, complete);
}
// Quiet on a runtime with a remote transport: everything issued on the context is complete.
inline void quiet(Ctx* c) noexcept {
  auto copy = [](std::uint64_t& from, std::uint64_t& to) {
    std::atomic_ref<std::uint64_t>(to).store(std::atomic_ref<std::uint64_t>(from).load(std::memory_order_relaxed),
                                             std::memory_order_relaxed);
  };
  copy(c->counted.write_later, c->counted.write_later_done);
  copy(c->counted.read_later, c->counted.read_later_done);
}

}  // namespace shmem::op_counters
