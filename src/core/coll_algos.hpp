#pragma once
// Node-local collective algorithms, written once over a "group" (a team, or a legacy active
// set with its pSync). Every PE pulls what it needs straight out of its peers' symmetric
// buffers and the work is spread over all PEs; groups provide:
//   int size(), me(), world(int i); void sync(); void allgather_word(uint64_t, uint64_t* out);
//   Runtime& rt()
#include <algorithm>
#include <cstring>
#include <vector>

#include "core/runtime.hpp"
#include "core/team_ops.hpp"

namespace shmem::coll {

// Peer `pe`'s copy of symmetric `addr`.
template <class G>
inline const char* peer(G& g, const void* addr, int pe) noexcept {
  if (pe == g.me()) return static_cast<const char*>(addr);
  const char* p = g.rt().translate(addr, g.world(pe));
  if (!p) core::fatal("shmem collective", "%s is not symmetric (collective buffers must be)", g.rt().describe(addr).c_str());
  return p;
}

template <class G>
void broadcast(G& g, void* dest, const void* source, std::size_t bytes, int root, bool write_root) noexcept {
  g.sync();
  if (bytes) {
    if (g.me() != root) std::memcpy(dest, peer(g, source, root), bytes);
    else if (write_root && dest != source) std::memmove(dest, source, bytes);
  }
  g.sync();
}

// Copies every member's block into dest at offsets[pe]; starts with the next PE so that
// members do not all read the same peer at once.
template <class G>
void gather_blocks(G& g, char* dest, const void* source, const std::vector<std::size_t>& offsets,
                   const std::vector<std::size_t>& sizes) noexcept {
  const int n = g.size();
  for (int k = 0; k < n; ++k) {
    const int pe = (g.me() + k) % n;
    if (sizes[static_cast<std::size_t>(pe)])
      std::memcpy(dest + offsets[static_cast<std::size_t>(pe)], peer(g, source, pe), sizes[static_cast<std::size_t>(pe)]);
  }
}

template <class G>
void fcollect(G& g, void* dest, const void* source, std::size_t bytes) noexcept {
  const int n = g.size();
  g.sync();
  for (int k = 0; k < n; ++k) {
    const int pe = (g.me() + k) % n;
    if (bytes) std::memcpy(static_cast<char*>(dest) + static_cast<std::size_t>(pe) * bytes, peer(g, source, pe), bytes);
  }
  g.sync();
}

template <class G>
void collect(G& g, void* dest, const void* source, std::size_t bytes) noexcept {
  const int n = g.size();
  std::vector<std::uint64_t> all(static_cast<std::size_t>(n));
  g.allgather_word(bytes, all.data());  // also the entry sync: every source is ready
  std::size_t off = 0;
  for (int k = 0; k < n; ++k) {
    const std::size_t b = all[static_cast<std::size_t>(k)];
    if (b) std::memcpy(static_cast<char*>(dest) + off, peer(g, source, k), b);
    off += b;
  }
  g.sync();
}

template <class G>
void alltoall(G& g, void* dest, const void* source, std::size_t bytes) noexcept {
  const int n = g.size(), me = g.me();
  g.sync();
  if (bytes) {
    const void* my_block = static_cast<const char*>(source) + static_cast<std::size_t>(me) * bytes;
    for (int k = 0; k < n; ++k) {
      const int pe = (me + k) % n;
      std::memcpy(static_cast<char*>(dest) + static_cast<std::size_t>(pe) * bytes, peer(g, my_block, pe), bytes);
    }
  }
  g.sync();
}

// Element i of the block for PE j is at source[(j*nelems + i) * sst]; on PE j it lands at
// dest[(k*nelems + i) * dst], k being the sender's index (spec: "the sst*l-th block of
// source to the dst*k-th block of dest").
template <class G>
void alltoalls(G& g, void* dest, const void* source, std::ptrdiff_t dst, std::ptrdiff_t sst, std::size_t nelems,
               std::size_t elem) noexcept {
  const int n = g.size(), me = g.me();
  g.sync();
  for (int k = 0; k < n; ++k) {
    const int pe = (me + k) % n;
    // From PE pe's source, the block destined to me; into my dest, the block slot of pe.
    const char* src = peer(g, source, pe);
    char* d = static_cast<char*>(dest);
    for (std::size_t i = 0; i < nelems; ++i) {
      const std::ptrdiff_t si = (static_cast<std::ptrdiff_t>(static_cast<std::size_t>(me) * nelems + i)) * sst;
      const std::ptrdiff_t di = (static_cast<std::ptrdiff_t>(static_cast<std::size_t>(pe) * nelems + i)) * dst;
      std::memcpy(d + di * static_cast<std::ptrdiff_t>(elem), src + si * static_cast<std::ptrdiff_t>(elem), elem);
    }
  }
  g.sync();
}

constexpr std::size_t kChunkBytes = 16 * 1024;  // reduction working set, kept in L1/L2
constexpr std::size_t kFlatBytes = 4 * 1024;    // below this every PE reduces everything itself
constexpr int kMaxPushTargets = 64;             // destinations kept on the stack

// Reduces elements [first, first+count) of every member's source, chunk by chunk, and writes
// each finished chunk (still in cache) to every destination in `outs`. A chunk is read from all
// members before it is written anywhere, so `outs` may alias the sources (in place).
template <class G>
void reduce_range(G& g, char* const* outs, int nouts, const void* source, std::size_t first, std::size_t count,
                  std::size_t elem, core::Combine combine) noexcept {
  alignas(64) char acc[kChunkBytes];
  const std::size_t per_chunk = std::max<std::size_t>(1, kChunkBytes / elem);
  const int n = g.size();
  for (std::size_t done = 0; done < count;) {
    const std::size_t m = std::min(per_chunk, count - done);
    const std::size_t off = (first + done) * elem;
    std::memcpy(acc, peer(g, source, 0) + off, m * elem);
    for (int pe = 1; pe < n; ++pe) combine(acc, peer(g, source, pe) + off, m);
    for (int k = 0; k < nouts; ++k) std::memcpy(outs[k] + done * elem, acc, m * elem);
    done += m;
  }
}

template <class G>
void reduce(G& g, void* dest, const void* source, std::size_t nelems, std::size_t elem, core::Combine combine) noexcept {
  const int n = g.size(), me = g.me();
  const std::size_t bytes = nelems * elem;
  g.sync();
  if (bytes <= kFlatBytes || n == 1) {
    alignas(64) char result[kFlatBytes];
    if (n == 1) {
      if (dest != source) std::memmove(dest, source, bytes);
      g.sync();
      return;
    }
    char* out = result;
    reduce_range(g, &out, 1, source, 0, nelems, elem, combine);
    g.sync();  // every peer has read our source: dest may now overwrite it (in place)
    std::memcpy(dest, result, bytes);
    return;
  }
  // Each PE reduces one slice from every member and writes the result straight into every
  // member's dest: the work and the memory traffic are spread over all PEs, in one pass.
  const std::size_t slice = (nelems + static_cast<std::size_t>(n) - 1) / static_cast<std::size_t>(n);
  const std::size_t first = std::min(nelems, slice * static_cast<std::size_t>(me));
  const std::size_t count = std::min(nelems, first + slice) - first;
  char* stack_outs[kMaxPushTargets] = {};
  std::vector<char*> many;  // only for teams larger than kMaxPushTargets
  char** outs = stack_outs;
  if (n > kMaxPushTargets) {
    many.resize(static_cast<std::size_t>(n));
    outs = many.data();
  }
  for (int pe = 0; pe < n; ++pe) outs[pe] = const_cast<char*>(peer(g, dest, pe)) + first * elem;
  // In place is safe: peers read only their own slices of every source, and we read each
  // chunk of our slice from all members before writing it anywhere.
  reduce_range(g, outs, n, source, first, count, elem, combine);
  g.sync();
}

// Prefix reduction in member order. Results are computed into a private buffer first, since
// dest may alias source and later members still read our source.
template <class G>
void scan(G& g, void* dest, const void* source, std::size_t nelems, std::size_t elem, core::Combine combine,
          bool exclusive) noexcept {
  const int me = g.me();
  const std::size_t bytes = nelems * elem;
  g.sync();
  const int last = exclusive ? me - 1 : me;
  std::vector<char> result;
  if (last < 0 && bytes) {
    result.assign(bytes, 0);  // exclusive: PE 0 gets the sum's identity, zero
  } else if (bytes) {
    result.resize(bytes);
    std::memcpy(result.data(), peer(g, source, 0), bytes);
    for (int pe = 1; pe <= last; ++pe) combine(result.data(), peer(g, source, pe), nelems);
  }
  g.sync();
  if (!result.empty()) std::memcpy(dest, result.data(), bytes);
}

}  // namespace shmem::coll
