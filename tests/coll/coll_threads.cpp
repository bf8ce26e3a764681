// coll_threads.cpp - SHMEM_THREAD_MULTIPLE: several threads per PE communicate at once.
//
//  1. shmem_init_thread(SHMEM_THREAD_MULTIPLE) provides MULTIPLE (and query_thread agrees).
//  2. 4 threads per PE, each with its own context (created by the thread: options 0, PRIVATE,
//     SERIALIZED, PRIVATE|SERIALIZED), put to every PE, fetch-add a per-thread counter on every
//     PE, mark the fetched ticket (fetch_inc_nbi of seen[ticket], which must have fetched 0 by
//     the quiet: no ticket is handed out twice), quiet, and get back what they put. Afterwards every counter, every
//     ticket mark and every mailbox holds an exact value.
//  3. The same threads then run collectives concurrently, each on its own team (created before
//     the threads start): broadcast, sum reduction, fcollect, alltoall and team_sync, with
//     exact values.
//
// Built twice: plainly, and with -fsanitize=thread (the TSan copy must run with no report).
#include <shmem.h>

#include <atomic>
#include <thread>
#include <vector>

#include "check.h"

namespace {

constexpr int kThreads = 4;
constexpr int kMaxPes = 16;
constexpr int kNe = 16;
constexpr int kCollNe = 8;

int g_me, g_npes, g_rounds;

long g_slots[kMaxPes][kThreads][kNe];  // [sender PE][sender thread]: written only by that pair
long g_counters[kThreads];
int* g_seen[kThreads];                  // symmetric, g_npes * g_rounds ints each
long g_coll_src[kThreads][kMaxPes * kCollNe];
long g_coll_dst[kThreads][kMaxPes * kCollNe];
shmem_team_t g_teams[kThreads];

long tag(int pe, int t, int r, int i) { return 1000000L * (pe + 1) + 10000L * t + 100L * r + i; }

void rma_phase(int t) {
  static const long opts[kThreads] = {0, SHMEM_CTX_PRIVATE, SHMEM_CTX_SERIALIZED,
                                      SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED};
  shmem_ctx_t ctx = SHMEM_CTX_INVALID;
  const int rc = shmem_ctx_create(opts[t], &ctx);
  CHECKF(rc == 0, "thread %d: ctx_create returned %d", t, rc);
  if (rc != 0) ctx = SHMEM_CTX_DEFAULT;
  const int tickets = g_npes * g_rounds;
  long vals[kNe], back[kNe];
  for (int r = 0; r < g_rounds; ++r) {
    for (int k = 0; k < g_npes; ++k) {
      const int pe = (g_me + k + t) % g_npes;
      for (int i = 0; i < kNe; ++i) vals[i] = tag(g_me, t, r, i);
      shmem_ctx_long_put(ctx, g_slots[g_me][t], vals, kNe, pe);
      const long ticket = shmem_ctx_long_atomic_fetch_add(ctx, &g_counters[t], 1, pe);
      CHECKF(ticket >= 0 && ticket < tickets, "thread %d: ticket %ld from PE %d out of range", t, ticket, pe);
      int prev = -1;  // the nonblocking form: its value is there after the quiet
      if (ticket >= 0 && ticket < tickets) shmem_ctx_int_atomic_fetch_inc_nbi(ctx, &prev, &g_seen[t][ticket], pe);
      shmem_ctx_quiet(ctx);
      if (ticket >= 0 && ticket < tickets)
        CHECKF(prev == 0, "thread %d: ticket %ld of PE %d handed out twice (fetch_inc_nbi got %d)", t, ticket, pe, prev);
      shmem_ctx_long_get(ctx, back, g_slots[g_me][t], kNe, pe);
      for (int i = 0; i < kNe; ++i)
        CHECKF(back[i] == vals[i], "thread %d: get from PE %d [%d] = %ld, expected %ld", t, pe, i, back[i], vals[i]);
      // Also a get of another thread's mailbox would race with its writer; read only our own.
    }
  }
  shmem_ctx_quiet(ctx);
  if (ctx != SHMEM_CTX_DEFAULT) shmem_ctx_destroy(ctx);
}

void coll_phase(int t) {
  shmem_team_t team = g_teams[t];
  const int n = shmem_team_n_pes(team), me = shmem_team_my_pe(team);
  long* src = g_coll_src[t];
  long* dst = g_coll_dst[t];
  long bad = 0;
  for (int it = 0; it < g_rounds; ++it) {
    const int root = (it + t) % n;
    for (int i = 0; i < kCollNe; ++i) src[i] = 100000L * t + 1000L * it + 10L * me + i;
    if (shmem_long_broadcast(team, dst, src, kCollNe, root) != 0) ++bad;
    for (int i = 0; i < kCollNe; ++i) bad += dst[i] != 100000L * t + 1000L * it + 10L * root + i;
    if (shmem_long_sum_reduce(team, dst, src, kCollNe) != 0) ++bad;
    for (int i = 0; i < kCollNe; ++i)
      bad += dst[i] != n * (100000L * t + 1000L * it + i) + 10L * n * (n - 1) / 2;
    if (shmem_long_fcollect(team, dst, src, kCollNe) != 0) ++bad;
    for (int p = 0; p < n; ++p)
      for (int i = 0; i < kCollNe; ++i) bad += dst[p * kCollNe + i] != 100000L * t + 1000L * it + 10L * p + i;
    for (int j = 0; j < n; ++j) src[j] = 100000L * t + 1000L * it + 10L * me + j;
    if (shmem_long_alltoall(team, dst, src, 1) != 0) ++bad;
    for (int p = 0; p < n; ++p) bad += dst[p] != 100000L * t + 1000L * it + 10L * p + me;
    if (shmem_team_sync(team) != 0) ++bad;
    if (bad) {
      CHECKF(false, "thread %d: collectives on its team wrong at iteration %d (%ld bad)", t, it, bad);
      break;
    }
  }
}

}  // namespace

int main() {
  int provided = -1;
  const int rc = shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
  g_me = shmem_my_pe();
  g_npes = shmem_n_pes();
  CHECK_EQ(rc, 0);
  CHECK_EQ(provided, SHMEM_THREAD_MULTIPLE);
  int queried = -1;
  shmem_query_thread(&queried);
  CHECK_EQ(queried, SHMEM_THREAD_MULTIPLE);
  if (g_npes > kMaxPes) {
    fprintf(stderr, "coll_threads: at most %d PEs\n", kMaxPes);
    return check_finish("coll_threads");
  }
  g_rounds = g_npes >= 8 ? 6 : 12;
  for (int t = 0; t < kThreads; ++t) {
    g_seen[t] = static_cast<int*>(shmem_calloc(static_cast<size_t>(g_npes * g_rounds), sizeof(int)));
    CHECK(g_seen[t] != nullptr);
  }
  // One team per thread: copies of WORLD in different orders and a 2-D-free variety.
  CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, g_npes, nullptr, 0, &g_teams[0]), 0);
  CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, g_npes - 1, -1, g_npes, nullptr, 0, &g_teams[1]), 0);
  CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, g_npes, nullptr, 0, &g_teams[2]), 0);
  CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, g_npes - 1, -1, g_npes, nullptr, 0, &g_teams[3]), 0);
  shmem_barrier_all();

  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([t] {
      rma_phase(t);
      coll_phase(t);
    });
  for (auto& th : threads) th.join();
  shmem_barrier_all();

  for (int t = 0; t < kThreads; ++t) {
    CHECK_EQ_AT(g_counters[t], g_npes * g_rounds, "thread %d counter", t);
    long marks = 0, wrong = 0;
    for (int k = 0; k < g_npes * g_rounds; ++k) {
      marks += g_seen[t][k];
      wrong += g_seen[t][k] != 1;
    }
    CHECKF(wrong == 0, "thread %d: %ld tickets not marked exactly once (%ld marks)", t, wrong, marks);
    for (int p = 0; p < g_npes; ++p)
      for (int i = 0; i < kNe; ++i)
        CHECK_EQ_AT(g_slots[p][t][i], tag(p, t, g_rounds - 1, i), "mailbox of PE %d thread %d [%d]", p, t, i);
  }
  shmem_barrier_all();
  for (int t = 0; t < kThreads; ++t) {
    shmem_team_destroy(g_teams[t]);
    shmem_free(g_seen[t]);
  }
  return check_finish("coll_threads");
}
