/*
 * pe_rma.c - RMA for every standard RMA type (through the type table), the sized (8..128) and
 * untyped (mem) forms, on shmem_malloc'd memory and on static/global variables, to the right
 * neighbour and to self, with per-PE patterns, zero-length transfers and large transfers.
 *
 * Each run fills the symmetric buffer with a sentinel (put regions) and the PE's own pattern
 * (get region), issues every put form into the target's regions and every get form from the
 * target's get region, then checks every element it owns: each region written by exactly the
 * PE that targets it, every gap and the zero-length region still the sentinel. Also: tens of
 * thousands of nonblocking gets in flight, completed by one quiet (run_many_gets).
 */
#include <stdint.h>
#include <string.h>

#include "check.h"

/* Layout of a symmetric buffer, in elements. */
enum {
  R_PUT = 0, R_CTXPUT = 16, R_NBI = 32, R_CTXNBI = 48, /* 16 elements each */
  R_IPUT = 64, R_CTXIPUT = 88,                         /* 8 elements, dst stride 3, src stride 2 */
  R_IBPUT = 112, R_CTXIBPUT = 132,                     /* 4 blocks of 3, dst stride 5, src stride 4 */
  R_ZERO = 152,                                        /* zero-length transfers land here */
  R_P = 160, R_CTXP = 168,                             /* 8 elements by shmem_p */
  GET_BASE = 192,                                      /* 64 elements read by the gets */
  BUF = 256,
  NCONTIG = 16, NSTRIDED = 8, IDST = 3, ISRC = 2, BSIZE = 3, NBLOCKS = 4, BDST = 5, BSRC = 4,
  MAX_ELEM = 16
};

/* ---- typed forms -------------------------------------------------------------------------- */

/* Pattern value for (pe, index); pe < 0 is the sentinel. Integer types get a value that uses
 * their low and high bytes, so a truncated copy shows; floating types get a fraction. */
static long double pattern(int is_int, size_t size, int pe, long idx) {
  unsigned base = pe < 0 ? 120u : 1u + (unsigned)((pe * 37 + idx * 11) % 100);
  if (!is_int) return (long double)base + 0.25L;
  if (size == 1) return base;
  size_t bits = (size > 8 ? 8 : size) * 8;
  return (long double)(((unsigned long long)base << (bits - 8)) + base);
}

typedef struct {
  const char* name;
  size_t size;
  void* sbuf; /* static symmetric buffer of BUF elements */
  void (*set)(void* b, size_t i, int pe, long idx);
  long double (*at)(const void* b, size_t i);
  void (*put)(int ctx, void* d, const void* s, size_t n, int pe);
  void (*get)(int ctx, void* d, const void* s, size_t n, int pe);
  void (*put_nbi)(int ctx, void* d, const void* s, size_t n, int pe);
  void (*get_nbi)(int ctx, void* d, const void* s, size_t n, int pe);
  void (*p)(int ctx, void* d, const void* s, int pe);
  void (*g)(int ctx, void* d, const void* s, int pe);
  void (*iput)(int ctx, void* d, const void* s, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe);
  void (*iget)(int ctx, void* d, const void* s, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe);
  void (*ibput)(int ctx, void* d, const void* s, ptrdiff_t ds, ptrdiff_t ss, size_t bs, size_t nb,
                int pe);
  void (*ibget)(int ctx, void* d, const void* s, ptrdiff_t ds, ptrdiff_t ss, size_t bs, size_t nb,
                int pe);
} TypeOps;

#define CTXCALL(ctx, N, OP, ...) \
  ((ctx) ? shmem_ctx_##N##_##OP(SHMEM_CTX_DEFAULT, __VA_ARGS__) : shmem_##N##_##OP(__VA_ARGS__))

#define DEFINE_TYPE_OPS(T, N)                                                                   \
  static T sbuf_##N[BUF];                                                                       \
  static void set_##N(void* b, size_t i, int pe, long idx) {                                    \
    ((T*)b)[i] = (T)pattern((T)0.5 == 0, sizeof(T), pe, idx);                                   \
  }                                                                                             \
  static long double at_##N(const void* b, size_t i) { return (long double)((const T*)b)[i]; }  \
  static void put_##N(int c, void* d, const void* s, size_t n, int pe) {                        \
    CTXCALL(c, N, put, (T*)d, (const T*)s, n, pe);                                              \
  }                                                                                             \
  static void get_##N(int c, void* d, const void* s, size_t n, int pe) {                        \
    CTXCALL(c, N, get, (T*)d, (const T*)s, n, pe);                                              \
  }                                                                                             \
  static void put_nbi_##N(int c, void* d, const void* s, size_t n, int pe) {                    \
    CTXCALL(c, N, put_nbi, (T*)d, (const T*)s, n, pe);                                          \
  }                                                                                             \
  static void get_nbi_##N(int c, void* d, const void* s, size_t n, int pe) {                    \
    CTXCALL(c, N, get_nbi, (T*)d, (const T*)s, n, pe);                                          \
  }                                                                                             \
  static void p_##N(int c, void* d, const void* s, int pe) {                                    \
    CTXCALL(c, N, p, (T*)d, *(const T*)s, pe);                                                  \
  }                                                                                             \
  static void g_##N(int c, void* d, const void* s, int pe) {                                    \
    *(T*)d = CTXCALL(c, N, g, (const T*)s, pe);                                                 \
  }                                                                                             \
  static void iput_##N(int c, void* d, const void* s, ptrdiff_t ds, ptrdiff_t ss, size_t n,     \
                       int pe) {                                                                \
    CTXCALL(c, N, iput, (T*)d, (const T*)s, ds, ss, n, pe);                                     \
  }                                                                                             \
  static void iget_##N(int c, void* d, const void* s, ptrdiff_t ds, ptrdiff_t ss, size_t n,     \
                       int pe) {                                                                \
    CTXCALL(c, N, iget, (T*)d, (const T*)s, ds, ss, n, pe);                                     \
  }                                                                                             \
  static void ibput_##N(int c, void* d, const void* s, ptrdiff_t ds, ptrdiff_t ss, size_t bs,   \
                        size_t nb, int pe) {                                                    \
    CTXCALL(c, N, ibput, (T*)d, (const T*)s, ds, ss, bs, nb, pe);                               \
  }                                                                                             \
  static void ibget_##N(int c, void* d, const void* s, ptrdiff_t ds, ptrdiff_t ss, size_t bs,   \
                        size_t nb, int pe) {                                                    \
    CTXCALL(c, N, ibget, (T*)d, (const T*)s, ds, ss, bs, nb, pe);                               \
  }
SHMEM_RMA_TYPE_TABLE(DEFINE_TYPE_OPS)

#define TYPE_OPS_ENTRY(T, N)                                                                   \
  {#N,       sizeof(T), sbuf_##N, set_##N,  at_##N,   put_##N,   get_##N,   put_nbi_##N,       \
   get_nbi_##N, p_##N,  g_##N,    iput_##N, iget_##N, ibput_##N, ibget_##N},
static const TypeOps kTypes[] = {SHMEM_RMA_TYPE_TABLE(TYPE_OPS_ENTRY)};

/* Strided reference copy: nb blocks of bs elements, block starts ds / ss elements apart. */
static void ref_blocked(const TypeOps* o, void* d, const void* s, size_t ds, size_t ss, size_t bs,
                        size_t nb) {
  for (size_t b = 0; b < nb; ++b)
    memcpy((char*)d + b * ds * o->size, (const char*)s + b * ss * o->size, bs * o->size);
}

static void compare(const TypeOps* o, const void* got, const void* exp, size_t n, const char* mem,
                    const char* what, int shift) {
  for (size_t i = 0; i < n; ++i) {
    long double g = o->at(got, i), e = o->at(exp, i);
    if (g != e) {
      check_fail_(__FILE__, __LINE__, "%s %s on %s memory, shift %d: element %zu (got %.21Lg, expected %.21Lg)",
                     o->name, what, mem, shift, i, g, e);
      return;
    }
  }
}

#define EL(buf, i) ((char*)(buf) + (size_t)(i) * o->size)

static void run_typed(const TypeOps* o, void* sym, int shift, const char* mem) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const int tgt = (me + shift) % n, from = ((me - shift) % n + n) % n;
  long double src_store[BUF], exp_store[BUF], got_store[64], gexp_store[64];
  void *src = src_store, *exp = exp_store, *got = got_store, *gexp = gexp_store;

  for (size_t i = 0; i < BUF; ++i) o->set(src, i, me, (long)i);
  for (size_t i = 0; i < BUF; ++i) o->set(sym, i, i < GET_BASE ? -1 : me, (long)i);
  shmem_barrier_all();

  o->put(0, EL(sym, R_PUT), EL(src, R_PUT), NCONTIG, tgt);
  o->put(1, EL(sym, R_CTXPUT), EL(src, R_CTXPUT), NCONTIG, tgt);
  o->put_nbi(0, EL(sym, R_NBI), EL(src, R_NBI), NCONTIG, tgt);
  o->put_nbi(1, EL(sym, R_CTXNBI), EL(src, R_CTXNBI), NCONTIG, tgt);
  o->iput(0, EL(sym, R_IPUT), EL(src, R_IPUT), IDST, ISRC, NSTRIDED, tgt);
  o->iput(1, EL(sym, R_CTXIPUT), EL(src, R_CTXIPUT), IDST, ISRC, NSTRIDED, tgt);
  o->ibput(0, EL(sym, R_IBPUT), EL(src, R_IBPUT), BDST, BSRC, BSIZE, NBLOCKS, tgt);
  o->ibput(1, EL(sym, R_CTXIBPUT), EL(src, R_CTXIBPUT), BDST, BSRC, BSIZE, NBLOCKS, tgt);
  for (int c = 0; c < 2; ++c) {
    o->put(c, EL(sym, R_ZERO), EL(src, R_ZERO), 0, tgt);
    o->put_nbi(c, EL(sym, R_ZERO), EL(src, R_ZERO), 0, tgt);
    o->iput(c, EL(sym, R_ZERO), EL(src, R_ZERO), IDST, ISRC, 0, tgt);
    o->ibput(c, EL(sym, R_ZERO), EL(src, R_ZERO), BDST, BSRC, BSIZE, 0, tgt);
    o->ibput(c, EL(sym, R_ZERO), EL(src, R_ZERO), BDST, BSRC, 0, NBLOCKS, tgt);
  }
  for (size_t k = 0; k < 8; ++k) {
    o->p(0, EL(sym, R_P + k), EL(src, R_P + k), tgt);
    o->p(1, EL(sym, R_CTXP + k), EL(src, R_CTXP + k), tgt);
  }
  shmem_quiet();

  /* Gets from the target's get region (nobody writes it in this phase). */
  const void* gsrc = EL(sym, GET_BASE);
  for (int c = 0; c < 2; ++c) {
    const char* tag = c ? "ctx_" : "";
    char what[64];
    for (size_t i = 0; i < 64; ++i) o->set(got, i, -1, 0);
    o->get(c, got, gsrc, NCONTIG, tgt);
    for (size_t i = 0; i < 64; ++i) o->set(gexp, i, i < NCONTIG ? tgt : -1, (long)(GET_BASE + i));
    snprintf(what, sizeof what, "%sget", tag);
    compare(o, got, gexp, 64, mem, what, shift);

    for (size_t i = 0; i < 64; ++i) o->set(got, i, -1, 0);
    o->get_nbi(c, got, gsrc, NCONTIG, tgt);
    if (c)
      shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
    else
      shmem_quiet();
    snprintf(what, sizeof what, "%sget_nbi", tag);
    compare(o, got, gexp, 64, mem, what, shift);

    for (size_t i = 0; i < 64; ++i) o->set(got, i, -1, 0);
    for (size_t i = 0; i < NCONTIG; ++i) o->g(c, EL(got, i), EL(gsrc, i), tgt);
    snprintf(what, sizeof what, "%sg", tag);
    compare(o, got, gexp, 64, mem, what, shift);

    /* iget: local stride 2, remote stride 3. */
    for (size_t i = 0; i < 64; ++i) o->set(got, i, -1, 0);
    o->iget(c, got, gsrc, 2, 3, NSTRIDED, tgt);
    for (size_t i = 0; i < 64; ++i) o->set(gexp, i, -1, 0);
    for (size_t k = 0; k < NSTRIDED; ++k) o->set(gexp, 2 * k, tgt, (long)(GET_BASE + 3 * k));
    snprintf(what, sizeof what, "%siget", tag);
    compare(o, got, gexp, 64, mem, what, shift);

    /* ibget: local block stride 5, remote block stride 4, blocks of 3. */
    for (size_t i = 0; i < 64; ++i) o->set(got, i, -1, 0);
    o->ibget(c, got, gsrc, BDST, BSRC, BSIZE, NBLOCKS, tgt);
    for (size_t i = 0; i < 64; ++i) o->set(gexp, i, -1, 0);
    for (size_t b = 0; b < NBLOCKS; ++b)
      for (size_t j = 0; j < BSIZE; ++j)
        o->set(gexp, b * BDST + j, tgt, (long)(GET_BASE + b * BSRC + j));
    snprintf(what, sizeof what, "%sibget", tag);
    compare(o, got, gexp, 64, mem, what, shift);

    /* Zero-length gets leave the destination alone. */
    for (size_t i = 0; i < 64; ++i) o->set(got, i, -1, 0);
    o->get(c, got, gsrc, 0, tgt);
    o->get_nbi(c, got, gsrc, 0, tgt);
    o->iget(c, got, gsrc, 2, 3, 0, tgt);
    o->ibget(c, got, gsrc, BDST, BSRC, BSIZE, 0, tgt);
    shmem_quiet();
    for (size_t i = 0; i < 64; ++i) o->set(gexp, i, -1, 0);
    snprintf(what, sizeof what, "%szero-length get", tag);
    compare(o, got, gexp, 64, mem, what, shift);
  }
  shmem_barrier_all();

  /* What `from` wrote into this PE's buffer. The source is `from`'s pattern. */
  for (size_t i = 0; i < BUF; ++i) o->set(src, i, from, (long)i);
  for (size_t i = 0; i < BUF; ++i) o->set(exp, i, i < GET_BASE ? -1 : me, (long)i);
  const int contig[] = {R_PUT, R_CTXPUT, R_NBI, R_CTXNBI};
  for (size_t r = 0; r < 4; ++r) memcpy(EL(exp, contig[r]), EL(src, contig[r]), NCONTIG * o->size);
  ref_blocked(o, EL(exp, R_IPUT), EL(src, R_IPUT), IDST, ISRC, 1, NSTRIDED);
  ref_blocked(o, EL(exp, R_CTXIPUT), EL(src, R_CTXIPUT), IDST, ISRC, 1, NSTRIDED);
  ref_blocked(o, EL(exp, R_IBPUT), EL(src, R_IBPUT), BDST, BSRC, BSIZE, NBLOCKS);
  ref_blocked(o, EL(exp, R_CTXIBPUT), EL(src, R_CTXIBPUT), BDST, BSRC, BSIZE, NBLOCKS);
  memcpy(EL(exp, R_P), EL(src, R_P), 8 * o->size);
  memcpy(EL(exp, R_CTXP), EL(src, R_CTXP), 8 * o->size);
  compare(o, sym, exp, BUF, mem, "puts (whole buffer)", shift);
  /* Nobody touches sym until the next run's first barrier, so no barrier is needed here. */
}
#undef EL

/* ---- sized (8..128 bits) and untyped forms --------------------------------------------------- */

typedef struct {
  const char* name;
  size_t es; /* element size in bytes */
  void (*put)(int ctx, void* d, const void* s, size_t n, int pe);
  void (*get)(int ctx, void* d, const void* s, size_t n, int pe);
  void (*put_nbi)(int ctx, void* d, const void* s, size_t n, int pe);
  void (*get_nbi)(int ctx, void* d, const void* s, size_t n, int pe);
  void (*iput)(int ctx, void* d, const void* s, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe);
  void (*iget)(int ctx, void* d, const void* s, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe);
  void (*ibput)(int ctx, void* d, const void* s, ptrdiff_t ds, ptrdiff_t ss, size_t bs, size_t nb,
                int pe);
  void (*ibget)(int ctx, void* d, const void* s, ptrdiff_t ds, ptrdiff_t ss, size_t bs, size_t nb,
                int pe);
} SizedOps;

#define SCALL(ctx, OP, ...) \
  ((ctx) ? shmem_ctx_##OP(SHMEM_CTX_DEFAULT, __VA_ARGS__) : shmem_##OP(__VA_ARGS__))

#define DEFINE_SIZED_OPS(S)                                                                      \
  static void put##S##_w(int c, void* d, const void* s, size_t n, int pe) {                     \
    SCALL(c, put##S, d, s, n, pe);                                                              \
  }                                                                                             \
  static void get##S##_w(int c, void* d, const void* s, size_t n, int pe) {                     \
    SCALL(c, get##S, d, s, n, pe);                                                              \
  }                                                                                             \
  static void put##S##_nbi_w(int c, void* d, const void* s, size_t n, int pe) {                 \
    SCALL(c, put##S##_nbi, d, s, n, pe);                                                        \
  }                                                                                             \
  static void get##S##_nbi_w(int c, void* d, const void* s, size_t n, int pe) {                 \
    SCALL(c, get##S##_nbi, d, s, n, pe);                                                        \
  }                                                                                             \
  static void iput##S##_w(int c, void* d, const void* s, ptrdiff_t ds, ptrdiff_t ss, size_t n,  \
                          int pe) {                                                             \
    SCALL(c, iput##S, d, s, ds, ss, n, pe);                                                     \
  }                                                                                             \
  static void iget##S##_w(int c, void* d, const void* s, ptrdiff_t ds, ptrdiff_t ss, size_t n,  \
                          int pe) {                                                             \
    SCALL(c, iget##S, d, s, ds, ss, n, pe);                                                     \
  }                                                                                             \
  static void ibput##S##_w(int c, void* d, const void* s, ptrdiff_t ds, ptrdiff_t ss, size_t bs, \
                           size_t nb, int pe) {                                                 \
    SCALL(c, ibput##S, d, s, ds, ss, bs, nb, pe);                                               \
  }                                                                                             \
  static void ibget##S##_w(int c, void* d, const void* s, ptrdiff_t ds, ptrdiff_t ss, size_t bs, \
                           size_t nb, int pe) {                                                 \
    SCALL(c, ibget##S, d, s, ds, ss, bs, nb, pe);                                               \
  }
SHMEM_RMA_SIZE_TABLE(DEFINE_SIZED_OPS)

static void putmem_w(int c, void* d, const void* s, size_t n, int pe) { SCALL(c, putmem, d, s, n, pe); }
static void getmem_w(int c, void* d, const void* s, size_t n, int pe) { SCALL(c, getmem, d, s, n, pe); }
static void putmem_nbi_w(int c, void* d, const void* s, size_t n, int pe) {
  SCALL(c, putmem_nbi, d, s, n, pe);
}
static void getmem_nbi_w(int c, void* d, const void* s, size_t n, int pe) {
  SCALL(c, getmem_nbi, d, s, n, pe);
}

#define SIZED_OPS_ENTRY(S)                                                                     \
  {"put" #S,       (S) / 8,      put##S##_w,  get##S##_w,  put##S##_nbi_w,                     \
   get##S##_nbi_w, iput##S##_w, iget##S##_w, ibput##S##_w, ibget##S##_w},
static const SizedOps kSized[] = {
    SHMEM_RMA_SIZE_TABLE(SIZED_OPS_ENTRY){"putmem", 1, putmem_w, getmem_w, putmem_nbi_w,
                                          getmem_nbi_w, NULL, NULL, NULL, NULL}};

static unsigned char sized_pattern(int pe, size_t byte) {
  return pe < 0 ? 0xFF : (unsigned char)((pe * 73 + byte * 29 + 5) % 251);
}
static void fill_bytes(void* b, size_t nbytes, int pe, size_t first) {
  for (size_t i = 0; i < nbytes; ++i) ((unsigned char*)b)[i] = sized_pattern(pe, first + i);
}
static void ref_bytes(void* d, const void* s, size_t ds, size_t ss, size_t bs, size_t nb, size_t es) {
  for (size_t b = 0; b < nb; ++b) memcpy((char*)d + b * ds * es, (const char*)s + b * ss * es, bs * es);
}

#define SBUF_BYTES (BUF * MAX_ELEM)
static unsigned char sized_static[SBUF_BYTES] = {1}; /* initialised: lives in .data, not .bss */

static void run_sized(const SizedOps* o, unsigned char* sym, int shift, const char* mem) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const int tgt = (me + shift) % n, from = ((me - shift) % n + n) % n;
  const size_t es = o->es;
  static unsigned char src[SBUF_BYTES], exp[SBUF_BYTES], got[64 * MAX_ELEM], gexp[64 * MAX_ELEM];
#define B(buf, i) ((buf) + (size_t)(i) * es)
  fill_bytes(src, BUF * es, me, 0);
  fill_bytes(sym, GET_BASE * es, -1, 0);
  fill_bytes(B(sym, GET_BASE), (BUF - GET_BASE) * es, me, GET_BASE * es);
  shmem_barrier_all();

  o->put(0, B(sym, R_PUT), B(src, R_PUT), NCONTIG, tgt);
  o->put(1, B(sym, R_CTXPUT), B(src, R_CTXPUT), NCONTIG, tgt);
  o->put_nbi(0, B(sym, R_NBI), B(src, R_NBI), NCONTIG, tgt);
  o->put_nbi(1, B(sym, R_CTXNBI), B(src, R_CTXNBI), NCONTIG, tgt);
  for (int c = 0; c < 2; ++c) {
    o->put(c, B(sym, R_ZERO), B(src, R_ZERO), 0, tgt);
    o->put_nbi(c, B(sym, R_ZERO), B(src, R_ZERO), 0, tgt);
  }
  if (o->iput) {
    o->iput(0, B(sym, R_IPUT), B(src, R_IPUT), IDST, ISRC, NSTRIDED, tgt);
    o->iput(1, B(sym, R_CTXIPUT), B(src, R_CTXIPUT), IDST, ISRC, NSTRIDED, tgt);
    o->ibput(0, B(sym, R_IBPUT), B(src, R_IBPUT), BDST, BSRC, BSIZE, NBLOCKS, tgt);
    o->ibput(1, B(sym, R_CTXIBPUT), B(src, R_CTXIBPUT), BDST, BSRC, BSIZE, NBLOCKS, tgt);
    for (int c = 0; c < 2; ++c) {
      o->iput(c, B(sym, R_ZERO), B(src, R_ZERO), IDST, ISRC, 0, tgt);
      o->ibput(c, B(sym, R_ZERO), B(src, R_ZERO), BDST, BSRC, BSIZE, 0, tgt);
    }
  }
  shmem_quiet();

  const unsigned char* gsrc = B(sym, GET_BASE);
  for (int c = 0; c < 2; ++c) {
    char what[64];
    fill_bytes(got, 64 * es, -1, 0);
    o->get(c, got, gsrc, NCONTIG, tgt);
    fill_bytes(gexp, 64 * es, -1, 0);
    fill_bytes(gexp, NCONTIG * es, tgt, GET_BASE * es);
    snprintf(what, sizeof what, "%s %s get (%s, shift %d)", c ? "ctx" : "", o->name, mem, shift);
    CHECK_BYTES(got, gexp, 64 * es, "%s", what);

    fill_bytes(got, 64 * es, -1, 0);
    o->get_nbi(c, got, gsrc, NCONTIG, tgt);
    o->get(c, B(got, 40), gsrc, 0, tgt);
    o->get_nbi(c, B(got, 40), gsrc, 0, tgt);
    shmem_quiet();
    snprintf(what, sizeof what, "%s %s get_nbi (%s, shift %d)", c ? "ctx" : "", o->name, mem, shift);
    CHECK_BYTES(got, gexp, 64 * es, "%s", what);

    if (o->iget) {
      static unsigned char remote_copy[64 * MAX_ELEM];
      fill_bytes(remote_copy, 64 * es, tgt, GET_BASE * es);
      fill_bytes(got, 64 * es, -1, 0);
      o->iget(c, got, gsrc, 2, 3, NSTRIDED, tgt);
      o->iget(c, B(got, 40), gsrc, 2, 3, 0, tgt);
      fill_bytes(gexp, 64 * es, -1, 0);
      ref_bytes(gexp, remote_copy, 2, 3, 1, NSTRIDED, es);
      snprintf(what, sizeof what, "%s i%s (%s, shift %d)", c ? "ctx" : "", o->name, mem, shift);
      CHECK_BYTES(got, gexp, 64 * es, "%s", what);

      fill_bytes(got, 64 * es, -1, 0);
      o->ibget(c, got, gsrc, BDST, BSRC, BSIZE, NBLOCKS, tgt);
      o->ibget(c, B(got, 40), gsrc, BDST, BSRC, BSIZE, 0, tgt);
      fill_bytes(gexp, 64 * es, -1, 0);
      ref_bytes(gexp, remote_copy, BDST, BSRC, BSIZE, NBLOCKS, es);
      snprintf(what, sizeof what, "%s ib%s (%s, shift %d)", c ? "ctx" : "", o->name, mem, shift);
      CHECK_BYTES(got, gexp, 64 * es, "%s", what);
    }
  }
  shmem_barrier_all();

  fill_bytes(src, BUF * es, from, 0);
  fill_bytes(exp, GET_BASE * es, -1, 0);
  fill_bytes(B(exp, GET_BASE), (BUF - GET_BASE) * es, me, GET_BASE * es);
  const int contig[] = {R_PUT, R_CTXPUT, R_NBI, R_CTXNBI};
  for (size_t r = 0; r < 4; ++r) memcpy(B(exp, contig[r]), B(src, contig[r]), NCONTIG * es);
  if (o->iput) {
    ref_bytes(B(exp, R_IPUT), B(src, R_IPUT), IDST, ISRC, 1, NSTRIDED, es);
    ref_bytes(B(exp, R_CTXIPUT), B(src, R_CTXIPUT), IDST, ISRC, 1, NSTRIDED, es);
    ref_bytes(B(exp, R_IBPUT), B(src, R_IBPUT), BDST, BSRC, BSIZE, NBLOCKS, es);
    ref_bytes(B(exp, R_CTXIBPUT), B(src, R_CTXIBPUT), BDST, BSRC, BSIZE, NBLOCKS, es);
  }
  char what[64];
  snprintf(what, sizeof what, "%s puts (%s, shift %d)", o->name, mem, shift);
  CHECK_BYTES(sym, exp, BUF * es, "%s", what);
#undef B
}

/* ---- large transfers ----------------------------------------------------------------------- */

#define STATIC_LARGE (2u << 20)
static unsigned char large_static[STATIC_LARGE];

static void fill_large(unsigned char* b, size_t n, int pe) {
  uint64_t x = 0x9E3779B97F4A7C15ull * (uint64_t)(pe + 1);
  for (size_t i = 0; i < n; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    b[i] = (unsigned char)x;
  }
}

static void run_large(unsigned char* sym, size_t bytes, const char* mem) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const int right = (me + 1) % n, left = (me - 1 + n) % n;
  unsigned char* src = malloc(bytes);
  unsigned char* exp = malloc(bytes);
  CHECK(src && exp);
  if (!src || !exp) shmem_global_exit(1);
  char what[96];

  /* putmem to the right neighbour. */
  fill_large(src, bytes, me);
  memset(sym, 0, bytes);
  shmem_barrier_all();
  shmem_putmem(sym, src, bytes, right);
  shmem_barrier_all();
  fill_large(exp, bytes, left);
  snprintf(what, sizeof what, "large putmem of %zu bytes (%s)", bytes, mem);
  CHECK_BYTES(sym, exp, bytes, "%s", what);

  /* getmem from the right neighbour (its buffer holds what its left, i.e. me, put). */
  memset(exp, 0, bytes);
  shmem_getmem(exp, sym, bytes, right);
  snprintf(what, sizeof what, "large getmem of %zu bytes (%s)", bytes, mem);
  CHECK_BYTES(exp, src, bytes, "%s", what);
  shmem_barrier_all();

  /* Nonblocking, split in uneven pieces, as 64-bit elements. */
  fill_large(src, bytes, me + n);
  size_t words = bytes / 8, done = 0, piece = 12345;
  while (done < words) {
    size_t k = words - done < piece ? words - done : piece;
    shmem_put64_nbi(sym + done * 8, src + done * 8, k, right);
    done += k;
    piece = piece * 3 + 1;
  }
  shmem_quiet();
  shmem_barrier_all();
  fill_large(exp, bytes, left + n);
  snprintf(what, sizeof what, "large put64_nbi of %zu bytes (%s)", bytes, mem);
  CHECK_BYTES(sym, exp, bytes, "%s", what);
  memset(exp, 0, bytes);
  shmem_getmem_nbi(exp, sym, bytes, right);
  shmem_quiet();
  snprintf(what, sizeof what, "large getmem_nbi of %zu bytes (%s)", bytes, mem);
  CHECK_BYTES(exp, src, bytes, "%s", what);
  shmem_barrier_all();
  free(src);
  free(exp);
}

/* Many nonblocking gets in flight at once, completed by one quiet: NGETS 8-byte gets of the
 * right neighbour's pattern (more than a transport leaves unanswered per peer before it waits),
 * then gets of sizes around the transports' limits (1 byte to past 16 KiB), each checked in
 * full after the quiet; a put to the neighbour issued before the gets must be seen by a get of
 * the same words after it (one PE's operations to one target keep their order here). */
#define NGETS 70000
static long many_src[NGETS], many_dst[NGETS];
static unsigned char odd_src[40000], odd_dst[40000];
static void run_many_gets(void) {
  const int me = shmem_my_pe(), n = shmem_n_pes(), tgt = (me + 1) % n;
  for (long i = 0; i < NGETS; ++i) many_src[i] = 1000000L * me + i;
  for (size_t i = 0; i < sizeof odd_src; ++i) odd_src[i] = (unsigned char)(me * 31 + i * 7);
  memset(many_dst, 0xff, sizeof many_dst);
  memset(odd_dst, 0, sizeof odd_dst);
  shmem_barrier_all();
  for (long i = 0; i < NGETS; ++i) shmem_getmem_nbi(&many_dst[i], &many_src[(i * 7) % NGETS], sizeof(long), tgt);
  static const size_t sizes[] = {1, 7, 8, 100, 4095, 16384, 16385};
  size_t at = 0;
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
    shmem_getmem_nbi(odd_dst + at, odd_src + at + 3, sizes[k], tgt);
    at += sizes[k] + 3;
  }
  shmem_quiet();
  long bad = 0, first = -1;
  for (long i = 0; i < NGETS; ++i)
    if (many_dst[i] != 1000000L * tgt + (i * 7) % NGETS && bad++ == 0) first = i;
  CHECKF(bad == 0, "%ld of %d getmem_nbi in flight wrong, first at %ld (%ld)", bad, NGETS, first,
         first >= 0 ? many_dst[first] : 0L);
  at = 0;
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
    size_t wrong = 0;
    for (size_t i = 0; i < sizes[k]; ++i) wrong += odd_dst[at + i] != (unsigned char)(tgt * 31 + (at + 3 + i) * 7);
    CHECKF(wrong == 0, "getmem_nbi of %zu bytes: %zu wrong", sizes[k], wrong);
    at += sizes[k] + 3;
  }
  shmem_barrier_all();
  /* Put, then nonblocking get of the same words, then quiet: the get sees the put. Each PE
   * writes only the words of its own index in its neighbour's array. */
  long mine[4] = {-1, -2, -3, 1000L * me}, back[4] = {0, 0, 0, 0};
  shmem_long_put(&many_src[4 * me], mine, 4, tgt);
  shmem_getmem_nbi(back, &many_src[4 * me], sizeof back, tgt);
  shmem_quiet();
  for (int i = 0; i < 4; ++i) CHECK_EQ(back[i], mine[i]);
  shmem_barrier_all();
}

int main(void) {
  shmem_init();
  const int me = shmem_my_pe();
  run_many_gets();

  void* heap = shmem_malloc(BUF * MAX_ELEM);
  CHECK(heap != NULL);
  if (!heap) shmem_global_exit(1);

  const size_t ntypes = sizeof kTypes / sizeof kTypes[0];
  CHECK_EQ(ntypes, 24);
  for (size_t t = 0; t < ntypes; ++t) {
    for (int shift = 1; shift >= 0; --shift) {
      run_typed(&kTypes[t], heap, shift, "heap");
      run_typed(&kTypes[t], kTypes[t].sbuf, shift, "static");
    }
  }
  for (size_t s = 0; s < sizeof kSized / sizeof kSized[0]; ++s) {
    for (int shift = 1; shift >= 0; --shift) {
      run_sized(&kSized[s], heap, shift, "heap");
      run_sized(&kSized[s], sized_static, shift, "static");
    }
  }
  shmem_barrier_all();
  shmem_free(heap);

  const size_t big = 8u << 20;
  unsigned char* big_heap = shmem_malloc(big);
  CHECK(big_heap != NULL);
  if (big_heap) run_large(big_heap, big, "heap");
  shmem_free(big_heap);
  run_large(large_static, STATIC_LARGE, "static");

  if (me == 0 && check_failures_ == 0) printf("pe_rma: %zu types, all forms OK\n", ntypes);
  return check_finish(NULL);
}
