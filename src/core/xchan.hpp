#pragma once
// The channel between host leaders (core/xarea.hpp holds its memory): credit-based messages
// over the remote transport, with no handshake per call.
//
// A message from leader S to leader R travels in chunks of at most one box. Chunk n goes into
// R's box (S, n % kXDepth): S puts the data, fences, and adds one to R's seq[S] (one fence for
// all the chunks a pass of transfer() puts, to every leader, and one add per receiver); R waits for
// seq[S] > n, takes the chunk out, and adds one to S's ack[R]. S writes chunk n only once
// ack[R] > n - kXDepth, i.e. once R has taken the chunk that used the box before. Both sides
// count chunks per pair over the life of the channel, so nothing is ever cleared during a
// call, calls need no entry synchronisation, and a sender that runs ahead into the next call
// is held back only by the boxes. Both sides know every message's size from the collective's
// arguments, so chunks carry no header.
//
// transfer() moves several messages at once, in both directions, taking whatever can move,
// so no pattern of sends and receives can deadlock on the boxes.
//
// Addressing A (a team slot keyed by host index, or the active-set channel keyed by world PE):
//   int my_key() const; std::size_t box_bytes() const;
//   std::size_t seq_off(int key) const, ack_off(int key) const;  // heap offsets, every PE
//   std::size_t box_off(int receiver, int sender, std::uint64_t chunk) const;
//   std::uint64_t& sent(int key); std::uint64_t& taken(int key);  // this PE's counters
#include <algorithm>
#include <atomic>
#include <cstring>
#include <vector>

#include "base/log.hpp"
#include "core/runtime.hpp"
#include "core/team_ops.hpp"

namespace shmem::xchan {

struct Piece {
  char* p;
  std::size_t n;
};

// One message to or from another leader: its bytes are the pieces, in order. A received
// message with `combine` set is reduced into its one piece (piece = piece OP data, elements of
// `elem` bytes) instead of copied.
struct Msg {
  int pe = -1;   // the other leader's world PE
  int key = -1;  // its key in the channel
  std::vector<Piece> pieces;
  core::Combine combine = nullptr;
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

template <class A>
bool can_send(Runtime& rt, A& a, const Msg& m) noexcept {
  std::atomic_ref<std::uint64_t> ack(*word(rt, a.ack_off(m.key)));
  return a.sent(m.key) - ack.load(std::memory_order_acquire) < static_cast<std::uint64_t>(kXDepth);
}
template <class A>
bool can_take(Runtime& rt, A& a, const Msg& m) noexcept {
  std::atomic_ref<std::uint64_t> seq(*word(rt, a.seq_off(m.key)));
  return seq.load(std::memory_order_acquire) > a.taken(m.key);
}

// Puts the next chunk of m into the receiver's box; its seq word is raised later by
// signal(), after one fence for every chunk put in the same pass.
template <class A>
void put_chunk(Runtime& rt, A& a, Msg& m, std::vector<char>& pack, const char* what) noexcept {
  transport::RemoteTransport& tr = *rt.remote();
  std::uint64_t& n = a.sent(m.key);
  const std::size_t c = std::min(a.box_bytes(), m.total - m.done);
  const std::size_t box = a.box_off(m.key, a.my_key(), n);
  if (m.pieces[m.piece].n - m.piece_off >= c) {
    tr.put(m.pe, transport::Seg::kHeap, box, m.pieces[m.piece].p + m.piece_off, c, false, what);
    walk(m, c, [](char*, std::size_t, std::size_t) {});
  } else {  // several pieces: packed into one put
    pack.resize(c);
    walk(m, c, [&](char* p, std::size_t k, std::size_t at) { std::memcpy(pack.data() + at, p, k); });
    tr.put(m.pe, transport::Seg::kHeap, box, pack.data(), c, false, what);
  }
  ++n;
}

template <class A>
void signal(Runtime& rt, A& a, const Msg& m, std::uint64_t chunks, const char* what) noexcept {
  rt.remote()->amo(m.pe, transport::Seg::kHeap, a.seq_off(a.my_key()), AmoOp::kAdd, 8, chunks, 0, nullptr, what);
}

template <class A>
void take_chunk(Runtime& rt, A& a, Msg& m, const char* what) noexcept {
  std::uint64_t& n = a.taken(m.key);
  const std::size_t c = std::min(a.box_bytes(), m.total - m.done);
  const char* box = rt.heap_at(rt.my_pe(), a.box_off(a.my_key(), m.key, n));
  if (m.combine) {
    char* out = m.pieces[0].p + m.done;
    m.combine(out, out, box, c / m.elem);
    m.done += c;
  } else {
    walk(m, c, [&](char* p, std::size_t k, std::size_t at) { std::memcpy(p, box + at, k); });
  }
  ++n;
  rt.remote()->amo(m.pe, transport::Seg::kHeap, a.ack_off(a.my_key()), AmoOp::kAdd, 8, 1, 0, nullptr, what);
}

}  // namespace detail

// Moves every message of `sends` to, and of `recvs` from, the other leaders. Returns when all
// of them are complete on this side.
template <class A>
void transfer(Runtime& rt, A& a, std::vector<Msg>& sends, std::vector<Msg>& recvs, const char* what) noexcept {
  std::vector<char> pack;
  for (Msg& m : sends)
    for (const Piece& p : m.pieces) m.total += p.n;
  for (Msg& m : recvs)
    for (const Piece& p : m.pieces) m.total += p.n;
  std::vector<std::uint64_t> put(sends.size());
  for (;;) {
    bool left = false, moved = false, any_put = false;
    for (std::size_t i = 0; i < sends.size(); ++i) {
      Msg& m = sends[i];
      put[i] = 0;
      while (m.done < m.total) {
        left = true;
        if (!detail::can_send(rt, a, m)) break;
        detail::put_chunk(rt, a, m, pack, what);
        ++put[i];
        any_put = moved = true;
      }
    }
    if (any_put) {  // one fence orders every chunk of this pass before its seq word
      rt.remote()->fence();
      for (std::size_t i = 0; i < sends.size(); ++i)
        if (put[i]) detail::signal(rt, a, sends[i], put[i], what);
    }
    for (Msg& m : recvs)
      while (m.done < m.total) {
        left = true;
        if (!detail::can_take(rt, a, m)) break;
        detail::take_chunk(rt, a, m, what);
        moved = true;
      }
    if (!left) return;
    if (moved) continue;
    auto ready = [&] {
      for (const Msg& m : sends)
        if (m.done < m.total && detail::can_send(rt, a, m)) return true;
      for (const Msg& m : recvs)
        if (m.done < m.total && detail::can_take(rt, a, m)) return true;
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

}  // namespace shmem::xchan
