/*
 * pe_setup.c - library setup and query.
 *   pe_setup                  shmem_init; my_pe/n_pes; query_initialized before/after;
 *                             info_get_version / info_get_name; pcontrol; finalize
 *   pe_setup thread <LEVEL>   shmem_init_thread(LEVEL) and shmem_query_thread
 *   pe_setup legacy           start_pes(0), _my_pe, _num_pes, shmalloc/shfree
 * Every mode checks that the PE numbers are distinct and dense (each PE sets its bit on PE 0)
 * and that the library works (a ring of puts).
 */
#include <stdint.h>

#include "check.h"

static uint64_t seen_pes[4]; /* bit set per PE, at PE 0 (up to 256 PEs) */
static long ring_value;

static void common_checks(int me, int n) {
  CHECK(n >= 1);
  CHECK(me >= 0 && me < n);
  CHECK_EQ(shmem_my_pe(), me);
  CHECK_EQ(shmem_n_pes(), n);
  CHECK_EQ(_my_pe(), me);
  CHECK_EQ(_num_pes(), n);
  if (n <= 256) shmem_uint64_atomic_or(&seen_pes[me / 64], (uint64_t)1 << (me % 64), 0);
  shmem_long_p(&ring_value, 100 + me, (me + 1) % n);
  shmem_barrier_all();
  CHECK_EQ(ring_value, 100 + (me - 1 + n) % n);
  if (me == 0 && n <= 256) {
    for (int pe = 0; pe < n; ++pe)
      CHECKF(seen_pes[pe / 64] >> (pe % 64) & 1, "PE %d never reported: PE numbers not dense", pe);
    int count = 0;
    for (int w = 0; w < 4; ++w) count += __builtin_popcountll(seen_pes[w]);
    CHECK_EQ(count, n);
  }
  shmem_barrier_all();
}

static int level_from_name(const char* s) {
  if (!strcmp(s, "SINGLE")) return SHMEM_THREAD_SINGLE;
  if (!strcmp(s, "FUNNELED")) return SHMEM_THREAD_FUNNELED;
  if (!strcmp(s, "SERIALIZED")) return SHMEM_THREAD_SERIALIZED;
  if (!strcmp(s, "MULTIPLE")) return SHMEM_THREAD_MULTIPLE;
  return -1;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "init";
  int initialized = -1;
  shmem_query_initialized(&initialized);
  if (initialized != 0) {
    fprintf(stderr, "FAIL %s:%d: shmem_query_initialized before init gave %d\n", __FILE__, __LINE__,
            initialized);
    return 1;
  }

  if (!strcmp(mode, "thread")) {
    int requested = argc > 2 ? level_from_name(argv[2]) : -1;
    if (requested < 0) {
      fprintf(stderr, "usage: pe_setup thread SINGLE|FUNNELED|SERIALIZED|MULTIPLE\n");
      return 2;
    }
    int provided = -1;
    int rc = shmem_init_thread(requested, &provided);
    if (rc != 0) {
      fprintf(stderr, "FAIL %s:%d: shmem_init_thread(%d) returned %d\n", __FILE__, __LINE__, requested, rc);
      return 1;
    }
    CHECKF(provided >= SHMEM_THREAD_SINGLE && provided <= SHMEM_THREAD_MULTIPLE, "provided %d", provided);
    if (requested <= SHMEM_THREAD_SERIALIZED)
      CHECKF(provided >= requested, "requested %d, provided %d", requested, provided);
    int queried = -1;
    shmem_query_thread(&queried);
    CHECK_EQ(queried, provided);
  } else if (!strcmp(mode, "legacy")) {
    start_pes(0);
    long* p = shmalloc(sizeof(long));
    CHECK(p != NULL);
    if (p) {
      *p = _my_pe();
      shmem_barrier_all();
      CHECK_EQ(shmem_long_g(p, (_my_pe() + 1) % _num_pes()), (_my_pe() + 1) % _num_pes());
      shmem_barrier_all();
      shfree(p);
    }
  } else if (!strcmp(mode, "init")) {
    shmem_init();
    int provided = -1;
    shmem_query_thread(&provided);
    CHECKF(provided >= SHMEM_THREAD_SINGLE && provided <= SHMEM_THREAD_MULTIPLE, "provided %d", provided);
  } else {
    fprintf(stderr, "unknown mode %s\n", mode);
    return 2;
  }

  shmem_query_initialized(&initialized);
  CHECK(initialized != 0);
  const int me = shmem_my_pe(), n = shmem_n_pes();
  common_checks(me, n);

  int major = -1, minor = -1;
  shmem_info_get_version(&major, &minor);
  CHECK_EQ(major, 1);
  CHECK_EQ(minor, 6);
  CHECK_EQ(SHMEM_MAJOR_VERSION, 1);
  CHECK_EQ(SHMEM_MINOR_VERSION, 6);
  char name[SHMEM_MAX_NAME_LEN + 8];
  memset(name, 'x', sizeof name);
  shmem_info_get_name(name);
  const char* nul = memchr(name, '\0', sizeof name);
  size_t len = nul ? (size_t)(nul - name) : sizeof name;
  CHECKF(len > 0 && len < SHMEM_MAX_NAME_LEN, "info_get_name length %zu", len);
  CHECKF(len < sizeof name && !strcmp(name, SHMEM_VENDOR_STRING), "info_get_name gave '%.*s', SHMEM_VENDOR_STRING is '%s'",
         (int)len, name, SHMEM_VENDOR_STRING);

  /* pcontrol: levels 0 (off), 1 (default), 2 (profile), and extra arguments. */
  shmem_pcontrol(0);
  shmem_pcontrol(2, "extra", 1);
  shmem_pcontrol(1);
  shmem_barrier_all();

  const int failed = check_failures_ != 0;
  shmem_finalize();
  shmem_query_initialized(&initialized);
  if (initialized != 0) {
    fprintf(stderr, "PE %d: FAIL %s:%d: query_initialized after finalize gave %d\n", me, __FILE__, __LINE__,
            initialized);
    return 1;
  }
  if (failed) {
    fprintf(stderr, "PE %d: %ld check(s) failed\n", me, check_failures_);
    return 1;
  }
  if (me == 0) printf("pe_setup %s: OK\n", mode);
  return 0;
}
