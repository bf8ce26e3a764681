#pragma once
// Broadcast rings: the channel of tiny active-set broadcasts (up to kRingBytes). Every PE's
// internal area holds, for each sender world PE below kRingPEs, a ring of kRingDepth cache
// lines that only that sender writes: sequence number, tag, data. A root writes the next line
// of each member's ring and returns; a member waits for the line with its next sequence number
// from that root. No line is cleared, so the root's stores find lines the member only read, and
// the root needs no word of the member's until it is kRingDepth broadcasts ahead of what it last
// saw the member take (its `consumed` word, read then and cached in RingBook.credit): streams of
// small broadcasts pipeline, where a pSync flag would cost the root a blocking line transfer
// per call.
//
// The order of the broadcasts a root sends a member is the order the member takes them in, so
// rings serve only jobs in which no PE runs collectives from several threads at once (every PE
// below SHMEM_THREAD_MULTIPLE; RingBook.usable, agreed at init) and sets whose members call
// broadcasts in the same order, as the specification requires; a member that finds another
// broadcast's tag in its next line reports both and ends the job.
#include <atomic>
#include <cstdint>
#include <cstring>

#include "core/coll_wait.hpp"
#include "core/log.hpp"
#include "core/runtime.hpp"

namespace shmem::coll::ring {

// What identifies one broadcast call to the member that receives it.
inline std::uint64_t tag(int start, int log_stride, int size, int root, std::size_t bytes) noexcept {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(start)) << 32) ^
         (static_cast<std::uint64_t>(static_cast<std::uint32_t>(size)) << 16) ^
         (static_cast<std::uint64_t>(log_stride) << 8) ^ (static_cast<std::uint64_t>(root) << 40) ^
         (static_cast<std::uint64_t>(bytes) << 56) ^ 0x5bd1e995u;
}

inline bool usable(const Runtime& rt, int root_world, std::size_t bytes) noexcept {
  return bytes <= kRingBytes && root_world < kRingPEs && rt.ring_book().usable;
}

// Root: writes `bytes` of `data` into member `to`'s ring for this PE.
inline void send(Runtime& rt, int to, std::uint64_t tag, const void* data, std::size_t bytes) noexcept {
  RingBook& book = rt.ring_book();
  const int me = rt.my_pe();
  const std::uint64_t seq = ++book.sent[static_cast<std::size_t>(to)];
  std::uint64_t& credit = book.credit[static_cast<std::size_t>(to)];
  if (seq > credit + kRingDepth) {
    std::atomic_ref<std::uint64_t> consumed(rt.rings(to).consumed[me]);
    wait_word(rt, "a member to take earlier broadcasts out of its ring", &rt.rings(to).consumed[me],
              [&] { return (credit = consumed.load(std::memory_order_acquire)) + kRingDepth >= seq; });
  }
  RingLine& line = rt.rings(to).lines[me][seq % kRingDepth];
  std::atomic_ref<std::uint64_t>(line.tag).store(tag, std::memory_order_relaxed);
  if (bytes) std::memcpy(line.data, data, bytes);
  std::atomic_ref<std::uint64_t>(line.seq).store(seq, std::memory_order_release);
}

// Member: takes the next broadcast from world PE `from` into dest.
inline void receive(Runtime& rt, int from, std::uint64_t tag, void* dest, std::size_t bytes) noexcept {
  RingBook& book = rt.ring_book();
  BcastRings& mine = rt.rings(rt.my_pe());
  const std::uint64_t seq = ++book.taken[static_cast<std::size_t>(from)];
  RingLine& line = mine.lines[from][seq % kRingDepth];
  std::atomic_ref<std::uint64_t> s(line.seq);
  wait_word(rt, "the broadcast's root to write the data into this PE's ring", &line.seq,
            [&] { return s.load(std::memory_order_acquire) == seq; });
  const std::uint64_t got = std::atomic_ref<std::uint64_t>(line.tag).load(std::memory_order_relaxed);
  if (got != tag)
    core::fatal("shmem_broadcast",
                "PE %d's next broadcast to this PE is not the one this PE called (tag %#llx, expected %#llx): the "
                "members of an active set must make the same broadcast calls in the same order",
                from, static_cast<unsigned long long>(got), static_cast<unsigned long long>(tag));
  if (bytes) std::memcpy(dest, line.data, bytes);
  std::atomic_ref<std::uint64_t>(mine.consumed[from]).store(seq, std::memory_order_release);
  __builtin_prefetch(&mine.lines[from][(seq + 1) % kRingDepth]);
}

}  // namespace shmem::coll::ring
