#pragma once
// Sandia OpenSHMEM's performance counters (shmemx_pcntr_*): per context, the RMA writes (puts,
// put-with-signal) and reads (gets) issued, and those known complete. A node-local transfer is a
// copy, complete when the call returns, as is every blocking get; a put to another host, and a
// nonblocking transfer there, completes at the context's next quiet (or barrier). One relaxed
// load and store of the context's own word per operation: the counts are hints, a thread of
// SHMEM_THREAD_MULTIPLE sharing a context with another may lose one.
#include <atomic>
#include <cstdint>

#include "core/runtime.hpp"

namespace shmem::op_counters {

[[gnu::always_inline]] inline void bump(std::uint64_t& word) noexcept {
  std::atomic_ref<std::uint64_t> w(word);
  w.store(w.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}
[[gnu::always_inline]] inline void write(Ctx* c, bool complete) noexcept {
  bump(c->counted.issued_write);
  if (complete) bump(c->counted.completed_write);
}
[[gnu::always_inline]] inline void read(Ctx* c, bool complete) noexcept {
  bump(c->counted.issued_read);
  if (complete) bump(c->counted.completed_read);
}
// Quiet: everything issued on the context is complete.
inline void quiet(Ctx* c) noexcept {
  auto copy = [](std::uint64_t& from, std::uint64_t& to) {
    std::atomic_ref<std::uint64_t>(to).store(std::atomic_ref<std::uint64_t>(from).load(std::memory_order_relaxed),
                                             std::memory_order_relaxed);
  };
  copy(c->counted.issued_write, c->counted.completed_write);
  copy(c->counted.issued_read, c->counted.completed_read);
}

}  // namespace shmem::op_counters
