#pragma once
// Node-local collective algorithms, written once over a "group" (a team, or a legacy active
// set with its pSync). Every PE pulls what it needs straight out of its peers' symmetric
// buffers and the work is spread over all PEs; groups provide:
//   int size(), me(), world(int i); void sync(); void allgather_word(uint64_t, uint64_t* out);
//   Runtime& rt(); and for pushed broadcasts (see broadcast below):
//   uint64_t bcast_begin(int root); void bcast_wait_ready(int pe, uint64_t seq); void bcast_signal(int pe,
//   uint64_t seq); void bcast_wait_signal(uint64_t seq); void bcast_done(uint64_t seq, bool root);
//   void bcast_pulled(uint64_t seq)
#include <algorithm>
#include <cstring>
#include <vector>

#include "core/sync_wait.hpp"
#include "core/runtime.hpp"
#include "coll/ops.hpp"

namespace shmem::coll {

// Peer `pe`'s copy of symmetric `addr`.
template <class G>
inline const char* peer(G& g, const void* addr, int pe) noexcept {
  if (pe == g.me()) return static_cast<const char*>(addr);
  const char* p = g.rt().translate(addr, g.world(pe));
  if (!p) core::fatal("collective", "a buffer at %s is not symmetric (collective buffers must be)", g.rt().describe(addr).c_str());
  return p;
}

constexpr std::size_t kPushBytes = 8 * 1024;        // broadcasts up to this size are pushed by the root
constexpr std::size_t kPushTotalBytes = 32 * 1024;  // ... as long as the root writes no more than this

// Small broadcasts are one-way: the root writes the data straight into every other member's
// dest (the specification has every dest ready before any PE calls the broadcast) and then
// raises that member's flag; members wait only for their flag. No member waits for all the
// others, so back-to-back broadcasts overlap. Before writing a member's flag the root waits
// until that member is far enough along (the group's bcast_wait_ready: teams, done with the
// previous broadcast, or with the one before when the root is the same; active sets, done with
// the last one that used this pSync), which keeps calls with different roots from overtaking
// each other. Larger broadcasts
// are pulled from the root by every member at once, between two syncs.
template <class G>
void broadcast(G& g, void* dest, const void* source, std::size_t bytes, int root, bool write_root) noexcept {
  const int n = g.size(), me = g.me();
  const std::uint64_t seq = g.bcast_begin(root);
  if (n > 1 && bytes <= kPushBytes && bytes * static_cast<std::size_t>(n - 1) <= kPushTotalBytes) {
    if (me == root) {
      for (int k = 1; k < n; ++k) {
        const int pe = (root + k) % n;
        g.bcast_wait_ready(pe, seq);
        if (bytes) std::memcpy(const_cast<char*>(peer(g, dest, pe)), source, bytes);
        g.bcast_signal(pe, seq);
      }
      if (write_root && bytes && dest != source) std::memmove(dest, source, bytes);
    } else {
      g.bcast_wait_signal(seq);
    }
    g.bcast_done(seq, me == root);
    return;
  }
  g.sync();
  if (bytes) {
    if (me != root) std::memcpy(dest, peer(g, source, root), bytes);
    else if (write_root && dest != source) std::memmove(dest, source, bytes);
  }
  g.sync();
  g.bcast_pulled(seq);
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
  // nelems 0: nothing is moved, and the buffers may be null (spec: "len is 0, pointer is null:
  // supported"), so no peer address is looked up.
  for (int k = 0; nelems != 0 && k < n; ++k) {
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

// out = member first's source OP every other member's, over bytes [off, off + m*elem), in the
// order first, first+1, ... (mod n). out may alias member first's source, and nothing else.
template <class G>
void reduce_chunk(G& g, char* out, const void* source, int first, std::size_t off, std::size_t m,
                  core::Combine combine) noexcept {
  const int n = g.size();
  combine(out, peer(g, source, first) + off, peer(g, source, (first + 1) % n) + off, m);
  for (int k = 2; k < n; ++k) combine(out, out, peer(g, source, (first + k) % n) + off, m);
}

template <class G>
void reduce(G& g, void* dest, const void* source, std::size_t nelems, std::size_t elem, core::Combine combine) noexcept {
  const int n = g.size(), me = g.me();
  const std::size_t bytes = nelems * elem;
  g.sync();
  if (n == 1) {
    if (dest != source && bytes) std::memmove(dest, source, bytes);
    g.sync();
    return;
  }
  if (bytes <= kFlatBytes) {
    // Every PE reduces everything itself, in member order 0, 1, ... so that every PE gets
    // bit-identical results, into a private buffer: peers still read our source.
    alignas(64) char result[kFlatBytes];
    if (bytes) reduce_chunk(g, result, source, 0, 0, nelems, combine);
    g.sync();  // every peer has read our source: dest may now overwrite it (in place)
    if (bytes) std::memcpy(dest, result, bytes);
    return;
  }
  // Each PE reduces one slice from every member and writes the result straight into every
  // member's dest, chunk by chunk: first into its own dest (starting from its own source,
  // which that dest may alias), then copies the chunk, still in cache, to the other members.
  // In place is safe: a slice of any member's source is read only by the slice's owner, which
  // reads each chunk from all members before it writes that chunk anywhere but over its own
  // source. The work and the memory traffic are spread over all PEs, in one pass.
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
  const std::size_t per_chunk = std::max<std::size_t>(1, kChunkBytes / elem);
  for (std::size_t done = 0; done < count;) {
    const std::size_t m = std::min(per_chunk, count - done);
    char* mine = outs[me] + done * elem;
    reduce_chunk(g, mine, source, me, (first + done) * elem, m, combine);
    for (int k = 1; k < n; ++k) std::memcpy(outs[(me + k) % n] + done * elem, mine, m * elem);
    done += m;
  }
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
    for (int pe = 1; pe <= last; ++pe) combine(result.data(), result.data(), peer(g, source, pe), nelems);
  }
  g.sync();
  if (!result.empty()) std::memcpy(dest, result.data(), bytes);
}

}  // namespace shmem::coll
