#pragma once
// Pushed small fcollects, alltoalls and reductions for active sets (up to kMaxMembers PEs):
// every member writes its contribution straight into a slot of every other member's pSync and
// raises the slot's state; a member then waits for its own slots, uses them and empties them.
// One one-way hand-off per call, where the pull algorithms of algos.hpp need two barriers
// and a read of every peer.
//
// pSync layout (core::kSyncSize longs): words [0, kHeadWords) belong to active_set.cpp. The
// slot area is kAreaWords words starting at the first cache-line boundary at or after word
// kHeadWords (the offset is the same on every PE: symmetric objects share their alignment),
// split into size - 1 slots of slot_words(size) words: slot j of member r receives from member
// (r + 1 + j) % size. A slot is one state word, then data.
//
// States: 0 (SHMEM_SYNC_VALUE) empty, its data words zero too; full(kind) once written. Only
// member (r + 1 + j) % size writes slot j of member r: it waits for the slot to be empty, writes
// the data, then the state. In a conforming program the slot is always empty by then, since the
// specification lets a pSync be reused only once every earlier call on it has completed
// everywhere; a program that reuses a pSync early is still served in order, and one whose
// members call different collectives on the same pSync gets an error naming both.
#include <atomic>
#include <cstdint>
#include <cstring>

#include "core/sync_wait.hpp"
#include "coll/ops.hpp"

namespace shmem::coll::push {

constexpr std::size_t kHeadWords = 8;
constexpr std::size_t kAlignWords = 8;  // slack for starting the area on a cache line
constexpr std::size_t kAreaWords = 224;
constexpr int kMaxMembers = 8;
static_assert(core::kSyncSize == kHeadWords + kAlignWords + kAreaWords, "pSync = head + alignment slack + slots");

enum class Kind : long { kFcollect = 1, kReduce, kAlltoall };
constexpr long full(Kind k) noexcept { return 0x100 | static_cast<long>(k); }
inline const char* kind_name(long state) noexcept {
  switch (state & 0xff) {
    case static_cast<long>(Kind::kFcollect): return "shmem_fcollect";
    case static_cast<long>(Kind::kReduce): return "a reduction (shmem_*_to_all)";
    case static_cast<long>(Kind::kAlltoall): return "shmem_alltoall";
    default: return "an unknown collective";
  }
}

// Words per slot for a set of n > 1 members: the area shared out, whole cache lines each.
constexpr std::size_t slot_words(int n) noexcept { return (kAreaWords / static_cast<std::size_t>(n - 1)) & ~std::size_t{7}; }
// Data bytes one slot holds.
constexpr std::size_t capacity(int n) noexcept { return (slot_words(n) - 1) * sizeof(long); }
static_assert(capacity(kMaxMembers) >= 64, "every set size gets at least a cache line of data per slot");

// Whether a set of n members pushes a reduction of `bytes`, or an fcollect or alltoall of
// `bytes` per member pair, through the slots.
constexpr bool fits(int n, std::size_t bytes) noexcept { return n > 1 && n <= kMaxMembers && bytes <= capacity(n); }

// The slot-area offset, in words from pSync's start, for a pSync at `psync` (the same on all PEs).
inline std::size_t area_offset(const long* psync) noexcept {
  const auto head = reinterpret_cast<std::uintptr_t>(psync + kHeadWords);
  return kHeadWords + ((64 - (head & 63)) & 63) / sizeof(long);
}

// Index of sender `from`'s slot among the n - 1 slots of member `owner`.
constexpr int slot_index(int owner, int from, int n) noexcept { return ((from - owner - 1) % n + n) % n; }

// The algorithms below run over a channel C (callers check that the data fits its slots):
// int size(), me(); H claim(int to) (member `to`'s slot for this member, ready to be written);
// void fill(H, Kind, const void* data, std::size_t bytes) (writes and marks it full);
// const char* await(int from, Kind) (this member's slot for `from`, once full: its data);
// void release(int from, std::size_t bytes) (after the data was used).

// The pSync slots of an active set (the channel of legacy collectives), as seen from member
// `me`; G provides rt(), size(), me(), psync_at(i) (member i's pSync as mapped here) and
// local() (this PE's pSync).
template <class G>
class SetSlots {
 public:
  explicit SetSlots(G& g) noexcept
      : g_(g), n_(g.size()), me_(g.me()), off_(area_offset(g.local())), words_(slot_words(g.size())) {}
  int size() const noexcept { return n_; }
  int me() const noexcept { return me_; }

  // Member `to`'s slot for data from this member, once empty (it is, but in a program that
  // reuses a pSync early).
  long* claim(int to) noexcept {
    long* state = at(g_.psync_at(to), to, me_);
    std::atomic_ref<long> st(*state);
    if (__builtin_expect(st.load(std::memory_order_acquire) != 0, 0))
      wait_word(g_.rt(), "a member to take the data of an earlier collective out of its pSync", state,
                [&] { return st.load(std::memory_order_acquire) == 0; });
    return state;
  }
  // Writes `bytes` into a slot returned by claim() and marks it full.
  void fill(long* state, Kind kind, const void* data, std::size_t bytes) noexcept {
    if (bytes) std::memcpy(state + 1, data, bytes);
    std::atomic_ref<long>(*state).store(full(kind), std::memory_order_release);
  }

  // This member's slot for data from member `from`, once full; returns its data.
  const char* await(int from, Kind kind) noexcept {
    long* state = at(g_.local(), me_, from);
    std::atomic_ref<long> st(*state);
    long v = 0;
    wait_word(g_.rt(), "a member's data pushed into pSync", state, [&] {
      v = st.load(std::memory_order_acquire);
      return v != 0;
    });
    if (v != full(kind))
      core::fatal(kind_name(full(kind)),
                  "member %d of the active set called %s with the same pSync while this PE (member %d) is in %s: "
                  "the members of an active set must make the same collective calls in the same order",
                  from, kind_name(v), me_, kind_name(full(kind)));
    return reinterpret_cast<const char*>(state + 1);
  }
  // Empties this member's slot for member `from` once its `bytes` of data have been used,
  // restoring every word to SHMEM_SYNC_VALUE as the specification requires of pSync.
  void release(int from, std::size_t bytes) noexcept {
    long* state = at(g_.local(), me_, from);
    if (bytes) std::memset(state + 1, 0, bytes);
    std::atomic_ref<long>(*state).store(0, std::memory_order_release);
  }

 private:
  G& g_;
  int n_, me_;
  std::size_t off_, words_;

  // The state word of member `owner`'s slot for sender `from`, in `base` (owner's pSync).
  long* at(long* base, int owner, int from) const noexcept {
    return base + off_ + static_cast<std::size_t>(slot_index(owner, from, n_)) * words_;
  }
};

// Both algorithms read all of this member's source before its last fill: a member that has
// every contribution may return and start its next call (a pushed broadcast into what is our
// source here, say) while this one still waits, and must find our source already read.

// Reduction of `bytes` (fitting the channel's slots): take a private copy of the source, push it
// to everyone, then combine all contributions in member order 0, 1, ... (bit-identical results
// everywhere) into a private buffer, and copy that to dest (which may be the source).
template <class C>
void reduce(C& ch, void* dest, const void* source, std::size_t nelems, std::size_t elem, core::Combine combine) noexcept {
  const int n = ch.size(), me = ch.me();
  const std::size_t bytes = nelems * elem;
  alignas(64) char mine[capacity(2)];
  if (bytes) std::memcpy(mine, source, bytes);
  for (int k = 1; k < n; ++k) ch.fill(ch.claim((me + k) % n), Kind::kReduce, mine, bytes);
  alignas(64) char result[capacity(2)];
  auto contribution = [&](int i) -> const void* { return i == me ? mine : ch.await(i, Kind::kReduce); };
  const void* first = contribution(0);
  combine(result, first, contribution(1), nelems);
  for (int i = 2; i < n; ++i) combine(result, result, contribution(i), nelems);
  for (int i = 0; i < n; ++i)
    if (i != me) ch.release(i, bytes);
  if (bytes) std::memcpy(dest, result, bytes);
}

// fcollect (stride 0) and alltoall (stride = block), blocks fitting the channel's slots: member
// `to` gets this member's block at source + to * stride, through its slot, and copies it into
// its own dest + me * block. Nothing is written into another member's dest, so a member that
// is still reading its dest from an earlier call loses nothing to a faster one.
template <class C>
void gather(C& ch, Kind kind, void* dest, const void* source, std::size_t block, std::size_t stride) noexcept {
  const int n = ch.size(), me = ch.me();
  char* out = static_cast<char*>(dest);
  auto block_for = [&](int pe) { return static_cast<const char*>(source) + static_cast<std::size_t>(pe) * stride; };
  if (block) std::memmove(out + static_cast<std::size_t>(me) * block, block_for(me), block);
  for (int k = 1; k < n; ++k) {
    const int to = (me + k) % n;
    ch.fill(ch.claim(to), kind, block_for(to), block);
  }
  for (int k = 1; k < n; ++k) {
    const int from = (me + n - k) % n;
    const char* data = ch.await(from, kind);
    if (block) std::memcpy(out + static_cast<std::size_t>(from) * block, data, block);
    ch.release(from, block);
  }
}

}  // namespace shmem::coll::push
