/*
 * pe_order.c - memory ordering: fence (data put, fence, flag put: the receiver of the flag must
 * see the data), quiet (data put to one PE, quiet, flag to a third PE that then reads the data
 * from the first), the same with large nonblocking puts (128 KiB: UCP puts between hosts, not
 * the transport's batched small puts) whose signal is given four ways, and barrier_all /
 * sync_all many times in a row with values checked between.
 */
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"

enum { DATA = 512 };

static long fence_data[DATA];
static long fence_flag;
static long fence_ack;
static long quiet_data[DATA];
static long quiet_flag;
static long quiet_ack;
enum { BIG = 16384 }; /* longs: 128 KiB, a large put */
static long big_data[BIG];
static long big_back[BIG];
static long big_flag;
static long big_ack;
static uint64_t big_sig;
static long slots[2];
static long counters[2];

static long data_value(int it, int pe, int i) { return (long)it * 1000003L + pe * 1009L + i; }

/* Ring: every PE sends to its right neighbour and receives from its left one. Iteration `it`:
 * wait until the right neighbour acknowledged it-1, put the data (in several pieces and forms),
 * fence, then write the flag; receive: wait for our flag == it, check all data, ack the left. */
static void fence_ring(int iters) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const int right = (me + 1) % n, left = (me - 1 + n) % n;
  long src[DATA];
  fence_flag = 0;
  fence_ack = 0;
  shmem_barrier_all();
  for (int it = 1; it <= iters; ++it) {
    shmem_long_wait_until(&fence_ack, SHMEM_CMP_GE, it - 1);
    for (int i = 0; i < DATA; ++i) src[i] = data_value(it, me, i);
    switch (it % 4) {
      case 0:
        shmem_long_put(fence_data, src, DATA, right);
        shmem_fence();
        shmem_long_p(&fence_flag, it, right);
        break;
      case 1:
        shmem_long_put_nbi(fence_data, src, DATA / 2, right);
        shmem_long_put_nbi(fence_data + DATA / 2, src + DATA / 2, DATA / 2, right);
        shmem_fence();
        shmem_long_atomic_set(&fence_flag, it, right);
        break;
      case 2:
        shmem_ctx_putmem(SHMEM_CTX_DEFAULT, fence_data, src, sizeof src, right);
        shmem_ctx_fence(SHMEM_CTX_DEFAULT);
        shmem_ctx_long_put(SHMEM_CTX_DEFAULT, &fence_flag, (long[]){it}, 1, right);
        break;
      default:
        shmem_long_iput(fence_data, src, 2, 2, DATA / 2, right);
        shmem_long_iput(fence_data + 1, src + 1, 2, 2, DATA / 2, right);
        shmem_fence();
        shmem_long_atomic_add(&fence_flag, 1, right);
        break;
    }
    shmem_long_wait_until(&fence_flag, SHMEM_CMP_GE, it);
    CHECKF(fence_flag == it, "fence iteration %d: flag %ld", it, fence_flag);
    for (int i = 0; i < DATA; ++i) {
      if (fence_data[i] != data_value(it, left, i)) {
        CHECKF(0, "fence iteration %d: element %d is %ld, expected %ld (data not visible before flag)",
               it, i, fence_data[i], data_value(it, left, i));
        break;
      }
    }
    shmem_long_atomic_inc(&fence_ack, left);
  }
  shmem_long_wait_until(&fence_ack, SHMEM_CMP_GE, iters);
  shmem_barrier_all();
}

/* Third-party visibility: PE me puts data into `right`, quiets, then raises a flag at `right2`
 * (two to the right); `right2`... i.e. every PE, on seeing its flag, gets the data from its left
 * neighbour (where the PE two to the left put it) and checks it. */
static void quiet_third_party(int iters) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const int right = (me + 1) % n, right2 = (me + 2) % n;
  const int left = (me - 1 + n) % n, left2 = (me - 2 + 2 * n) % n;
  long src[DATA], got[DATA];
  quiet_flag = 0;
  quiet_ack = 0;
  shmem_barrier_all();
  for (int it = 1; it <= iters; ++it) {
    shmem_long_wait_until(&quiet_ack, SHMEM_CMP_GE, it - 1);
    for (int i = 0; i < DATA; ++i) src[i] = data_value(it, me, i);
    if (it % 2)
      shmem_long_put_nbi(quiet_data, src, DATA, right);
    else
      shmem_ctx_long_put(SHMEM_CTX_DEFAULT, quiet_data, src, DATA, right);
    if (it % 3)
      shmem_quiet();
    else
      shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
    shmem_long_atomic_set(&quiet_flag, it, right2);

    shmem_long_wait_until(&quiet_flag, SHMEM_CMP_EQ, it);
    shmem_long_get(got, quiet_data, DATA, left);
    for (int i = 0; i < DATA; ++i) {
      if (got[i] != data_value(it, left2, i)) {
        CHECKF(0, "quiet iteration %d: element %d on PE %d is %ld, expected %ld", it, i, left,
               got[i], data_value(it, left2, i));
        break;
      }
    }
    shmem_long_atomic_inc(&quiet_ack, left2);
  }
  shmem_long_wait_until(&quiet_ack, SHMEM_CMP_GE, iters);
  shmem_barrier_all();
}

static int big_mismatch(const long* got, int it, int pe) {
  for (int i = 0; i < BIG; ++i)
    if (got[i] != data_value(it, pe, i)) return i;
  return -1;
}

/* The fence ring with large nonblocking puts, their signal given four ways (a small put, a
 * UCP atomic set, put_signal_nbi's signal, an atomic add); then put_nbi + quiet + a get of the
 * same bytes back from the target. */
static void big_ring(int iters) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const int right = (me + 1) % n, left = (me - 1 + n) % n;
  long* src = malloc(sizeof(long) * BIG);
  long* got = malloc(sizeof(long) * BIG);
  CHECKF(src && got, "no memory for %d longs", BIG);
  big_flag = 0;
  big_ack = 0;
  big_sig = 0;
  shmem_barrier_all();
  for (int it = 1; it <= iters; ++it) {
    shmem_long_wait_until(&big_ack, SHMEM_CMP_GE, it - 1);
    for (int i = 0; i < BIG; ++i) src[i] = data_value(it, me, i);
    switch (it % 4) {
      case 0:
        shmem_long_put_nbi(big_data, src, BIG, right);
        shmem_fence();
        shmem_long_p(&big_flag, it, right);
        break;
      case 1:
        shmem_long_put_nbi(big_data, src, BIG / 2, right);
        shmem_long_put_nbi(big_data + BIG / 2, src + BIG / 2, BIG / 2, right);
        shmem_fence();
        shmem_long_atomic_set(&big_flag, it, right);
        break;
      case 2:
        shmem_putmem_signal_nbi(big_data, src, sizeof(long) * BIG, &big_sig, (uint64_t)it, SHMEM_SIGNAL_SET, right);
        break;
      default: /* the flag is it - 2: the iteration before signalled big_sig */
        shmem_long_put_nbi(big_data, src, BIG, right);
        shmem_fence();
        shmem_long_atomic_add(&big_flag, 2, right);
        break;
    }
    if (it % 4 == 2)
      shmem_signal_wait_until(&big_sig, SHMEM_CMP_EQ, (uint64_t)it);
    else
      shmem_long_wait_until(&big_flag, SHMEM_CMP_EQ, it);
    const int bad = big_mismatch(big_data, it, left);
    CHECKF(bad < 0, "large-put fence iteration %d (form %d): element %d is %ld, expected %ld (data not visible "
           "before the signal)", it, it % 4, bad, bad < 0 ? 0 : big_data[bad], bad < 0 ? 0 : data_value(it, left, bad));
    if (bad >= 0) shmem_global_exit(1); /* the other PEs wait for this one's acknowledgements */
    shmem_quiet(); /* our own puts of this iteration completed before the ack lets the left PE reuse the buffer */
    shmem_long_atomic_inc(&big_ack, left);
  }
  shmem_long_wait_until(&big_ack, SHMEM_CMP_GE, iters);
  shmem_barrier_all();
  for (int it = 1; it <= iters / 4; ++it) {  /* quiet completes large nonblocking puts */
    for (int i = 0; i < BIG; ++i) src[i] = data_value(it, me, i);
    shmem_long_put_nbi(big_back, src, BIG, right);
    shmem_quiet();
    shmem_long_get(got, big_back, BIG, right);
    const int bad = big_mismatch(got, it, me);
    CHECKF(bad < 0, "large put_nbi + quiet iteration %d: element %d on PE %d is %ld, expected %ld", it, bad, right,
           bad < 0 ? 0 : got[bad], bad < 0 ? 0 : data_value(it, me, bad));
    if (bad >= 0) shmem_global_exit(1);
  }
  shmem_barrier_all();
  free(src);
  free(got);
}

/* barrier_all / sync_all in a row: double-buffered slots and counters, one barrier per round. */
static void barriers(int iters) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const int right = (me + 1) % n, left = (me - 1 + n) % n;
  slots[0] = slots[1] = -1;
  counters[0] = counters[1] = 0;
  shmem_barrier_all();
  for (int it = 0; it < 2 * iters; ++it) {
    const int b = it % 2;
    const int use_sync = it >= iters;
    shmem_long_p(&slots[b], data_value(it, me, 0), right);
    shmem_long_atomic_inc(&counters[b], 0);
    if (use_sync) {
      shmem_quiet(); /* sync_all does not complete puts by itself */
      shmem_sync_all();
    } else {
      shmem_barrier_all();
    }
    CHECKF(slots[b] == data_value(it, left, 0), "%s round %d: slot %ld, expected %ld",
           use_sync ? "sync_all" : "barrier_all", it, slots[b], data_value(it, left, 0));
    long c = shmem_long_atomic_fetch(&counters[b], 0);
    CHECKF(c == (long)(it / 2 + 1) * n, "%s round %d: counter %ld, expected %ld",
           use_sync ? "sync_all" : "barrier_all", it, c, (long)(it / 2 + 1) * n);
  }
  shmem_barrier_all();
}

int main(void) {
  shmem_init();
  const int n = shmem_n_pes();
  const int iters = n > 4 ? 1000 : 3000;
  fence_ring(iters);
  quiet_third_party(iters);
  big_ring(n > 4 ? 40 : 200);
  barriers(n > 4 ? 1000 : 2000);
  if (shmem_my_pe() == 0 && check_failures_ == 0) printf("pe_order: OK\n");
  return check_finish(NULL);
}
