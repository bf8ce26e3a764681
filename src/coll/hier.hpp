#pragma once
// Collectives on teams and active sets that span hosts: hierarchical. Inside a host the
// members meet through shared memory (node_sync, and loads and stores into each other's
// mapped buffers); between hosts only the host leaders (a host's first member) talk, through
// the leader channel (coll/xhost_channel.hpp). Every algorithm has the same frame:
//
//   node_sync            every member of this host has entered: its source and dest are ready
//   leaders: the between-host phase, reading and writing this host's members' buffers directly
//   node_sync            the leader is done: results are in place, sources no longer read
//   members: copy their result from the leader's buffer, where there is one, and node_sync
//
// Between hosts, reductions and gathers of up to SHMEM_COLL_XHOST_DIRECT bytes per PE send
// every leader's part straight to every other leader (one network latency); larger ones run a
// ring (reduce-scatter + allgather, or the allgather alone), which moves each byte over each
// link once. Broadcasts follow a binomial tree over the hosts, pushed inside hosts up to
// SHMEM_COLL_XHOST_PUSH bytes (push_broadcast()). choose() is the one place of
// that choice. Results are bit-identical on every PE: a host's part is combined in member
// order, and parts in host order (direct) or along one ring path per segment.
//
// G provides: Runtime& rt(); int size(), me(), world(int member); const HostLayout& layout();
// void node_sync(), leader_sync(); A& chan() (xhost_channel addressing); int key(int host) (the host's
// leader in the channel); const char* name(); char* at(const void* sym, int member) (member's
// copy of a symmetric address, mapped here: members of this host only); std::uint64_t*
// word(int member, int k) (two words per member that this host's members share, for collect);
// void push_signal(int member) (tells a member of this host that this PE wrote its copy of a
// broadcast), push_wait(int pusher) (waits for this PE's copy from a member of this host).
#include <algorithm>
#include <atomic>
#include <cstring>
#include <vector>

#include "core/host_layout.hpp"
#include "coll/xhost_channel.hpp"

namespace shmem::coll::hier {

enum class Algo { kDirect, kRing };
// Direct exchange costs every leader hosts - 1 messages per call: past this many hosts the
// ring is used at any size.
constexpr int kDirectMaxHosts = 32;
// Gathers move the same bytes either way (every leader sends and receives hosts - 1 bundles),
// so up to this many hosts they stay direct at every size: one step instead of hosts - 1, and
// no leader waits for a slow neighbour's forwarding. (A direct reduce-scatter + allgather was
// measured slower than the ring for large reductions at 4 hosts over TCP, 1.5-2x: the ring
// combines each chunk as it arrives, in cache, with one flow in and one out per leader.)
constexpr int kGatherDirectMaxHosts = 8;

inline Algo choose(const Runtime& rt, std::size_t bytes_per_pe, int hosts, bool gather = false) noexcept {
  const CollXhostAlgo forced = rt.config().coll_xhost_algo;
  if (forced == CollXhostAlgo::kDirect) return Algo::kDirect;
  if (forced == CollXhostAlgo::kRing) return Algo::kRing;
  if (gather && hosts <= kGatherDirectMaxHosts) return Algo::kDirect;
  return bytes_per_pe <= rt.config().coll_xhost_direct && hosts <= kDirectMaxHosts ? Algo::kDirect : Algo::kRing;
}

// Member world_pe's copy of symmetric `sym` as mapped here (this PE's own address for itself):
// the groups' at(); a buffer that is not symmetric ends the job naming the routine.
inline char* member_at(const Runtime& rt, const void* sym, int world_pe, const char* func) noexcept {
  if (world_pe == rt.my_pe()) return static_cast<char*>(const_cast<void*>(sym));
  char* p = rt.translate(sym, world_pe);
  if (!p) core::fatal(func, "%s is not symmetric (collective buffers must be)", rt.describe(sym).c_str());
  return p;
}

template <class G>
xhost_channel::Msg msg(G& g, int host) {
  return xhost_channel::Msg(g.world(g.layout().leader(host)), g.key(host));
}

// ---- broadcast ---------------------------------------------------------------------------------
// Host leaders pass the data down a binomial tree of hosts rooted at the root's host; between
// them the leader channel, so a leader never waits for the network but for the data it needs.
//
// Small broadcasts (up to SHMEM_COLL_XHOST_PUSH bytes) are pushed inside every host: the root
// writes its host's members' dests, a leader of another host its members' dests once its copy
// has come, and every PE waits only for its own copy (g.push_signal / g.push_wait: counting
// words, one per pusher on this host) — no host barrier, so back-to-back broadcasts overlap
// and the root returns once its copies are written. The specification has every dest ready
// before any PE calls the broadcast, which is what lets a pusher write without asking. On the
// root's host the root pushes to its leader first, and that leader forwards from its dest.
//
// Larger ones: each leader receives into its own dest, then every member copies from its
// host's copy (the root's source on the root's host, the leader's dest elsewhere) between two
// host barriers (and one before, on the root's host when the root is not its leader).
template <class G>
void broadcast_tree(G& g, void* dest, const char* here, std::size_t bytes, int hr) {
  const HostLayout& l = g.layout();
  const int hosts = l.hosts();
  const int v = (l.my_host - hr + hosts) % hosts;  // this host's place in the tree
  std::vector<xhost_channel::Msg> sends, recvs;
  int mask = 1;
  for (; mask < hosts; mask <<= 1)
    if (v & mask) {
      recvs.push_back(msg(g, (v - mask + hr) % hosts));
      recvs.back().add(dest, bytes);
      break;
    }
  if (!recvs.empty()) xhost_channel::transfer(g.rt(), g.chan(), sends, recvs, g.name());
  for (int m = mask >> 1; m > 0; m >>= 1)
    if (v + m < hosts) {
      sends.push_back(msg(g, (v + m + hr) % hosts));
      sends.back().add(here, bytes);
    }
  recvs.clear();
  if (!sends.empty()) xhost_channel::transfer(g.rt(), g.chan(), sends, recvs, g.name());
}

inline bool push_broadcast(const Runtime& rt, std::size_t bytes) noexcept { return bytes <= rt.config().coll_xhost_push; }

template <class G>
void broadcast_pushed(G& g, void* dest, const void* source, std::size_t bytes, int root, bool write_root) {
  const HostLayout& l = g.layout();
  const int hr = l.host_of[static_cast<std::size_t>(root)], me = g.me();
  const int leader = l.leader(l.my_host), pusher = l.my_host == hr ? root : leader;
  const char* copy = static_cast<const char*>(me == root ? source : dest);  // what this PE passes on
  if (me != pusher && (l.my_host == hr || !l.is_leader())) g.push_wait(pusher);
  auto push = [&](int m) {
    std::memcpy(g.at(dest, m), copy, bytes);
    g.push_signal(m);
  };
  if (me == root && leader != root) push(leader);  // the leader forwards to the other hosts
  if (l.is_leader()) broadcast_tree(g, dest, copy, bytes, hr);
  if (me == pusher)
    for (int m : l.mine())
      if (m != me && !(me == root && m == leader)) push(m);
  if (me == root && write_root && dest != source) std::memmove(dest, source, bytes);
}

template <class G>
void broadcast(G& g, void* dest, const void* source, std::size_t bytes, int root, bool write_root) {
  if (bytes == 0) return;
  if (push_broadcast(g.rt(), bytes)) return broadcast_pushed(g, dest, source, bytes, root, write_root);
  const HostLayout& l = g.layout();
  const int hr = l.host_of[static_cast<std::size_t>(root)];
  // A leader writes only its own dest, so only a leader that sends another member's source
  // (the root's, on the root's host) waits for its host's members first.
  if (l.my_host == hr && l.leader(hr) != root) g.node_sync();
  const char* here = l.my_host == hr ? g.at(source, root) : g.at(dest, l.leader(l.my_host));
  if (l.is_leader()) broadcast_tree(g, dest, here, bytes, hr);
  g.node_sync();
  const bool mine_is_here = static_cast<const void*>(here) == dest;
  if (g.me() == root) {
    if (write_root && dest != source) std::memmove(dest, source, bytes);
  } else if (!mine_is_here) {
    std::memcpy(dest, here, bytes);
  }
  g.node_sync();
}

// ---- reductions --------------------------------------------------------------------------------
// Leaders: the host's part (`mine`: the leader's source when it is alone on its host, else
// dest, holding its members' sources combined in member order) and all other hosts' parts
// combined into buf (dest; it may be mine); members copy the leader's dest.
template <class G>
void allreduce_leaders(G& g, char* buf, const char* mine, std::size_t nelems, std::size_t elem, core::Combine combine) {
  const HostLayout& l = g.layout();
  const int hosts = l.hosts(), me = l.my_host;
  const std::size_t bytes = nelems * elem;
  std::vector<xhost_channel::Msg> sends, recvs;
  if (choose(g.rt(), bytes, hosts) == Algo::kDirect) {
    std::vector<std::vector<char>> parts(static_cast<std::size_t>(hosts));
    parts[static_cast<std::size_t>(me)].assign(mine, mine + bytes);
    for (int h = 0; h < hosts; ++h) {
      if (h == me) continue;
      sends.push_back(msg(g, h));
      sends.back().add(parts[static_cast<std::size_t>(me)].data(), bytes);
      parts[static_cast<std::size_t>(h)].resize(bytes);
      recvs.push_back(msg(g, h));
      recvs.back().add(parts[static_cast<std::size_t>(h)].data(), bytes);
    }
    xhost_channel::transfer(g.rt(), g.chan(), sends, recvs, g.name());
    combine(buf, parts[0].data(), parts[1].data(), nelems);
    for (int h = 2; h < hosts; ++h) combine(buf, buf, parts[static_cast<std::size_t>(h)].data(), nelems);
    return;
  }
  // Ring: segment s is elements [s * nelems / hosts, (s + 1) * nelems / hosts), at `base`.
  auto seg_in = [&](const char* base, int s) {
    s = ((s % hosts) + hosts) % hosts;
    const std::size_t lo = nelems * static_cast<std::size_t>(s) / static_cast<std::size_t>(hosts);
    const std::size_t hi = nelems * static_cast<std::size_t>(s + 1) / static_cast<std::size_t>(hosts);
    return xhost_channel::Piece{const_cast<char*>(base) + lo * elem, (hi - lo) * elem};
  };
  auto seg = [&](int s) { return seg_in(buf, s); };
  // Every segment but me's is combined here once, from mine and what the previous host sends,
  // and me's is sent once from mine and written by the allgather, so buf need not hold a copy
  // of mine first.
  const int next = (me + 1) % hosts, prev = (me + hosts - 1) % hosts;
  for (int k = 0; k < hosts - 1; ++k) {  // reduce-scatter: this host ends with segment me + 1
    sends.assign(1, msg(g, next));
    const xhost_channel::Piece out = k == 0 ? seg_in(mine, me) : seg(me - k), in = seg(me - k - 1);
    sends[0].add(out.p, out.n);
    recvs.assign(1, msg(g, prev));
    recvs[0].add(in.p, in.n);
    recvs[0].combine = combine;
    recvs[0].first = seg_in(mine, me - k - 1).p;
    recvs[0].elem = elem;
    xhost_channel::transfer(g.rt(), g.chan(), sends, recvs, g.name());
  }
  for (int k = 0; k < hosts - 1; ++k) {  // allgather of the complete segments
    sends.assign(1, msg(g, next));
    const xhost_channel::Piece out = seg(me + 1 - k), in = seg(me - k);
    sends[0].add(out.p, out.n);
    recvs.assign(1, msg(g, prev));
    recvs[0].add(in.p, in.n);
    xhost_channel::transfer(g.rt(), g.chan(), sends, recvs, g.name());
  }
}

template <class G>
void reduce(G& g, void* dest, const void* source, std::size_t nelems, std::size_t elem, core::Combine combine) {
  if (nelems == 0) return;
  const HostLayout& l = g.layout();
  const std::size_t bytes = nelems * elem;
  const std::vector<int>& local = l.mine();
  g.node_sync();
  if (l.is_leader()) {
    char* out = static_cast<char*>(dest);
    const char* mine = out;
    if (local.size() == 1) {
      mine = static_cast<const char*>(source);
    } else {
      // Chunk by chunk (kept in cache); out may alias this PE's source (the first operand).
      constexpr std::size_t kChunk = 16 * 1024;
      const std::size_t per = std::max<std::size_t>(1, kChunk / elem);
      for (std::size_t i = 0; i < nelems; i += per) {
        const std::size_t m = std::min(per, nelems - i), off = i * elem;
        combine(out + off, g.at(source, local[0]) + off, g.at(source, local[1]) + off, m);
        for (std::size_t k = 2; k < local.size(); ++k) combine(out + off, out + off, g.at(source, local[k]) + off, m);
      }
    }
    allreduce_leaders(g, out, mine, nelems, elem, combine);
  }
  g.node_sync();
  if (!l.is_leader()) std::memcpy(dest, g.at(dest, l.leader(l.my_host)), bytes);
  g.node_sync();
}

// ---- gathers -------------------------------------------------------------------------------------
// Member i's block of sizes[i] bytes lands at offsets[i] of every member's dest. Leaders copy
// their own host's blocks into their dest and exchange host bundles (direct, or around the
// ring); members then copy the leader's whole dest.
template <class G>
void gather_between(G& g, char* out, const void* source, const std::vector<std::size_t>& offsets,
                    const std::vector<std::size_t>& sizes) {
  const HostLayout& l = g.layout();
  const int hosts = l.hosts(), me = l.my_host;
  std::size_t most = 0;
  for (std::size_t s : sizes) most = std::max(most, s);
  for (int m : l.mine())
    if (sizes[static_cast<std::size_t>(m)])
      std::memmove(out + offsets[static_cast<std::size_t>(m)], g.at(source, m), sizes[static_cast<std::size_t>(m)]);
  // Host h's bundle: its members' blocks, in member order, out of (or into) this dest.
  auto bundle = [&](xhost_channel::Msg& msg_, int h) {
    for (int m : l.members[static_cast<std::size_t>(((h % hosts) + hosts) % hosts)])
      msg_.add(out + offsets[static_cast<std::size_t>(m)], sizes[static_cast<std::size_t>(m)]);
  };
  std::vector<xhost_channel::Msg> sends, recvs;
  if (choose(g.rt(), most, hosts, true) == Algo::kDirect) {
    for (int h = 0; h < hosts; ++h) {
      if (h == me) continue;
      sends.push_back(msg(g, h));
      bundle(sends.back(), me);
      recvs.push_back(msg(g, h));
      bundle(recvs.back(), h);
    }
    xhost_channel::transfer(g.rt(), g.chan(), sends, recvs, g.name());
    return;
  }
  const int next = (me + 1) % hosts, prev = (me + hosts - 1) % hosts;
  for (int k = 0; k < hosts - 1; ++k) {
    sends.assign(1, msg(g, next));
    bundle(sends[0], me - k);
    recvs.assign(1, msg(g, prev));
    bundle(recvs[0], me - k - 1);
    xhost_channel::transfer(g.rt(), g.chan(), sends, recvs, g.name());
  }
}

// fcollect: every member's block has `bytes`.
template <class G>
void fcollect(G& g, void* dest, const void* source, std::size_t bytes) {
  if (bytes == 0) return;
  const auto n = static_cast<std::size_t>(g.size());
  std::vector<std::size_t> sizes(n, bytes), offsets(n);
  for (std::size_t i = 0; i < n; ++i) offsets[i] = i * bytes;
  const HostLayout& l = g.layout();
  g.node_sync();
  if (l.is_leader()) gather_between(g, static_cast<char*>(dest), source, offsets, sizes);
  g.node_sync();
  if (!l.is_leader()) std::memcpy(dest, g.at(dest, l.leader(l.my_host)), bytes * n);
  g.node_sync();
}

// collect: sizes differ per member. Members publish their size in word(me, 0); leaders swap
// their hosts' sizes, then the blocks, and leave the total in their members' word(m, 1).
template <class G>
void collect(G& g, void* dest, const void* source, std::size_t bytes) {
  const HostLayout& l = g.layout();
  const int hosts = l.hosts(), n = g.size();
  std::atomic_ref<std::uint64_t>(*g.word(g.me(), 0)).store(bytes, std::memory_order_relaxed);
  g.node_sync();
  if (l.is_leader()) {
    std::vector<std::uint64_t> all(static_cast<std::size_t>(n));
    for (int m : l.mine())
      all[static_cast<std::size_t>(m)] = std::atomic_ref<std::uint64_t>(*g.word(m, 0)).load(std::memory_order_relaxed);
    std::vector<xhost_channel::Msg> sends, recvs;
    for (int h = 0; h < hosts; ++h) {
      if (h == l.my_host) continue;
      sends.push_back(msg(g, h));
      for (int m : l.mine()) sends.back().add(&all[static_cast<std::size_t>(m)], sizeof(std::uint64_t));
      recvs.push_back(msg(g, h));
      for (int m : l.members[static_cast<std::size_t>(h)]) recvs.back().add(&all[static_cast<std::size_t>(m)], sizeof(std::uint64_t));
    }
    xhost_channel::transfer(g.rt(), g.chan(), sends, recvs, g.name());
    std::vector<std::size_t> sizes(static_cast<std::size_t>(n)), offsets(static_cast<std::size_t>(n));
    std::size_t total = 0;
    for (std::size_t i = 0; i < sizes.size(); ++i) sizes[i] = all[i], offsets[i] = total, total += all[i];
    if (total) gather_between(g, static_cast<char*>(dest), source, offsets, sizes);
    for (int m : l.mine()) std::atomic_ref<std::uint64_t>(*g.word(m, 1)).store(total, std::memory_order_relaxed);
  }
  g.node_sync();
  const std::uint64_t total = std::atomic_ref<std::uint64_t>(*g.word(g.me(), 1)).load(std::memory_order_relaxed);
  if (!l.is_leader() && total) std::memcpy(dest, g.at(dest, l.leader(l.my_host)), total);
  g.node_sync();
  std::atomic_ref<std::uint64_t>(*g.word(g.me(), 0)).store(0, std::memory_order_relaxed);
  std::atomic_ref<std::uint64_t>(*g.word(g.me(), 1)).store(0, std::memory_order_relaxed);
}

// ---- all-to-all ------------------------------------------------------------------------------------
// Element e (of elem bytes) of the block member s sends member d: at source + src_at(d, e) on s,
// landing at dest + dst_at(s, e) on d; nelems elements per pair. Members of one host copy
// among themselves; each leader sends every other leader what its host's members have for that
// host's members, and writes what it receives straight into its members' dests.
template <class G, class SrcAt, class DstAt>
void exchange(G& g, void* dest, const void* source, std::size_t nelems, std::size_t elem, SrcAt&& src_at,
              DstAt&& dst_at, bool contiguous) {
  if (nelems == 0) return;
  const HostLayout& l = g.layout();
  const int hosts = l.hosts(), me = g.me();
  const std::size_t block = nelems * elem;
  auto add_block = [&](xhost_channel::Msg& m, char* base, auto&& at, int other) {
    if (contiguous) return m.add(base + at(other, 0), block);
    for (std::size_t e = 0; e < nelems; ++e) m.add(base + at(other, e), elem);
  };
  g.node_sync();
  for (int s : l.mine()) {  // this host's blocks for me
    const char* src = g.at(source, s);
    if (contiguous) {
      std::memcpy(static_cast<char*>(dest) + dst_at(s, 0), src + src_at(me, 0), block);
    } else {
      for (std::size_t e = 0; e < nelems; ++e)
        std::memcpy(static_cast<char*>(dest) + dst_at(s, e), src + src_at(me, e), elem);
    }
  }
  if (l.is_leader()) {
    std::vector<xhost_channel::Msg> sends, recvs;
    for (int h = 0; h < hosts; ++h) {
      if (h == l.my_host) continue;
      sends.push_back(msg(g, h));
      recvs.push_back(msg(g, h));
      for (int s : l.mine())
        for (int d : l.members[static_cast<std::size_t>(h)]) add_block(sends.back(), g.at(source, s), src_at, d);
      for (int s : l.members[static_cast<std::size_t>(h)])
        for (int d : l.mine()) add_block(recvs.back(), g.at(dest, d), dst_at, s);
    }
    xhost_channel::transfer(g.rt(), g.chan(), sends, recvs, g.name());
  }
  g.node_sync();
}

// alltoall: `bytes` from every member to every member, contiguous blocks.
template <class G>
void alltoall(G& g, void* dest, const void* source, std::size_t bytes) {
  auto at = [bytes](int pe, std::size_t) { return static_cast<std::size_t>(pe) * bytes; };
  exchange(g, dest, source, bytes, 1, at, at, true);
}

// alltoalls: nelems elements of elem bytes per pair, strides dst and sst (in elements).
template <class G>
void alltoalls(G& g, void* dest, const void* source, std::ptrdiff_t dst, std::ptrdiff_t sst, std::size_t nelems,
               std::size_t elem) {
  const auto ne = static_cast<std::ptrdiff_t>(nelems), el = static_cast<std::ptrdiff_t>(elem);
  auto index = [=](std::ptrdiff_t stride) {
    return [=](int pe, std::size_t e) { return static_cast<std::size_t>((pe * ne + static_cast<std::ptrdiff_t>(e)) * stride * el); };
  };
  exchange(g, dest, source, nelems, elem, index(sst), index(dst), dst == 1 && sst == 1);
}

// ---- scans -----------------------------------------------------------------------------------------
// Leaders gather every member's source (their host's from memory, the others' from the other
// leaders), compute their own members' prefixes and write them into their dests.
template <class G>
void scan(G& g, void* dest, const void* source, std::size_t nelems, std::size_t elem, core::Combine combine,
          bool exclusive) {
  if (nelems == 0) return;
  const HostLayout& l = g.layout();
  const int hosts = l.hosts(), n = g.size();
  const std::size_t bytes = nelems * elem;
  g.node_sync();
  if (l.is_leader()) {
    std::vector<char> all(bytes * static_cast<std::size_t>(n));
    auto slot = [&](int m) { return all.data() + static_cast<std::size_t>(m) * bytes; };
    for (int m : l.mine()) std::memcpy(slot(m), g.at(source, m), bytes);
    std::vector<xhost_channel::Msg> sends, recvs;
    for (int h = 0; h < hosts; ++h) {
      if (h == l.my_host) continue;
      sends.push_back(msg(g, h));
      for (int m : l.mine()) sends.back().add(slot(m), bytes);
      recvs.push_back(msg(g, h));
      for (int m : l.members[static_cast<std::size_t>(h)]) recvs.back().add(slot(m), bytes);
    }
    xhost_channel::transfer(g.rt(), g.chan(), sends, recvs, g.name());
    std::vector<char> result(bytes);
    for (int m : l.mine()) {
      const int last = exclusive ? m - 1 : m;
      if (last < 0) {
        std::memset(result.data(), 0, bytes);
      } else {
        std::memcpy(result.data(), slot(0), bytes);
        for (int k = 1; k <= last; ++k) combine(result.data(), result.data(), slot(k), nelems);
      }
      std::memcpy(g.at(dest, m), result.data(), bytes);
    }
  }
  g.node_sync();
}

// ---- barrier ---------------------------------------------------------------------------------------
template <class G>
void sync(G& g) {
  g.node_sync();
  if (g.layout().is_leader()) g.leader_sync();
  g.node_sync();
}

}  // namespace shmem::coll::hier
