// pe_wait_contention.cpp - every family of wait, many hand-offs in a row, with exact values:
// point-to-point waits (wait_until and its all/any/some forms), signal waits, locks, barriers
// and team syncs (world, a split team, an active set), collectives (team and active-set
// broadcast, reduction, fcollect), stream waits and device-API waits (signal wait, barrier, and
// a wait between two kernel threads of one PE).
//
// Registered at 2, 4 and 8 PEs, both on the machine's CPUs and pinned to ONE CPU with taskset
// (pinned_run.sh): the PE that a wait waits for is then often queued behind the waiter on the
// same CPU, which is exactly where a wait that does not hand its CPU over would starve it. The
// program checks values only; it never measures time. Every loop is bounded (kRounds hand-offs
// per family), and the CTest timeout ends a hang.
#include <shmemx.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <shmem/device/device.hpp>
#include <thread>
#include <vector>

#include "check.h"

namespace dev = shmem::device;

namespace {

constexpr long kRounds = 60;
int me, npes, right, left;

template <class T>
T* sym_calloc(std::size_t n) {
  T* p = static_cast<T*>(shmem_calloc(n, sizeof(T)));
  if (!p) {
    fprintf(stderr, "PE %d: shmem_calloc(%zu) failed\n", me, n * sizeof(T));
    shmem_global_exit(1);
  }
  return p;
}

// A token goes around the ring: PE 0 starts round r, every PE waits for its left neighbour's
// value of round r and passes it on.
void test_ring_wait_until() {
  long* tok = sym_calloc<long>(1);
  shmem_barrier_all();
  for (long r = 1; r <= kRounds; ++r) {
    if (me == 0) {
      shmem_long_p(tok, r, right);
      shmem_long_wait_until(tok, SHMEM_CMP_EQ, r);
    } else {
      shmem_long_wait_until(tok, SHMEM_CMP_GE, r);
      CHECK_EQ(*tok, r);
      shmem_long_p(tok, r, right);
    }
  }
  CHECK_EQ(*tok, kRounds);
  shmem_barrier_all();
  shmem_free(tok);
}

// Every PE writes round r into its slot on every PE; each PE waits for all of them (all), for
// one (any) and for some (some), then a vector form with per-element targets.
void test_vector_waits() {
  long* slots = sym_calloc<long>(static_cast<std::size_t>(npes));
  std::vector<int> status(static_cast<std::size_t>(npes), 0);
  std::vector<std::size_t> idx(static_cast<std::size_t>(npes));
  std::vector<long> targets(static_cast<std::size_t>(npes));
  shmem_barrier_all();
  for (long r = 1; r <= kRounds; ++r) {
    for (int pe = 0; pe < npes; ++pe) shmem_long_p(&slots[me], r, pe);
    shmem_long_wait_until_all(slots, static_cast<std::size_t>(npes), status.data(), SHMEM_CMP_GE, r);
    for (int pe = 0; pe < npes; ++pe) CHECK_EQ_AT(slots[pe] >= r, 1, "all, round %ld, slot %d", r, pe);
    const std::size_t any = shmem_long_wait_until_any(slots, static_cast<std::size_t>(npes), status.data(),
                                                      SHMEM_CMP_GE, r);
    CHECK(any < static_cast<std::size_t>(npes));
    if (any < static_cast<std::size_t>(npes)) CHECK_EQ(slots[any] >= r, 1);
    const std::size_t some = shmem_long_wait_until_some(slots, static_cast<std::size_t>(npes), idx.data(),
                                                        status.data(), SHMEM_CMP_GE, r);
    CHECK(some >= 1 && some <= static_cast<std::size_t>(npes));
    for (int pe = 0; pe < npes; ++pe) targets[static_cast<std::size_t>(pe)] = r;
    shmem_long_wait_until_all_vector(slots, static_cast<std::size_t>(npes), status.data(), SHMEM_CMP_GE,
                                     targets.data());
    shmem_barrier_all();  // nobody writes round r + 1 before everyone has seen round r
  }
  for (int pe = 0; pe < npes; ++pe) CHECK_EQ_AT(slots[pe], kRounds, "slot %d", pe);
  shmem_barrier_all();
  shmem_free(slots);
}

// Put-with-signal around the ring: the payload must be there when the signal is. A PE checks
// its payload between its wait and its own put: once it has passed the token on, the ring can
// come round and its left neighbour may already have written the next round's payload.
void test_signal_waits() {
  long* data = sym_calloc<long>(1);
  auto* sig = sym_calloc<std::uint64_t>(1);
  shmem_barrier_all();
  for (long r = 1; r <= kRounds; ++r) {
    const long v = r * 1000 + me;
    if (me == 0) {
      shmem_long_put_signal(data, &v, 1, sig, static_cast<std::uint64_t>(r), SHMEM_SIGNAL_SET, right);
      CHECK_EQ(shmem_signal_wait_until(sig, SHMEM_CMP_EQ, static_cast<std::uint64_t>(r)), r);
      CHECK_EQ_AT(*data, r * 1000 + left, "round %ld", r);
    } else {
      CHECK_EQ(shmem_signal_wait_until(sig, SHMEM_CMP_GE, static_cast<std::uint64_t>(r)), r);
      CHECK_EQ_AT(*data, r * 1000 + left, "round %ld", r);
      shmem_long_put_signal(data, &v, 1, sig, static_cast<std::uint64_t>(r), SHMEM_SIGNAL_SET, right);
    }
  }
  shmem_barrier_all();
  shmem_free(sig);
  shmem_free(data);
}

// A counter on PE 0 incremented with a plain get + put under the lock: any overlap loses an
// increment. Afterwards each PE takes the free lock once with shmem_test_lock.
void test_locks() {
  static long lock;  // symmetric (static data), zero-initialised
  long* counter = sym_calloc<long>(1);
  shmem_barrier_all();
  for (long i = 0; i < kRounds; ++i) {
    shmem_set_lock(&lock);
    const long v = shmem_long_g(counter, 0);
    shmem_long_p(counter, v + 1, 0);
    shmem_clear_lock(&lock);
  }
  shmem_barrier_all();
  if (me == 0) CHECK_EQ(*counter, kRounds * npes);
  shmem_barrier_all();
  for (int pe = 0; pe < npes; ++pe) {
    if (pe == me) {
      CHECK_EQ(shmem_test_lock(&lock), 0);  // nobody else holds it now
      shmem_clear_lock(&lock);
    }
    shmem_barrier_all();
  }
  shmem_free(counter);
}

// Barriers: in round r every PE writes r into its right neighbour, and after the barrier must
// see its left neighbour's r. Then the same on a team of the even PEs (team sync) and on an
// active set of the odd PEs (legacy shmem_barrier with a pSync).
void test_barriers() {
  long* slot = sym_calloc<long>(1);
  long* psync = sym_calloc<long>(SHMEM_BARRIER_SYNC_SIZE);
  for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; ++i) psync[i] = SHMEM_SYNC_VALUE;
  shmem_team_t even = SHMEM_TEAM_INVALID;
  shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, nullptr, 0, &even);
  shmem_barrier_all();
  for (long r = 1; r <= kRounds; ++r) {
    shmem_long_p(slot, r * 100 + me, right);
    shmem_barrier_all();
    CHECK_EQ_AT(*slot, r * 100 + left, "barrier_all round %ld", r);
    shmem_barrier_all();
  }
  const int odd_n = npes / 2;
  for (long r = 1; r <= kRounds; ++r) {
    if (even != SHMEM_TEAM_INVALID) {
      const int tn = shmem_team_n_pes(even), tme = shmem_team_my_pe(even);
      const int to = shmem_team_translate_pe(even, (tme + 1) % tn, SHMEM_TEAM_WORLD);
      shmem_long_p(slot, -r, to);
      shmem_quiet();  // a team sync orders nothing by itself
      shmem_team_sync(even);
      CHECK_EQ_AT(*slot, -r, "team sync round %ld", r);
      shmem_team_sync(even);
    } else if (odd_n > 0) {
      const int k = (me - 1) / 2, to = 1 + 2 * ((k + 1) % odd_n);
      shmem_long_p(slot, r, to);
      shmem_quiet();
      shmem_barrier(1, 1, odd_n, psync);
      CHECK_EQ_AT(*slot, r, "active-set barrier round %ld", r);
      shmem_barrier(1, 1, odd_n, psync);
    }
  }
  shmem_barrier_all();
  if (even != SHMEM_TEAM_INVALID) shmem_team_destroy(even);
  shmem_free(psync);
  shmem_free(slot);
}

// Collectives, team forms and active-set forms, with the values checked every round. Each kind
// has its own source and destination (a pushing root may write a PE's dest before that PE
// enters the call, so two back-to-back collectives must not share one), and the active-set
// forms alternate two pSync arrays.
void test_collectives() {
  const auto n = static_cast<std::size_t>(npes);
  enum { kBcast, kSum, kCollect, kBcast64, kSumAll, kCollect64, kKinds };
  long* src = sym_calloc<long>(kKinds);
  long* dst = sym_calloc<long>(kKinds * n);
  auto out = [&](int kind) { return dst + static_cast<std::size_t>(kind) * n; };
  const int psync_len = SHMEM_REDUCE_SYNC_SIZE + SHMEM_BCAST_SYNC_SIZE + SHMEM_COLLECT_SYNC_SIZE;
  long* psync = sym_calloc<long>(2 * static_cast<std::size_t>(psync_len));
  long* pwrk = sym_calloc<long>(2 * SHMEM_REDUCE_MIN_WRKDATA_SIZE);
  for (int i = 0; i < 2 * psync_len; ++i) psync[i] = SHMEM_SYNC_VALUE;
  shmem_barrier_all();
  const long sum = static_cast<long>(npes) * (npes - 1) / 2;
  for (long r = 1; r <= kRounds; ++r) {
    const int k = static_cast<int>(r & 1);
    long* red_sync = psync + k * psync_len;
    long* bc_sync = red_sync + SHMEM_REDUCE_SYNC_SIZE;
    long* col_sync = bc_sync + SHMEM_BCAST_SYNC_SIZE;
    long* wrk = pwrk + k * SHMEM_REDUCE_MIN_WRKDATA_SIZE;
    const int root = static_cast<int>(r % npes);
    for (int kind = 0; kind < kKinds; ++kind) src[kind] = r * 10 * (kind + 1) + me;
    const auto want = [&](int kind, int pe) { return r * 10 * (kind + 1) + pe; };
    CHECK_EQ(shmem_long_broadcast(SHMEM_TEAM_WORLD, out(kBcast), &src[kBcast], 1, root), 0);
    if (me != root) CHECK_EQ_AT(out(kBcast)[0], want(kBcast, root), "team broadcast round %ld", r);
    CHECK_EQ(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, out(kSum), &src[kSum], 1), 0);
    CHECK_EQ_AT(out(kSum)[0], r * 10 * (kSum + 1) * npes + sum, "team sum round %ld", r);
    CHECK_EQ(shmem_long_fcollect(SHMEM_TEAM_WORLD, out(kCollect), &src[kCollect], 1), 0);
    for (int pe = 0; pe < npes; ++pe)
      CHECK_EQ_AT(out(kCollect)[pe], want(kCollect, pe), "team fcollect round %ld pe %d", r, pe);
    shmem_broadcast64(out(kBcast64), &src[kBcast64], 1, root, 0, 0, npes, bc_sync);
    if (me != root) CHECK_EQ_AT(out(kBcast64)[0], want(kBcast64, root), "broadcast64 round %ld", r);
    shmem_long_sum_to_all(out(kSumAll), &src[kSumAll], 1, 0, 0, npes, wrk, red_sync);
    CHECK_EQ_AT(out(kSumAll)[0], r * 10 * (kSumAll + 1) * npes + sum, "sum_to_all round %ld", r);
    shmem_fcollect64(out(kCollect64), &src[kCollect64], 1, 0, 0, npes, col_sync);
    for (int pe = 0; pe < npes; ++pe)
      CHECK_EQ_AT(out(kCollect64)[pe], want(kCollect64, pe), "fcollect64 round %ld pe %d", r, pe);
  }
  shmem_barrier_all();
  shmem_free(pwrk);
  shmem_free(psync);
  shmem_free(dst);
  shmem_free(src);
}

// A stream waits for the left neighbour's signal (shmemx_signal_wait_until_on_stream), then
// puts the next signal to the right neighbour; the host synchronizes the stream.
void test_stream_waits() {
  auto* sig = sym_calloc<std::uint64_t>(1);
  shmemx_stream_t s = nullptr;
  CHECK_EQ(shmemx_stream_create(&s), 0);
  shmem_barrier_all();
  for (long r = 1; r <= kRounds / 4; ++r) {
    const auto v = static_cast<std::uint64_t>(r);
    if (me == 0) {
      shmemx_signal_op_on_stream(sig, v, SHMEM_SIGNAL_SET, right, s);
      shmemx_signal_wait_until_on_stream(sig, SHMEM_CMP_EQ, v, s);
    } else {
      shmemx_signal_wait_until_on_stream(sig, SHMEM_CMP_GE, v, s);
      shmemx_signal_op_on_stream(sig, v, SHMEM_SIGNAL_SET, right, s);
    }
    CHECK_EQ(shmemx_stream_synchronize(s), 0);
    CHECK_EQ_AT(*sig >= v, 1, "stream round %ld", r);
  }
  CHECK_EQ(shmemx_stream_destroy(s), 0);
  shmem_barrier_all();
  shmem_free(sig);
}

// Device API: a kernel passes a token around the ring with device signal waits and meets the
// other PEs' kernels in device barriers.
void test_device_waits() {
  auto* tok = sym_calloc<std::uint64_t>(1);
  long* slot = sym_calloc<long>(1);
  shmem_barrier_all();
  const int peer = right, from = left;
  long* bad = sym_calloc<long>(1);
  const int rc = dev::launch(nullptr, 1, [=](const dev::Block&) {
    for (std::uint64_t r = 1; r <= static_cast<std::uint64_t>(kRounds); ++r) {
      if (dev::my_pe() == 0) {
        dev::signal_op(tok, r, SHMEM_SIGNAL_SET, peer);
        if (dev::signal_wait_until(tok, SHMEM_CMP_EQ, r) != r) ++*bad;
      } else {
        if (dev::signal_wait_until(tok, SHMEM_CMP_GE, r) != r) ++*bad;
        dev::signal_op(tok, r, SHMEM_SIGNAL_SET, peer);
      }
      dev::p(slot, static_cast<long>(r) * 10 + dev::my_pe(), peer);
      dev::barrier_all();
      if (*slot != static_cast<long>(r) * 10 + from) ++*bad;
      dev::barrier_all();
    }
  });
  CHECK_EQ(rc, 0);
  CHECK_EQ(shmemx_stream_synchronize(nullptr), 0);
  CHECK_EQ(*bad, 0);
  CHECK_EQ(*tok, kRounds);
  shmem_barrier_all();
  shmem_free(bad);
  shmem_free(slot);
  shmem_free(tok);
}

// Device API between two threads of one PE: the two blocks of a cooperative kernel pass a token
// back and forth through a private word with device waits. Pinned to one CPU, each wait's peer
// is the other thread of its own PE, queued behind it: a wait that spun on instead of handing
// the CPU over would take a time slice per round.
void test_device_sibling_waits() {
  std::vector<long> word(1, 0);
  long* w = word.data();
  std::vector<long> bad(2, 0);
  long* nbad = bad.data();
  dev::LaunchOptions opt;
  opt.cooperative = true;
  const int rc = dev::launch(
      nullptr, 2,
      [=](const dev::Block& b) {
        std::atomic_ref<long> a(*w);
        for (long r = 1; r <= kRounds; ++r) {
          const long mine = 2 * r - 1 + b.block_id;  // block 0 writes odd values, block 1 even
          if (b.block_id == 1 && dev::wait_until(w, SHMEM_CMP_EQ, mine - 1) != mine - 1) ++nbad[1];
          a.store(mine, std::memory_order_release);
          if (b.block_id == 0 && dev::wait_until(w, SHMEM_CMP_EQ, mine + 1) != mine + 1) ++nbad[0];
        }
      },
      opt);
  CHECK_EQ(rc, 0);
  CHECK_EQ(shmemx_stream_synchronize(nullptr), 0);
  CHECK_EQ(bad[0] + bad[1], 0);
  CHECK_EQ(word[0], 2 * kRounds);
  shmem_barrier_all();
}

// --thread-multiple only: two threads of each PE pass a word back and forth through its own
// symmetric memory (shmem_long_p to itself, shmem_long_wait_until), so what a wait waits for
// is a thread of its own PE, which the wait board cannot see: pinned to one CPU the sibling is
// queued behind the waiter, and only a wait that hands its CPU over lets it run.
void test_thread_waits() {
  long* w = sym_calloc<long>(2);
  shmem_barrier_all();
  std::thread other([w] {
    for (long r = 1; r <= kRounds; ++r) {
      shmem_long_wait_until(&w[0], SHMEM_CMP_EQ, r);
      shmem_long_p(&w[1], r, me);
    }
  });
  long last = 0;
  for (long r = 1; r <= kRounds; ++r) {
    shmem_long_p(&w[0], r, me);
    shmem_long_wait_until(&w[1], SHMEM_CMP_EQ, r);
    last = w[1];
  }
  other.join();
  CHECK_EQ(last, kRounds);
  CHECK_EQ(w[0], kRounds);
  shmem_barrier_all();
  shmem_free(w);
}

}  // namespace

// --thread-multiple: initialise for SHMEM_THREAD_MULTIPLE (the waits then also hand over for
// threads of their own PE) and add test_thread_waits.
int main(int argc, char** argv) {
  const bool multiple = argc > 1 && std::strcmp(argv[1], "--thread-multiple") == 0;
  if (multiple) {
    int provided = 0;
    if (shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) != 0 || provided != SHMEM_THREAD_MULTIPLE) {
      fprintf(stderr, "pe_wait_contention: SHMEM_THREAD_MULTIPLE not provided (%d)\n", provided);
      return 1;
    }
  } else {
    shmem_init();
  }
  me = shmem_my_pe();
  npes = shmem_n_pes();
  right = (me + 1) % npes;
  left = (me + npes - 1) % npes;
  test_ring_wait_until();
  test_vector_waits();
  test_signal_waits();
  test_locks();
  test_barriers();
  test_collectives();
  test_stream_waits();
  test_device_waits();
  test_device_sibling_waits();
  if (multiple) test_thread_waits();
  CHECK_EQ(shmemx_stream_destroy_all(), 0);
  if (me == 0 && check_failures_ == 0)
    printf("pe_wait_contention: OK (%d PEs%s)\n", npes, multiple ? ", THREAD_MULTIPLE" : "");
  return check_finish(NULL);
}
