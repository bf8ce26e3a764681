#pragma once
// The channel between host leaders (core/xhost_area.hpp holds its memory): credit-based messages
// over the remote transport, with no handshake per call.
//
// Leader S writes to leader R through one byte ring of R's area (ring_bytes() long), as a stream
// that both sides count in bytes over the channel's life. Every message starts at the next
// multiple of 64 of the stream (so a chunk of a reduction never splits an element) and travels
// in chunks: S puts a chunk at stream position pos (ring offset pos % ring_bytes(), never across
// the ring's end; at most half a ring; a multiple of 64 bytes but for a message's last), fences,
// and adds the bytes it moved to R's seq[S] (one fence for all the chunks a pass of transfer()
// puts, to every leader, and one add per receiver). R takes whatever seq[S] says has arrived
// and, once it holds at least a quarter of a ring of taken bytes not yet acknowledged, adds
// them to S's ack[R]. S writes only into bytes R has acknowledged taking. A blocked sender
// always has more than a quarter ring in flight that R will take (and then acknowledge), so
// nothing waits forever; small messages (a broadcast of a few bytes) are acknowledged once
// per hundreds of calls, so a leader that runs ahead into later calls is held back only when
// it is a ring ahead. Nothing is cleared during a call, calls need no entry synchronisation,
// and both sides know every message's size from the collective's arguments, so chunks carry
// no header.
//
// transfer() moves several messages at once, in both directions, taking whatever can move,
// so no pattern of sends and receives can deadlock on the rings.
//
// Addressing A (a team slot keyed by host index, or the active-set channel keyed by world PE):
//   int my_key() const; std::size_t ring_bytes() const;  // a multiple of 64
//   std::size_t seq_off(int key) const, ack_off(int key) const;  // heap offsets, every PE
//   std::size_t ring_off(int receiver, int sender) const;        // the ring sender writes
//   XPair& pair(int key);                                        // this PE's counters
#include <algorithm>
#include <atomic>
#include <cstring>
#include <vector>

#include "base/log.hpp"
#include "core/runtime.hpp"
#include "coll/ops.hpp"

namespace shmem::xhost_channel {

struct Piece {
  char* p;
  std::size_t n;
};

// One message to or from another leader: its bytes are the pieces, in order. A received
// message with `combine` set is reduced into its one piece instead of copied: piece = first OP
// data, elements of `elem` bytes, where `first` (as long as the piece; it may be the piece
// itself, the default) holds the left operand.
struct Msg {
  int pe = -1;   // the other leader's world PE
  int key = -1;  // its key in the channel
  std::vector<Piece> pieces;
  core::Combine combine = nullptr;
  const char* first = nullptr;  // the left operand of combine (null: the piece itself)
  std::size_t elem = 1;
  // progress
  std::size_t total = 0, done = 0, piece = 0, piece_off = 0;

  Msg() = default;
  Msg(int pe_, int key_) : pe(pe_), key(key_) {}
  void add(const void* p, std::size_t n) {
    if (n) pieces.push_back(Piece{const_cast<char*>(static_cast<const char*>(p)), n});
  }
};

namespace detail {

inline std::uint64_t* word(Runtime& rt, std::size_t off) noexcept {
  return reinterpret_cast<std::uint64_t*>(rt.heap_at(rt.my_pe(), off));
}

// Walks c bytes of m's pieces from its position, calling f(ptr, bytes, offset_in_chunk).
template <class F>
void walk(Msg& m, std::size_t c, F&& f) noexcept {
  std::size_t at = 0;
  while (at < c) {
    Piece& p = m.pieces[m.piece];
    const std::size_t k = std::min(c - at, p.n - m.piece_off);
    f(p.p + m.piece_off, k, at);
    at += k;
    m.piece_off += k;
    if (m.piece_off == p.n) ++m.piece, m.piece_off = 0;
  }
  m.done += c;
}

constexpr std::uint64_t kAlign = 64;
constexpr std::uint64_t align_up(std::uint64_t pos) noexcept { return (pos + kAlign - 1) & ~(kAlign - 1); }
// Where m's next byte sits in its pair's stream: a message starts on a multiple of 64.
inline std::uint64_t next_pos(const Msg& m, std::uint64_t count) noexcept { return m.done == 0 ? align_up(count) : count; }

// Bytes of m's next chunk that may be put now (0: wait for an acknowledgement).
template <class A>
std::size_t sendable(Runtime& rt, A& a, const Msg& m) noexcept {
  const std::uint64_t ring = a.ring_bytes(), pos = next_pos(m, a.pair(m.key).sent);
  const std::uint64_t acked = std::atomic_ref<std::uint64_t>(*word(rt, a.ack_off(m.key))).load(std::memory_order_acquire);
  const std::uint64_t left = m.total - m.done, used = pos - acked;
  if (used >= ring) return 0;
  std::uint64_t c = std::min({left, ring / 2, ring - used, ring - pos % ring});
  if (c < left) c &= ~(kAlign - 1);
  return static_cast<std::size_t>(c);
}
// Bytes of m's next chunk that have arrived (0: none yet).
template <class A>
std::size_t takeable(Runtime& rt, A& a, const Msg& m) noexcept {
  const std::uint64_t ring = a.ring_bytes(), pos = next_pos(m, a.pair(m.key).taken);
  const std::uint64_t seq = std::atomic_ref<std::uint64_t>(*word(rt, a.seq_off(m.key))).load(std::memory_order_acquire);
  if (seq <= pos) return 0;
  return static_cast<std::size_t>(std::min({seq - pos, static_cast<std::uint64_t>(m.total - m.done), ring - pos % ring}));
}

// Puts the next c bytes of m into the receiver's ring; its seq word is raised later by
// signal(), after one fence for every chunk put in the same pass.
template <class A>
void put_chunk(Runtime& rt, A& a, Msg& m, std::size_t c, std::vector<char>& pack, const char* what) noexcept {
  transport::RemoteTransport& tr = *rt.remote();
  XPair& pr = a.pair(m.key);
  pr.sent = next_pos(m, pr.sent);
  const std::size_t at = a.ring_off(m.key, a.my_key()) + static_cast<std::size_t>(pr.sent % a.ring_bytes());
  if (m.pieces[m.piece].n - m.piece_off >= c) {
    tr.put(m.pe, transport::Seg::kHeap, at, m.pieces[m.piece].p + m.piece_off, c, false, what);
    walk(m, c, [](char*, std::size_t, std::size_t) {});
  } else {  // several pieces: packed into one put
    pack.resize(c);
    walk(m, c, [&](char* p, std::size_t k, std::size_t off) { std::memcpy(pack.data() + off, p, k); });
    tr.put(m.pe, transport::Seg::kHeap, at, pack.data(), c, false, what);
  }
  pr.sent += c;
}

template <class A>
void signal(Runtime& rt, A& a, const Msg& m, std::uint64_t bytes, const char* what) noexcept {
  rt.remote()->signal_add(m.pe, transport::Seg::kHeap, a.seq_off(a.my_key()), bytes, what);
}

template <class A>
void take_chunk(Runtime& rt, A& a, Msg& m, std::size_t c, const char* what) noexcept {
  XPair& pr = a.pair(m.key);
  pr.taken = next_pos(m, pr.taken);
  const char* ring = rt.heap_at(rt.my_pe(), a.ring_off(a.my_key(), m.key) + static_cast<std::size_t>(pr.taken % a.ring_bytes()));
  if (m.combine) {
    char* out = m.pieces[0].p + m.done;
    m.combine(out, (m.first ? m.first : m.pieces[0].p) + m.done, ring, c / m.elem);
    m.done += c;
  } else {
    walk(m, c, [&](char* p, std::size_t k, std::size_t at) { std::memcpy(p, ring + at, k); });
  }
  pr.taken += c;
  if (pr.taken - pr.acked >= a.ring_bytes() / 4) {
    rt.remote()->signal_add(m.pe, transport::Seg::kHeap, a.ack_off(a.my_key()), pr.taken - pr.acked, what);
    pr.acked = pr.taken;
  }
}

}  // namespace detail

// Moves every message of `sends` to, and of `recvs` from, the other leaders. Returns when all
// of them are complete on this side.
template <class A>
void transfer(Runtime& rt, A& a, std::vector<Msg>& sends, std::vector<Msg>& recvs, const char* what) noexcept {
  rt.wait_policy().entered();  // also when everything is there already (WaitPolicy::activity)
  std::vector<char> pack;
  for (Msg& m : sends)
    for (const Piece& p : m.pieces) m.total += p.n;
  for (Msg& m : recvs)
    for (const Piece& p : m.pieces) m.total += p.n;
  std::vector<std::uint64_t> moved_bytes(sends.size());
  for (;;) {
    bool left = false, moved = false, any_put = false;
    for (std::size_t i = 0; i < sends.size(); ++i) {
      Msg& m = sends[i];
      const std::uint64_t before = a.pair(m.key).sent;
      while (m.done < m.total) {
        left = true;
        const std::size_t c = detail::sendable(rt, a, m);
        if (!c) break;
        detail::put_chunk(rt, a, m, c, pack, what);
        any_put = moved = true;
      }
      moved_bytes[i] = a.pair(m.key).sent - before;
    }
    if (any_put) {  // one fence orders every chunk of this pass before its seq word
      rt.remote()->fence();
      for (std::size_t i = 0; i < sends.size(); ++i)
        if (moved_bytes[i]) detail::signal(rt, a, sends[i], moved_bytes[i], what);
    }
    for (Msg& m : recvs)
      while (m.done < m.total) {
        left = true;
        const std::size_t c = detail::takeable(rt, a, m);
        if (!c) break;
        detail::take_chunk(rt, a, m, c, what);
        moved = true;
      }
    if (!left) return;
    if (moved) continue;
    auto ready = [&] {
      for (const Msg& m : sends)
        if (m.done < m.total && detail::sendable(rt, a, m)) return true;
      for (const Msg& m : recvs)
        if (m.done < m.total && detail::takeable(rt, a, m)) return true;
      return false;
    };
    wait_for(rt.wait_policy(), ready, [&](double waited) {
      int waiting_on = -1;
      for (const Msg& m : recvs)
        if (m.done < m.total) waiting_on = m.pe;
      for (const Msg& m : sends)
        if (waiting_on < 0 && m.done < m.total) waiting_on = m.pe;
      log::write(log::Level::kFatal, "wait",
                 "%s timed out after %.1f s (SHMEM_WAIT_TIMEOUT=%g): PE %d waited for the host leader PE %d (on "
                 "'%s') to exchange data between hosts",
                 what, waited, rt.wait_policy().timeout_s, rt.my_pe(), waiting_on,
                 waiting_on >= 0 ? rt.host_of(waiting_on).c_str() : "?");
      rt.abort_job(1);
    });
  }
}

}  // namespace shmem::xhost_channel
