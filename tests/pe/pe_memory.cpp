// pe_memory.cpp - the symmetric heap: malloc / calloc (zeroed) / align (alignment honoured) /
// realloc (data preserved) / malloc_with_hints / free and the deprecated shmalloc family;
// malloc(0) is NULL, free(NULL) is harmless; thousands of mixed alloc/free/realloc steps in
// the same order on every PE, with PE 0 checking every PE got the same offsets and marker
// puts proving each block is the same object everywhere; the heap is still usable after;
// shmem_ptr gives working direct pointers to every PE of this host (NULL for other hosts);
// SHMEM_TEAM_SHARED is this host's PEs; addr_accessible / pe_accessible.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <unistd.h>
#include <vector>

#include "check.h"

namespace {

long static_word;
long static_array[64];

struct Block {
  unsigned char* p = nullptr;
  size_t size = 0;
  uint32_t id = 0;
};

unsigned char fill_byte(uint32_t id, size_t i) { return static_cast<unsigned char>(id * 131 + i * 7 + 1); }

void fill(const Block& b) {
  for (size_t i = 16; i < b.size; ++i) b.p[i] = fill_byte(b.id, i);
}

bool intact(const Block& b, size_t upto) {
  for (size_t i = 16; i < upto; ++i)
    if (b.p[i] != fill_byte(b.id, i)) return false;
  return true;
}

void basic_allocation() {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  CHECK(shmem_malloc(0) == nullptr);
  shmem_free(nullptr);
  CHECK(shmem_calloc(0, 8) == nullptr);
  CHECK(shmem_calloc(8, 0) == nullptr);

  // calloc: zeroed, even after the same memory was dirtied by an earlier block.
  auto* dirty = static_cast<unsigned char*>(shmem_malloc(1 << 16));
  CHECK(dirty != nullptr);
  if (dirty) std::memset(dirty, 0xAB, 1 << 16);
  shmem_free(dirty);
  auto* z = static_cast<unsigned char*>(shmem_calloc(1 << 14, 4));
  CHECK(z != nullptr);
  if (z) {
    size_t nonzero = 0;
    for (size_t i = 0; i < (1u << 16); ++i) nonzero += z[i] != 0;
    CHECK_EQ(nonzero, 0);
  }
  shmem_free(z);

  // align: every power of two up to 1 MiB.
  for (size_t a = 1; a <= (1u << 20); a <<= 1) {
    void* p = shmem_align(a, 100);
    CHECKF(p != nullptr, "shmem_align(%zu, 100) returned NULL", a);
    CHECKF(reinterpret_cast<uintptr_t>(p) % a == 0, "shmem_align(%zu) gave %p", a, p);
    // Tag the neighbour's copy with (alignment, PE): the block is the same object everywhere.
    const uint64_t tag[2] = {a, static_cast<uint64_t>(me)};
    if (p) shmem_putmem(p, tag, sizeof tag, (me + 1) % n);
    shmem_barrier_all();
    if (p) {
      uint64_t seen[2];
      std::memcpy(seen, p, sizeof seen);
      CHECK_EQ(seen[0], a);
      CHECK_EQ(seen[1], (me - 1 + n) % n);
    }
    shmem_free(p);
  }
  // malloc returns memory aligned for any use.
  for (size_t s : {1, 3, 17, 100, 4097}) {
    void* p = shmem_malloc(s);
    CHECKF(p && reinterpret_cast<uintptr_t>(p) % alignof(std::max_align_t) == 0, "shmem_malloc(%zu) gave %p", s, p);
    shmem_free(p);
  }

  // realloc: grow and shrink keep the contents; NULL behaves as malloc.
  auto* r = static_cast<unsigned char*>(shmem_realloc(nullptr, 1000));
  CHECK(r != nullptr);
  if (!r) return;
  for (int i = 0; i < 1000; ++i) r[i] = static_cast<unsigned char>(i * 3 + me);
  auto* blocker = shmem_malloc(64);  // likely forces the grow to move
  r = static_cast<unsigned char*>(shmem_realloc(r, 300000));
  CHECK(r != nullptr);
  if (!r) return;
  int bad = -1;
  for (int i = 0; i < 1000 && bad < 0; ++i)
    if (r[i] != static_cast<unsigned char>(i * 3 + me)) bad = i;
  CHECKF(bad < 0, "realloc grow lost byte %d", bad);
  // The grown block is symmetric: write the neighbour's tail.
  shmem_putmem(r + 299000, r, 1000, (me + 1) % n);
  shmem_barrier_all();
  for (int i = 0; i < 1000 && bad < 0; ++i)
    if (r[299000 + i] != static_cast<unsigned char>(i * 3 + (me - 1 + n) % n)) bad = i;
  CHECKF(bad < 0, "put into grown block: byte %d", bad);
  r = static_cast<unsigned char*>(shmem_realloc(r, 500));
  CHECK(r != nullptr);
  for (int i = 0; r && i < 500 && bad < 0; ++i)
    if (r[i] != static_cast<unsigned char>(i * 3 + me)) bad = i;
  CHECKF(bad < 0, "realloc shrink lost byte %d", bad);
  shmem_free(blocker);
  shmem_realloc(r, 0);  // frees the block (the spec leaves the return value open)

  // Hints are only hints: the memory works like any other, including for atomics and signals.
  const long hints[] = {0, SHMEM_MALLOC_ATOMICS_REMOTE, SHMEM_MALLOC_SIGNAL_REMOTE,
                        SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE};
  for (long h : hints) {
    auto* w = static_cast<uint64_t*>(shmem_malloc_with_hints(2 * sizeof(uint64_t), h));
    CHECKF(w != nullptr, "malloc_with_hints(%ld) returned NULL", h);
    if (!w) continue;
    w[0] = w[1] = 0;
    shmem_barrier_all();
    shmem_uint64_atomic_add(&w[0], 1, 0);
    shmem_signal_add(&w[1], 2, 0);
    shmem_barrier_all();
    if (me == 0) {
      CHECK_EQ(w[0], n);
      CHECK_EQ(shmem_signal_fetch(&w[1]), 2 * n);
    }
    shmem_free(w);
  }
  CHECK(shmem_malloc_with_hints(0, 0) == nullptr);

  // Deprecated names.
  auto* d = static_cast<long*>(shmalloc(4 * sizeof(long)));
  CHECK(d != nullptr);
  d = static_cast<long*>(shrealloc(d, 64 * sizeof(long)));
  CHECK(d != nullptr);
  shfree(d);
  auto* da = shmemalign(4096, 10);
  CHECK(da != nullptr && reinterpret_cast<uintptr_t>(da) % 4096 == 0);
  shfree(da);
}

// Every PE runs the same random sequence (one generator, started alike). Offsets relative to `ref` are logged
// and sent to PE 0 at the end; markers put into the right neighbour's copy of each live block
// must land in this PE's copy of the same block.
void stress(int steps) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const int right = (me + 1) % n, left = (me - 1 + n) % n;
  auto* ref = static_cast<unsigned char*>(shmem_malloc(64));
  auto* all_offsets = static_cast<int64_t*>(shmem_malloc(sizeof(int64_t) * steps * n));
  CHECK(ref && all_offsets);
  if (!ref || !all_offsets) shmem_global_exit(1);
  std::vector<int64_t> offsets(steps, -1);
  std::vector<Block> live;
  std::mt19937 rng(12345);
  uint32_t next_id = 1;
  size_t live_bytes = 0;

  for (int s = 0; s < steps; ++s) {
    unsigned r = rng() % 100;
    if (live.size() < 4 || (r < 45 && live.size() < 48)) {
      Block b;
      b.size = 32 + rng() % (rng() % 8 == 0 ? (1u << 20) : 4096u);
      b.id = next_id++;
      if (rng() % 4 == 0)
        b.p = static_cast<unsigned char*>(shmem_align(size_t{1} << (3 + rng() % 10), b.size));
      else
        b.p = static_cast<unsigned char*>(shmem_malloc(b.size));
      CHECKF(b.p != nullptr, "step %d: allocation of %zu bytes failed (%zu live bytes)", s, b.size, live_bytes);
      if (!b.p) shmem_global_exit(1);  // the PEs would no longer agree on the sequence
      fill(b);
      offsets[s] = b.p - ref;
      live_bytes += b.size;
      live.push_back(b);
    } else if (r < 85) {
      size_t k = rng() % live.size();
      CHECKF(intact(live[k], live[k].size), "step %d: block %u corrupted before free", s, live[k].id);
      live_bytes -= live[k].size;
      shmem_free(live[k].p);
      offsets[s] = -2;
      live.erase(live.begin() + static_cast<long>(k));
    } else {
      size_t k = rng() % live.size();
      Block& b = live[k];
      size_t ns = 32 + rng() % 8192;
      auto* np = static_cast<unsigned char*>(shmem_realloc(b.p, ns));
      CHECKF(np != nullptr, "step %d: realloc to %zu failed", s, ns);
      if (!np) shmem_global_exit(1);
      b.p = np;
      CHECKF(intact(b, std::min(b.size, ns)), "step %d: realloc of block %u lost data", s, b.id);
      live_bytes = live_bytes - b.size + ns;
      b.size = ns;
      fill(b);
      offsets[s] = np - ref;
    }
    if (s % 250 == 249 || s == steps - 1) {
      // Markers: [id, pe] at the start of the neighbour's copy of every live block.
      for (const Block& b : live) {
        uint64_t marker[2] = {b.id, static_cast<uint64_t>(me)};
        shmem_putmem(b.p, marker, sizeof marker, right);
      }
      shmem_barrier_all();
      for (const Block& b : live) {
        uint64_t marker[2];
        std::memcpy(marker, b.p, sizeof marker);
        CHECKF(marker[0] == b.id && marker[1] == static_cast<uint64_t>(left),
               "step %d: block %u (offset %td) holds marker [%llu, %llu], expected [%u, %d]: not the same "
               "object on every PE", s, b.id, b.p - ref, static_cast<unsigned long long>(marker[0]),
               static_cast<unsigned long long>(marker[1]), b.id, left);
        CHECKF(intact(b, b.size), "step %d: block %u corrupted", s, b.id);
      }
      shmem_barrier_all();
    }
  }
  shmem_putmem(all_offsets + static_cast<size_t>(me) * steps, offsets.data(), sizeof(int64_t) * steps, 0);
  shmem_barrier_all();
  if (me == 0) {
    for (int pe = 1; pe < n; ++pe) {
      for (int s = 0; s < steps; ++s) {
        int64_t mine = all_offsets[s], theirs = all_offsets[static_cast<size_t>(pe) * steps + s];
        if (mine != theirs) {
          CHECKF(false, "step %d: PE %d got offset %lld, PE 0 got %lld", s, pe, static_cast<long long>(theirs),
                 static_cast<long long>(mine));
          break;
        }
      }
    }
  }
  for (const Block& b : live) shmem_free(b.p);
  shmem_free(all_offsets);
  shmem_free(ref);

  // Still usable: a large block, written remotely end to end.
  const size_t big = 16u << 20;
  auto* p = static_cast<unsigned char*>(shmem_malloc(big));
  CHECK(p != nullptr);
  if (p) {
    std::vector<unsigned char> src(big, static_cast<unsigned char>(me + 1));
    shmem_putmem(p, src.data(), big, right);
    shmem_barrier_all();
    size_t bad = 0;
    for (size_t i = 0; i < big; i += 4096) bad += p[i] != static_cast<unsigned char>(left + 1);
    bad += p[big - 1] != static_cast<unsigned char>(left + 1);
    CHECK_EQ(bad, 0);
  }
  shmem_free(p);
}

void direct_pointers() {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  auto* block = static_cast<long*>(shmem_malloc(sizeof(long) * 64));
  CHECK(block != nullptr);
  if (!block) return;
  for (int i = 0; i < 64; ++i) block[i] = -1;
  static_array[me % 64] = -1;
  shmem_barrier_all();
  CHECK_PTR_EQ(shmem_ptr(block, me), block);
  CHECK_PTR_EQ(shmem_ptr(&static_word, me), &static_word);
  // SHMEM_TEAM_SHARED is exactly the PEs whose host name is ours (every PE tells every other
  // its name's hash with a put), and shmem_ptr is non-NULL exactly for them; PEs on other
  // hosts are written with puts instead. Every PE stays accessible.
  constexpr int kMaxHashPes = 64;
  static long host_hash[kMaxHashPes];
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  unsigned long h = 1469598103934665603UL;  // FNV-1a, in unsigned arithmetic (wraps by definition)
  for (const char* c = host; *c; ++c) h = (h ^ static_cast<unsigned char>(*c)) * 1099511628211UL;
  const long my_hash = static_cast<long>(h >> 1);
  for (int pe = 0; pe < n && n <= kMaxHashPes; ++pe) shmem_long_p(&host_hash[me], my_hash, pe);
  shmem_barrier_all();
  for (int pe = 0; pe < n; ++pe) {
    const bool same_host = shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, SHMEM_TEAM_SHARED) >= 0;
    if (n <= kMaxHashPes)
      CHECKF(same_host == (host_hash[pe] == my_hash), "PE %d: SHMEM_TEAM_SHARED membership %d, but same host name %d",
             pe, (int)same_host, (int)(host_hash[pe] == my_hash));
    auto* q = static_cast<long*>(shmem_ptr(block, pe));
    auto* s = static_cast<long*>(shmem_ptr(static_array, pe));
    if (same_host) {
      CHECKF(q != nullptr, "shmem_ptr(heap, %d) is NULL for a PE of this host", pe);
      CHECKF(s != nullptr, "shmem_ptr(static, %d) is NULL for a PE of this host", pe);
    } else {
      CHECKF(q == nullptr, "shmem_ptr(heap, %d) is not NULL for a PE on another host", pe);
      CHECKF(s == nullptr, "shmem_ptr(static, %d) is not NULL for a PE on another host", pe);
    }
    if (q) q[me % 64] = 1000 + me;  // a plain store into another PE's memory
    else shmem_long_p(block + me % 64, 1000 + me, pe);
    if (s) s[me % 64] = 2000 + me;
    else shmem_long_p(static_array + me % 64, 2000 + me, pe);
    CHECK_EQ(shmem_pe_accessible(pe), 1);
    CHECK_EQ(shmem_addr_accessible(block, pe), 1);
    CHECK_EQ(shmem_addr_accessible(&static_word, pe), 1);
    CHECK_EQ(shmem_addr_accessible(static_array + 63, pe), 1);
  }
  shmem_barrier_all();  // (a barrier orders the plain stores too, and completes the puts)
  for (int pe = 0; pe < n && pe < 64; ++pe) {
    CHECK_EQ(block[pe], 1000 + pe);
    CHECK_EQ(static_array[pe], 2000 + pe);
  }
  // And loads: read the right neighbour's block directly.
  auto* rq = static_cast<long*>(shmem_ptr(block, (me + 1) % n));
  if (rq) CHECK_EQ(rq[me % 64], 1000 + me);

  long private_var = 0;
  std::vector<long> private_heap(4);
  CHECK_EQ(shmem_addr_accessible(&private_var, me), 0);
  CHECK_EQ(shmem_addr_accessible(private_heap.data(), (me + 1) % n), 0);
  CHECK(shmem_ptr(&private_var, (me + 1) % n) == nullptr);
  if (getenv("SHMEM_DEBUG") == nullptr) {  // checked mode stops on a PE out of range instead
    CHECK(shmem_ptr(block, -1) == nullptr);
    CHECK(shmem_ptr(block, n) == nullptr);
  }
  CHECK_EQ(shmem_pe_accessible(-1), 0);
  CHECK_EQ(shmem_pe_accessible(n), 0);
  shmem_barrier_all();
  shmem_free(block);
}

}  // namespace

int main() {
  shmem_init();
  basic_allocation();
  stress(shmem_n_pes() > 4 ? 1500 : 3000);
  direct_pointers();
  if (shmem_my_pe() == 0 && check_failures_ == 0) std::printf("pe_memory: OK\n");
  return check_finish(NULL);
}
