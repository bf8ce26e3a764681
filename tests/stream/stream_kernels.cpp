// stream_kernels.cpp - kernel launch on the CPU worker pool and the device API: grids of 1/4/16
// blocks putting slices with signals, block-cooperative transfers, atomics under contention
// (exact totals), device signal waits, device barriers at thread/block/grid scope and on a
// team, the C launch path (argument copy, unbound state, error surfacing), kernels on several
// streams at once, and Ascend SHMEM's device names (stream_acl_kernels.cpp).
#include <shmemx.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <shmem/device/device.hpp>
#include <stdexcept>
#include <vector>

#include "check.h"

namespace dev = shmem::device;

int run_acl_kernels();  // stream_acl_kernels.cpp: returns the number of failed checks

namespace {

int me, npes, right, left;

template <class T>
T* sym_calloc(std::size_t n) {
  return static_cast<T*>(shmem_calloc(n, sizeof(T)));
}

void test_grid(int grid) {
  constexpr std::size_t kPer = 1000;  // longs per block
  const std::size_t n = kPer * static_cast<std::size_t>(grid);
  long* dst = sym_calloc<long>(n);
  auto* sig = sym_calloc<std::uint64_t>(1);
  std::vector<long> src(n);
  for (std::size_t i = 0; i < n; ++i) src[i] = me * 1000000L + static_cast<long>(i);
  shmem_barrier_all();
  const long* s = src.data();
  const int peer = right;
  const int rc = dev::launch(nullptr, grid, [=](const dev::Block& b) {
    const std::size_t off = static_cast<std::size_t>(b.block_id) * kPer;
    dev::putmem_signal(dst + off, s + off, kPer * sizeof(long), sig, std::uint64_t{1}, SHMEM_SIGNAL_ADD, peer);
  });
  CHECK_EQ(rc, 0);
  CHECK_EQ(shmemx_stream_synchronize(SHMEMX_STREAM_DEFAULT), 0);
  shmem_uint64_wait_until(sig, SHMEM_CMP_EQ, static_cast<std::uint64_t>(grid));
  long bad = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (dst[i] != left * 1000000L + static_cast<long>(i)) ++bad;
  CHECK_EQ_AT(bad, 0, "grid=%d", grid);
  shmem_barrier_all();
  shmem_free(sig);
  shmem_free(dst);
}

// Block-cooperative put with signal (block_dim larger than the pool on small machines) and get.
void test_block_cooperative() {
  constexpr int kGrid = 2, kDim = 5;
  constexpr std::size_t kBytes = (1u << 20) + 13;  // not a multiple of anything
  auto* dst = sym_calloc<unsigned char>(kBytes * kGrid);
  auto* src = static_cast<unsigned char*>(shmem_malloc(kBytes * kGrid));
  auto* sig = sym_calloc<std::uint64_t>(1);
  for (std::size_t i = 0; i < kBytes * kGrid; ++i) src[i] = static_cast<unsigned char>(i * 13 + me);
  shmem_barrier_all();
  const int peer = right;
  int rc = dev::launch(
      nullptr, kGrid,
      [=](const dev::Block& b) {
        const std::size_t off = static_cast<std::size_t>(b.block_id) * kBytes;
        dev::putmem_signal_block(b, dst + off, src + off, kBytes, sig, std::uint64_t{1}, SHMEM_SIGNAL_ADD, peer);
      },
      {.block_dim = kDim});
  CHECK_EQ(rc, 0);
  CHECK_EQ(shmemx_stream_synchronize(nullptr), 0);
  shmem_uint64_wait_until(sig, SHMEM_CMP_EQ, kGrid);
  long bad = 0;
  for (std::size_t i = 0; i < kBytes * kGrid; ++i)
    if (dst[i] != static_cast<unsigned char>(i * 13 + left)) ++bad;
  CHECK_EQ(bad, 0);

  // getmem_block: pull the left neighbour's src into a private buffer.
  std::vector<unsigned char> got(kBytes * kGrid);
  unsigned char* g = got.data();
  const int from = left;
  rc = dev::launch(
      nullptr, kGrid,
      [=](const dev::Block& b) {
        const std::size_t off = static_cast<std::size_t>(b.block_id) * kBytes;
        dev::getmem_block(b, g + off, src + off, kBytes, from);
      },
      {.block_dim = 3});
  CHECK_EQ(rc, 0);
  CHECK_EQ(shmemx_stream_synchronize(nullptr), 0);
  CHECK_BYTES(got.data(), dst, kBytes * kGrid, "getmem_block");
  shmem_barrier_all();
  shmem_free(sig);
  shmem_free(src);
  shmem_free(dst);
}

// Every thread of every PE hammers PE 0's counters; the totals are exact. On PEs of other hosts
// every one is a remote atomic (8/16-bit and floating-point adds a compare-and-swap loop on the
// word around them: the neighbouring lanes must stay untouched).
void test_atomics(int iters) {
  constexpr int kGrid = 8, kDim = 2;
  const int kIters = iters;
  auto* c64 = sym_calloc<std::uint64_t>(1);
  auto* c32 = sym_calloc<std::int32_t>(1);
  auto* cas = sym_calloc<std::int64_t>(1);
  auto* bits = sym_calloc<std::uint64_t>(1);
  auto* x = sym_calloc<std::uint32_t>(1);
  auto* f = sym_calloc<double>(1);
  auto* lanes = sym_calloc<std::uint8_t>(8);  // [1] int8 and [2..3] int16 adds; the rest guards
  auto* fl = sym_calloc<float>(2);           // [0] float adds, [1] a guard
  for (int i = 0; i < 8; ++i) lanes[i] = 0xa5;
  lanes[1] = 0;
  lanes[2] = lanes[3] = 0;
  fl[1] = -3.0f;
  shmem_barrier_all();
  const int rc = dev::launch(
      nullptr, kGrid,
      [=](const dev::Block& b) {
        const int tid = b.block_id * b.block_dim + b.thread_id;
        for (int i = 0; i < kIters; ++i) {
          dev::atomic_fetch_add(c64, std::uint64_t{2}, 0);
          dev::atomic_inc(c32, 0);
          std::int64_t old = dev::atomic_fetch(cas, 0);
          for (;;) {  // increment by compare-and-swap
            const std::int64_t seen = dev::atomic_compare_swap(cas, old, old + 1, 0);
            if (seen == old) break;
            old = seen;
          }
          dev::atomic_xor(x, static_cast<std::uint32_t>(tid * 2654435761u + static_cast<unsigned>(i)), 0);
        }
        for (int i = 0; i < kIters; ++i)  // the same values again: the xors cancel
          dev::atomic_fetch_xor(x, static_cast<std::uint32_t>(tid * 2654435761u + static_cast<unsigned>(i)), 0);
        dev::atomic_fetch_or(bits, std::uint64_t{1} << ((dev::my_pe() * 16 + tid) % 64), 0);
        dev::atomic_add(f, 0.5, 0);
        dev::atomic_add(reinterpret_cast<std::int8_t*>(lanes + 1), std::int8_t{3}, 0);
        dev::atomic_fetch_add(reinterpret_cast<std::int16_t*>(lanes + 2), std::int16_t{-5}, 0);
        dev::atomic_fetch_add(fl, 0.25f, 0);
      },
      {.block_dim = kDim});
  CHECK_EQ(rc, 0);
  CHECK_EQ(shmemx_stream_synchronize(nullptr), 0);
  shmem_barrier_all();
  if (me == 0) {
    const long threads = static_cast<long>(npes) * kGrid * kDim;
    CHECK_EQ(*c64, 2 * threads * kIters);
    CHECK_EQ(*c32, threads * kIters);
    CHECK_EQ(*cas, threads * kIters);
    CHECK_EQ(*x, 0);
    std::uint64_t want = 0;
    for (int p = 0; p < npes; ++p)
      for (int t = 0; t < kGrid * kDim; ++t) want |= std::uint64_t{1} << ((p * 16 + t) % 64);
    CHECK_EQ(*bits, want);
    CHECK_EQ(*f, 0.5 * static_cast<double>(threads));
    CHECK_EQ(static_cast<std::int8_t>(lanes[1]), static_cast<std::int8_t>(3 * threads));
    std::int16_t s16;
    std::memcpy(&s16, lanes + 2, sizeof s16);
    CHECK_EQ(s16, static_cast<std::int16_t>(-5 * threads));
    CHECK_EQ(lanes[0], 0xa5);
    for (int i = 4; i < 8; ++i) CHECK_EQ_AT(lanes[i], 0xa5, "guard lane %d", i);
    CHECK_EQ(fl[0], 0.25f * static_cast<float>(threads));
    CHECK_EQ(fl[1], -3.0f);
    CHECK_EQ(dev::atomic_swap(c32, 7, 0), threads * kIters);  // device calls from the host thread
    CHECK_EQ(dev::atomic_fetch(c32, 0), 7);
  }
  shmem_barrier_all();
  shmem_free(fl);
  shmem_free(lanes);
  shmem_free(f);
  shmem_free(x);
  shmem_free(bits);
  shmem_free(cas);
  shmem_free(c32);
  shmem_free(c64);
}

// A token goes around the ring, kernel to kernel, through device signal waits (64- and 32-bit).
void test_signal_wait() {
  auto* tok = sym_calloc<std::uint64_t>(1);
  auto* tok32 = sym_calloc<std::int32_t>(1);
  shmem_barrier_all();
  const int peer = right;
  const int rc = dev::launch(nullptr, 1, [=](const dev::Block&) {
    for (std::uint64_t round = 1; round <= 3; ++round) {
      if (dev::my_pe() == 0) {
        dev::signal_op(tok, round, SHMEM_SIGNAL_SET, peer);
        CHECK_EQ(dev::signal_wait_until(tok, SHMEM_CMP_GE, round), round);
      } else {
        dev::signal_wait_until(tok, SHMEM_CMP_GE, round);
        dev::signal_op(tok, round, SHMEM_SIGNAL_SET, peer);
      }
    }
    dev::signal_op(tok32, std::int32_t{1}, SHMEM_SIGNAL_ADD, peer);
    CHECK_EQ(dev::signal_wait_until(tok32, SHMEM_CMP_EQ, std::int32_t{1}), 1);
  });
  CHECK_EQ(rc, 0);
  CHECK_EQ(shmemx_stream_synchronize(nullptr), 0);
  CHECK_EQ(*tok, 3);
  shmem_barrier_all();
  shmem_free(tok32);
  shmem_free(tok);
}

void test_barriers() {
  constexpr int kRounds = 20;
  auto* slot = sym_calloc<long>(1);
  auto* ctr = sym_calloc<long>(1);
  std::atomic<long> mismatches{0};
  std::atomic<long>* mm = &mismatches;
  shmem_barrier_all();
  const int peer = right, from = left, n = npes;
  // Thread scope: one thread per PE.
  int rc = dev::launch(nullptr, 1, [=](const dev::Block&) {
    for (long r = 1; r <= kRounds; ++r) {
      dev::p(slot, r * 1000 + dev::my_pe(), peer);
      dev::barrier_all();
      if (*slot != r * 1000 + from) mm->fetch_add(1);
      dev::barrier_all();
    }
  });
  CHECK_EQ(rc, 0);
  CHECK_EQ(shmemx_stream_synchronize(nullptr), 0);
  CHECK_EQ(mismatches.load(), 0);

  // Grid scope in a cooperative launch: every thread of every block takes part.
  constexpr int kGrid = 4, kDim = 2;
  rc = dev::launch(
      nullptr, kGrid,
      [=](const dev::Block& b) {
        for (long r = 1; r <= 5; ++r) {
          for (int pe = 0; pe < n; ++pe) dev::atomic_add(ctr, 1L, pe);
          dev::barrier_all_grid(b);
          if (dev::atomic_fetch(ctr, dev::my_pe()) != r * n * kGrid * kDim) mm->fetch_add(1);
          dev::barrier_all_grid(b);
        }
      },
      {.block_dim = kDim, .cooperative = true});
  CHECK_EQ(rc, 0);
  CHECK_EQ(shmemx_stream_synchronize(nullptr), 0);
  CHECK_EQ(mismatches.load(), 0);
  CHECK_EQ(*ctr, 5L * n * kGrid * kDim);

  // Block scope.
  rc = dev::launch(
      nullptr, 1,
      [=](const dev::Block& b) {
        for (long r = 1; r <= 5; ++r) {
          if (b.thread_id == 0) dev::p(slot, -r - dev::my_pe(), peer);
          dev::barrier_all_block(b);
          if (*slot != -r - from) mm->fetch_add(1);
          dev::barrier_all_block(b);
        }
      },
      {.block_dim = 3});
  CHECK_EQ(rc, 0);
  CHECK_EQ(shmemx_stream_synchronize(nullptr), 0);
  CHECK_EQ(mismatches.load(), 0);

  // A team barrier (odd PEs, when there are any) with the count kept on the team's PE 0.
  shmem_team_t odd = SHMEM_TEAM_INVALID;
  if (npes > 1) shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, nullptr, 0, &odd);
  *ctr = 0;
  shmem_barrier_all();
  if (odd != SHMEM_TEAM_INVALID) {
    const int root = shmem_team_translate_pe(odd, 0, SHMEM_TEAM_WORLD);
    const int tn = shmem_team_n_pes(odd);
    CHECK_EQ(dev::team_n_pes(odd), tn);
    CHECK_EQ(dev::team_my_pe(odd), shmem_team_my_pe(odd));
    rc = dev::launch(nullptr, 1, [=](const dev::Block&) {
      for (long r = 1; r <= 10; ++r) {
        dev::atomic_add(ctr, 1L, root);
        dev::barrier(odd);
        if (dev::atomic_fetch(ctr, root) != r * tn) mm->fetch_add(1);
        dev::barrier(odd);
      }
    });
    CHECK_EQ(rc, 0);
    CHECK_EQ(shmemx_stream_synchronize(nullptr), 0);
    CHECK_EQ(mismatches.load(), 0);
  }
  shmem_barrier_all();
  if (odd != SHMEM_TEAM_INVALID) shmem_team_destroy(odd);

  // SHMEM_TEAM_SHARED: a team within one host (the node-local device barrier, also in a job
  // that spans hosts).
  const int shared_root = shmem_team_translate_pe(SHMEM_TEAM_SHARED, 0, SHMEM_TEAM_WORLD);
  const int shared_n = shmem_team_n_pes(SHMEM_TEAM_SHARED);
  *ctr = 0;
  shmem_barrier_all();
  rc = dev::launch(nullptr, 1, [=](const dev::Block&) {
    for (long r = 1; r <= 5; ++r) {
      dev::atomic_add(ctr, 1L, shared_root);
      dev::barrier(SHMEM_TEAM_SHARED);
      if (dev::atomic_fetch(ctr, shared_root) != r * shared_n) mm->fetch_add(1);
      dev::barrier(SHMEM_TEAM_SHARED);
    }
  });
  CHECK_EQ(rc, 0);
  CHECK_EQ(shmemx_stream_synchronize(nullptr), 0);
  CHECK_EQ(mismatches.load(), 0);
  shmem_barrier_all();
  shmem_free(ctr);
  shmem_free(slot);
}

// ---- the C launch path -------------------------------------------------------------------------
struct PutArgs {
  long* dst;
  long value;
  int pe;
  int bind;
};

extern "C" void put_kernel(shmemx_block_t* blk, void* p) {
  const PutArgs* a = static_cast<const PutArgs*>(p);
  if (a->bind) {
    auto guard = dev::bind(blk);
    dev::p(a->dst + blk->block_id, a->value + blk->block_id, a->pe);
  } else {
    dev::p(a->dst + blk->block_id, a->value + blk->block_id, a->pe);  // unbound: asks the library
  }
}

void test_c_launch_and_errors() {
  long* x = sym_calloc<long>(8);
  shmemx_stream_t s;
  CHECK_EQ(shmemx_stream_create(&s), 0);
  {
    PutArgs a{x, 100, right, 0};
    CHECK_EQ(shmemx_launch(put_kernel, 4, 1, &a, sizeof a, s), 0);
    a.value = -1;  // the launch copied the arguments
  }
  PutArgs b{x + 4, 200, right, 1};
  CHECK_EQ(shmemx_launch(put_kernel, 4, 2, &b, sizeof b, s), 0);
  CHECK_EQ(shmemx_stream_synchronize(s), 0);
  shmem_barrier_all();
  for (int i = 0; i < 4; ++i) {
    CHECK_EQ_AT(x[i], 100 + i, "C launch i=%d", i);
    CHECK_EQ_AT(x[4 + i], 200 + i, "C launch (bound) i=%d", i);
  }

  // A device error surfaces at synchronize; the rest of the stream still runs.
  PutArgs bad{x, 1, npes, 1};
  CHECK_EQ(shmemx_launch(put_kernel, 2, 1, &bad, sizeof bad, s), 0);
  long one = 1;
  shmemx_putmem_on_stream(x + 7, &one, sizeof one, me, s);
  CHECK_EQ(shmemx_stream_synchronize(s), SHMEMX_ERR_INVALID_ARGUMENT);
  CHECK_EQ(x[7], 1);
  CHECK_EQ(shmemx_stream_synchronize(s), 0);

  // A kernel that throws; invalid launches are refused at once.
  CHECK_EQ(dev::launch(s, 3, [](const dev::Block& blk) {
             if (blk.block_id == 1) throw std::runtime_error("kernel failure on purpose");
           }),
           0);
  CHECK_EQ(shmemx_stream_synchronize(s), SHMEMX_ERR_INTERNAL);
  CHECK_EQ(shmemx_launch(put_kernel, 0, 1, &b, sizeof b, s), SHMEMX_ERR_INVALID_ARGUMENT);
  CHECK_EQ(shmemx_launch(nullptr, 1, 1, &b, sizeof b, s), SHMEMX_ERR_INVALID_ARGUMENT);
  CHECK_EQ(shmemx_launch(put_kernel, 1, SHMEMX_MAX_BLOCK_DIM + 1, &b, sizeof b, s), SHMEMX_ERR_INVALID_ARGUMENT);
  CHECK_EQ(dev::launch(s, 2000, [](const dev::Block&) {}, {.block_dim = 1, .cooperative = true}),
           SHMEMX_ERR_INVALID_ARGUMENT);
  CHECK(shmemx_device_threads() >= 1);
  CHECK_EQ(shmemx_stream_destroy(s), 0);
  shmem_barrier_all();
  shmem_free(x);
}

// Kernels on two streams at once: one waits for what the other signals (a deadlock if the
// streams were not independent), while the default stream runs host-style work.
void test_concurrent_streams() {
  auto* flag = sym_calloc<std::uint64_t>(2);
  long* data = sym_calloc<long>(64);
  shmemx_stream_t a, b;
  CHECK_EQ(shmemx_stream_create(&a), 0);
  CHECK_EQ(shmemx_stream_create(&b), 0);
  shmem_barrier_all();
  const int mine = me;
  CHECK_EQ(dev::launch(a, 2, [=](const dev::Block& blk) {
             dev::signal_wait_until(&flag[blk.block_id], SHMEM_CMP_EQ, std::uint64_t{1});
             dev::p(&data[blk.block_id], 10L + blk.block_id, mine);
           }),
           0);
  long vals[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  shmemx_putmem_on_stream(data + 16, vals, sizeof vals, right, SHMEMX_STREAM_DEFAULT);
  CHECK_EQ(dev::launch(b, 2, [=](const dev::Block& blk) {
             dev::signal_op(&flag[blk.block_id], std::uint64_t{1}, SHMEM_SIGNAL_SET, mine);
           }),
           0);
  CHECK_EQ(shmemx_stream_synchronize(a), 0);
  CHECK_EQ(shmemx_stream_synchronize(b), 0);
  CHECK_EQ(shmemx_stream_synchronize(SHMEMX_STREAM_DEFAULT), 0);
  CHECK_EQ(data[0], 10);
  CHECK_EQ(data[1], 11);
  shmem_barrier_all();
  for (int i = 0; i < 8; ++i) CHECK_EQ_AT(data[16 + i], i + 1, "default stream put i=%d", i);
  CHECK_EQ(shmemx_stream_destroy(a), 0);
  CHECK_EQ(shmemx_stream_destroy(b), 0);
  shmem_barrier_all();
  shmem_free(data);
  shmem_free(flag);
}

// p/g/get/iput/iget and ptr through the device API.
void test_small_rma() {
  int* v = sym_calloc<int>(16);
  for (int i = 0; i < 16; ++i) v[i] = me * 100 + i;
  shmem_barrier_all();
  std::atomic<long> bad{0};
  std::atomic<long>* pb = &bad;
  const int from = left;
  // Direct access only within a host: ptr is non-NULL exactly for the PEs of SHMEM_TEAM_SHARED
  // (NULL for a PE on another host), as shmem_ptr.
  const bool mapped = shmem_team_translate_pe(SHMEM_TEAM_WORLD, from, SHMEM_TEAM_SHARED) >= 0;
  CHECK_EQ(shmem_ptr(v, from) != nullptr, mapped);
  CHECK_EQ(dev::launch(nullptr, 1, [=](const dev::Block&) {
             if (dev::g(&v[3], from) != from * 100 + 3) pb->fetch_add(1);
             int buf[4] = {0, 0, 0, 0};
             dev::get(buf, v + 4, 4, from);
             for (int i = 0; i < 4; ++i)
               if (buf[i] != from * 100 + 4 + i) pb->fetch_add(1);
             int strided[4] = {0, 0, 0, 0};
             dev::iget(strided, v, 1, 4, 4, from);  // v[0], v[4], v[8], v[12]
             for (int i = 0; i < 4; ++i)
               if (strided[i] != from * 100 + 4 * i) pb->fetch_add(1);
             if ((dev::ptr(v, from) != nullptr) != mapped || dev::ptr(&buf[0], from) != nullptr) pb->fetch_add(1);
           }),
           0);
  CHECK_EQ(shmemx_stream_synchronize(nullptr), 0);
  CHECK_EQ(bad.load(), 0);
  shmem_barrier_all();

  // put_nbi, strided iput and p to the right neighbour, completed by the device quiet; then a
  // signal tells it (the data is complete before the signal is sent).
  int* in = sym_calloc<int>(24);
  auto* sig = sym_calloc<std::uint64_t>(1);
  shmem_barrier_all();
  const int peer = right, mine = me;
  CHECK_EQ(dev::launch(nullptr, 1, [=](const dev::Block&) {
             int vals[4];
             for (int i = 0; i < 4; ++i) vals[i] = mine * 1000 + i;
             dev::put_nbi(in, vals, 4, peer);              // in[0..3]
             dev::iput(in + 4, vals, 2, 1, 4, peer);       // in[4], in[6], in[8], in[10]
             int back[4] = {0, 0, 0, 0};  // vals stays untouched until the quiet (put_nbi reads it)
             dev::getmem_nbi(back, v + 8, sizeof back, peer);  // the peer's v[8..11]
             dev::p(in + 12, mine + 77, peer);
             dev::quiet();
             for (int i = 0; i < 4; ++i)
               if (back[i] != peer * 100 + 8 + i) pb->fetch_add(1);
             dev::signal_op(sig, std::uint64_t{1}, SHMEM_SIGNAL_SET, peer);
           }),
           0);
  CHECK_EQ(shmemx_stream_synchronize(nullptr), 0);
  CHECK_EQ(bad.load(), 0);
  shmem_uint64_wait_until(sig, SHMEM_CMP_EQ, 1);
  for (int i = 0; i < 4; ++i) {
    CHECK_EQ_AT(in[i], left * 1000 + i, "put_nbi i=%d", i);
    CHECK_EQ_AT(in[4 + 2 * i], left * 1000 + i, "iput i=%d", i);
    CHECK_EQ_AT(in[5 + 2 * i], 0, "iput gap i=%d", i);
  }
  CHECK_EQ(in[12], left + 77);
  shmem_barrier_all();
  shmem_free(sig);
  shmem_free(in);
  shmem_free(v);
}

}  // namespace

// stream_kernels [atomic-iterations]: the atomics test's rounds per thread (default 300).
int main(int argc, char** argv) {
  const int iters = argc > 1 ? std::atoi(argv[1]) : 300;
  shmem_init();
  me = shmem_my_pe();
  npes = shmem_n_pes();
  right = (me + 1) % npes;
  left = (me + npes - 1) % npes;
  for (int grid : {1, 4, 16}) test_grid(grid);
  test_block_cooperative();
  test_atomics(iters);
  test_signal_wait();
  test_barriers();
  test_c_launch_and_errors();
  test_concurrent_streams();
  test_small_rma();
  check_failures_ += run_acl_kernels();
  CHECK_EQ(shmemx_stream_destroy_all(), 0);
  if (me == 0) std::printf("stream_kernels: %d PEs OK\n", npes);
  return check_finish(NULL);
}
