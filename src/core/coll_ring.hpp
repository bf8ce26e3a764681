#pragma once
// Broadcast rings: the channel of tiny active-set broadcasts (up to kRingBytes). Every PE's
// internal area holds, for each sender world PE below kRingPEs, a ring of kRingDepth 16-byte
// entries (four to a cache line) that only that sender writes: data, then a head word with the
// sequence number and a tag. A root writes the next entry of each member's ring and returns; a
// member waits for the entry with its next sequence number from that root. Nothing is cleared,
// so the root's stores find lines the member only read, several entries travel in one line, and
// the root needs no word of the member's until it is kRingDepth broadcasts ahead of what it last
// saw the member take (its `consumed` word, read then and cached in RingBook.credit): streams of
// small broadcasts pipeline, where a pSync flag would cost the root a blocking line transfer
// per call.
//
// The order of the broadcasts a root sends a member is the order the member takes them in, so
// rings serve only jobs in which no PE runs collectives from several threads at once (every PE
// below SHMEM_THREAD_MULTIPLE) and sets whose members call broadcasts in the same order, as the
// specification requires; a member that finds another broadcast's tag in its next line reports
// both and ends the job. With more PEs than CPUs a root that is kRingDepth calls ahead would
// wait for the scheduler, where the pSync count path never makes it wait, so rings are also off
// then. RingBook.usable holds both conditions, agreed at init.
#include <atomic>
#include <cstdint>
#include <cstring>

#include "core/coll_wait.hpp"
#include "base/log.hpp"
#include "core/runtime.hpp"

namespace shmem::coll::ring {

// What identifies one broadcast call to the member that receives it (32 bits).
inline std::uint64_t tag(int start, int log_stride, int size, int root, std::size_t bytes) noexcept {
  std::uint64_t h = 0x9e3779b97f4a7c15ull;
  for (std::uint64_t v : {std::uint64_t(unsigned(start)), std::uint64_t(unsigned(log_stride)), std::uint64_t(unsigned(size)),
                          std::uint64_t(unsigned(root)), std::uint64_t(bytes)})
    h = (h ^ v) * 0x100000001b3ull;
  return (h >> 32) ^ (h & 0xffffffffu);
}
constexpr std::uint64_t head(std::uint64_t seq, std::uint64_t tag) noexcept { return (seq & 0xffffffffu) | tag << 32; }

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
  RingEntry& e = rt.rings(to).entries[me][seq % kRingDepth];
  if (bytes) std::memcpy(e.data, data, bytes);
  std::atomic_ref<std::uint64_t>(e.head).store(head(seq, tag), std::memory_order_release);
}

// Member: takes the next broadcast from world PE `from` into dest.
inline void receive(Runtime& rt, int from, std::uint64_t tag, void* dest, std::size_t bytes) noexcept {
  RingBook& book = rt.ring_book();
  BcastRings& mine = rt.rings(rt.my_pe());
  const std::uint64_t seq = ++book.taken[static_cast<std::size_t>(from)];
  RingEntry& e = mine.entries[from][seq % kRingDepth];
  std::atomic_ref<std::uint64_t> h(e.head);
  std::uint64_t got = 0;
  wait_word(rt, "the broadcast's root to write the data into this PE's ring", &e.head, [&] {
    got = h.load(std::memory_order_acquire);
    return (got & 0xffffffffu) == (seq & 0xffffffffu);
  });
  if (got != head(seq, tag))
    core::fatal("shmem_broadcast",
                "PE %d's next broadcast to this PE is not the one this PE called (tag %#llx, expected %#llx): the "
                "members of an active set must make the same broadcast calls in the same order",
                from, static_cast<unsigned long long>(got >> 32), static_cast<unsigned long long>(tag));
  if (bytes) std::memcpy(dest, e.data, bytes);
  std::atomic_ref<std::uint64_t>(mine.consumed[from]).store(seq, std::memory_order_release);
}

}  // namespace shmem::coll::ring
