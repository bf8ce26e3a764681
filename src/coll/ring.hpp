#pragma once
// Rings: the channel of tiny active-set collectives, broadcasts of up to kRingBytes and
// fcollects, alltoalls and reductions of up to kRingBytes per member pair. Every PE's internal
// area holds, for each sender world PE below kRingPEs, a ring of kRingDepth 16-byte entries
// (four to a cache line) that only that sender writes: data, then a head word with the
// sequence number and a tag. A sender writes the next entry of each receiver's ring; a receiver
// waits for the entry with its next sequence number from that sender. Nothing is cleared, so
// the sender's stores find lines the receiver only read, several entries travel in one line,
// and the sender needs no word of the receiver's until it is kRingDepth messages ahead of what
// it last saw the receiver take (its `consumed` word, read then and cached in RingBook.credit):
// streams of small broadcasts pipeline, where a pSync flag would cost the root a blocking line
// transfer per call, and a reduction or fcollect costs each member pair one line transfer each
// way, where pSync slots also need the receiver to empty its slot (which the sender's next
// store then has to take back) and the sender to check that it is empty.
//
// The order of the messages a sender sends a receiver is the order the receiver takes them in,
// so rings serve only jobs in which no PE runs collectives from several threads at once (every
// PE below SHMEM_THREAD_MULTIPLE) and sets whose members make the same collective calls in the
// same order, as the specification requires; a receiver that finds another call's tag in its
// next entry reports both and ends the job. With more PEs than CPUs a sender that is
// kRingDepth calls ahead would wait for the scheduler, where the pSync paths never make it
// wait, so rings are also off then unless SHMEM_COLL_RINGS=on (tests run them that way).
// RingBook.usable holds the conditions, agreed at init.
#include <atomic>
#include <cstdint>
#include <cstring>

#include "coll/push.hpp"
#include "core/sync_wait.hpp"
#include "base/log.hpp"
#include "core/runtime.hpp"

namespace shmem::coll::ring {

// What kind of call a ring message belongs to (the top bits of its tag): a broadcast, or one of
// the pushed collectives of push.hpp.
constexpr unsigned kBroadcast = 0;
constexpr unsigned kind_of(push::Kind k) noexcept { return static_cast<unsigned>(k); }
inline const char* kind_label(unsigned kind) noexcept {
  return kind == kBroadcast ? "shmem_broadcast" : push::kind_name(push::full(static_cast<push::Kind>(kind)));
}

// What identifies one call to the receiver (32 bits): the kind in the top four, below them a
// hash of the set, the root (broadcasts) and the size.
inline std::uint64_t tag(unsigned kind, int start, int log_stride, int size, int root, std::size_t bytes) noexcept {
  std::uint64_t h = 0x9e3779b97f4a7c15ull;
  for (std::uint64_t v : {std::uint64_t(unsigned(start)), std::uint64_t(unsigned(log_stride)), std::uint64_t(unsigned(size)),
                          std::uint64_t(unsigned(root)), std::uint64_t(bytes)})
    h = (h ^ v) * 0x100000001b3ull;
  return std::uint64_t{kind & 0xfu} << 28 | (((h >> 32) ^ h) & 0x0fffffffu);
}
constexpr std::uint64_t head(std::uint64_t seq, std::uint64_t tag) noexcept { return (seq & 0xffffffffu) | tag << 32; }

// Whether a call moving `bytes` (per member pair) whose senders are world PEs up to
// `top_sender` can go through the rings.
inline bool usable(const Runtime& rt, int top_sender, std::size_t bytes) noexcept {
  return bytes <= kRingBytes && top_sender < kRingPEs && rt.ring_book().usable;
}

// Sender: writes `bytes` of `data` into world PE `to`'s ring for this PE.
inline void send(Runtime& rt, int to, std::uint64_t tag, const void* data, std::size_t bytes) noexcept {
  RingBook& book = rt.ring_book();
  const int me = rt.my_pe();
  const std::uint64_t seq = ++book.sent[static_cast<std::size_t>(to)];
  std::uint64_t& credit = book.credit[static_cast<std::size_t>(to)];
  if (seq > credit + kRingDepth) {
    std::atomic_ref<std::uint64_t> consumed(rt.rings(to).consumed[me]);
    wait_word(rt, "a member to take earlier messages out of its ring", &rt.rings(to).consumed[me],
              [&] { return (credit = consumed.load(std::memory_order_acquire)) + kRingDepth >= seq; });
  }
  RingEntry& e = rt.rings(to).entries[me][seq % kRingDepth];
  if (bytes) std::memcpy(e.data, data, bytes);
  std::atomic_ref<std::uint64_t>(e.head).store(head(seq, tag), std::memory_order_release);
}

// Ends the job: the next message from world PE `from` has tag `got` where this PE expects `want`.
[[noreturn]] inline void mismatch(int from, std::uint64_t got, std::uint64_t want) noexcept {
  const auto got_kind = static_cast<unsigned>(got >> 28), want_kind = static_cast<unsigned>(want >> 28);
  if (got_kind != want_kind)
    core::fatal(kind_label(want_kind),
                "PE %d called %s while this PE is in %s: the members of an active set must make the same "
                "collective calls in the same order",
                from, kind_label(got_kind), kind_label(want_kind));
  core::fatal(kind_label(want_kind),
              "PE %d's next %s to this PE is not the one this PE called (another set, root or size; tag %#llx, "
              "expected %#llx): the members of an active set must make the same %s calls in the same order",
              from, kind_label(want_kind), static_cast<unsigned long long>(got), static_cast<unsigned long long>(want),
              want_kind == kBroadcast ? "broadcast" : "collective");
}

// Receiver: waits for the next message from world PE `from` and returns its data, valid until
// done(from) (the sender cannot reach the entry again before that).
inline const unsigned char* take(Runtime& rt, int from, std::uint64_t tag) noexcept {
  RingBook& book = rt.ring_book();
  const std::uint64_t seq = ++book.taken[static_cast<std::size_t>(from)];
  RingEntry& e = rt.rings(rt.my_pe()).entries[from][seq % kRingDepth];
  std::atomic_ref<std::uint64_t> h(e.head);
  std::uint64_t got = 0;
  wait_word(rt, "a member to write its data into this PE's ring", &e.head, [&] {
    got = h.load(std::memory_order_acquire);
    return (got & 0xffffffffu) == (seq & 0xffffffffu);
  });
  if (got != head(seq, tag)) mismatch(from, got >> 32, tag);
  return e.data;
}
// Receiver: done with the message take(from) returned; tells the sender.
inline void done(Runtime& rt, int from) noexcept {
  std::atomic_ref<std::uint64_t>(rt.rings(rt.my_pe()).consumed[from])
      .store(rt.ring_book().taken[static_cast<std::size_t>(from)], std::memory_order_release);
}

// Member of a broadcast: takes the next one from world PE `from` into dest.
inline void receive(Runtime& rt, int from, std::uint64_t tag, void* dest, std::size_t bytes) noexcept {
  const unsigned char* data = take(rt, from, tag);
  if (bytes) std::memcpy(dest, data, bytes);
  done(rt, from);
}

// The rings as the channel of push.hpp's algorithms, for a set (G provides rt(), size(),
// me(), world(i) and set, the core::ActiveSet) and one call of `kind` moving `bytes` per member
// pair: member i is world PE g.world(i).
template <class G>
class Channel {
 public:
  Channel(G& g, push::Kind kind, std::size_t bytes) noexcept
      : g_(g), tag_(tag(kind_of(kind), g.set.start, g.set.log_stride, g.size(), 0, bytes)) {}
  int size() const noexcept { return g_.size(); }
  int me() const noexcept { return g_.me(); }
  int claim(int to) const noexcept { return to; }
  void fill(int to, push::Kind, const void* data, std::size_t bytes) noexcept {
    send(g_.rt(), g_.world(to), tag_, data, bytes);
  }
  const char* await(int from, push::Kind) noexcept {
    return reinterpret_cast<const char*>(take(g_.rt(), g_.world(from), tag_));
  }
  void release(int from, std::size_t) noexcept { done(g_.rt(), g_.world(from)); }

 private:
  G& g_;
  std::uint64_t tag_;
};

}  // namespace shmem::coll::ring
