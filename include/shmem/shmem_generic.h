/*
 * shmem/shmem_generic.h - the type-generic names of OpenSHMEM 1.6 (shmem_put, shmem_atomic_add,
 * shmem_wait_until, shmem_broadcast, shmem_sum_reduce, ...). Part of <shmem.h>; include that.
 *
 * The spec defines them for C11 (_Generic). This header provides
 *   - in C11 and later: function-like macros built on _Generic;
 *   - in C++: inline overloads (and one template, see shmem_wait_until), in extern "C++";
 *   - in C99: nothing (the typed names remain available).
 * Every selection and overload set is generated from the BASE part of a type table in
 * shmem/shmem_types.h. The families live in shmem_generic_{rma,amo,coll}.h; this file holds
 * the shared machinery, and must come after every declaration in <shmem.h>, because in C11
 * some generic names (shmem_sync, shmem_wait_until) are also names of deprecated functions.
 *
 * A leading context argument is optional where the spec allows it: shmem_put(ctx, dest, ...)
 * and shmem_put(dest, ...) both work. In C11 the first argument's type decides (shmem_ctx_t, or
 * not); SHMEM_CTX_DEFAULT has type shmem_ctx_t, a plain NULL does not.
 */
#ifndef SHMEM_SHMEM_GENERIC_H
#define SHMEM_SHMEM_GENERIC_H

#ifndef SHMEM_H
#error "include <shmem.h> instead of <shmem/shmem_generic.h>"
#endif

#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define SHMEM_HAVE_C11_GENERIC_ 1

/* Argument pickers. Callers append a 0, so `...` never receives zero arguments (C11 forbids). */
#define SHMEM_G_ARG1_(a, ...) a
#define SHMEM_G_ARG2_(a, b, ...) b

/* Association builders for TABLE_A(G, , PREFIX, SUFFIX): "TYPE *: PREFIX TYPENAME SUFFIX,".
 * The _C_ form also accepts a pointer to const (for routines whose operand is const TYPE *). */
#define SHMEM_G_ASSOC_(T, N, P, S) T*: P##N##S,
#define SHMEM_G_ASSOC_C_(T, N, P, S) T*: P##N##S, const T*: P##N##S,

/* What a selection yields for a type outside the table: not a function, so calling it fails to
 * compile with a message naming this object. Never defined, never referenced at run time. */
extern struct shmem_generic_unsupported_type_ shmem_generic_unsupported_type_;

/* Select shmem_TYPENAME_S by the type of argument 1 or 2. */
#define SHMEM_G_ON1_(TABLE, G, S, ...)                                                      \
  _Generic(SHMEM_G_ARG1_(__VA_ARGS__, 0),                                                 \
           TABLE(G, , shmem_, S) default: shmem_generic_unsupported_type_)(__VA_ARGS__)
#define SHMEM_G_ON2_(TABLE, G, S, ...)                                                      \
  _Generic(SHMEM_G_ARG2_(__VA_ARGS__, 0),                                                 \
           TABLE(G, , shmem_, S) default: shmem_generic_unsupported_type_)(__VA_ARGS__)
/* Optional leading context: shmem_ctx_TYPENAME_S by argument 2 when argument 1 is a shmem_ctx_t,
 * else shmem_TYPENAME_S by argument 1. The branch not taken must still compile, hence the
 * defaults. */
#define SHMEM_G_CTX_(TABLE, G, S, ...)                                                          \
  _Generic(SHMEM_G_ARG1_(__VA_ARGS__, 0),                                                     \
      shmem_ctx_t: _Generic(SHMEM_G_ARG2_(__VA_ARGS__, 0),                                    \
                            TABLE(G, , shmem_ctx_, S) default: shmem_generic_unsupported_type_), \
      default: _Generic(SHMEM_G_ARG1_(__VA_ARGS__, 0),                                        \
                        TABLE(G, , shmem_, S) default: shmem_generic_unsupported_type_))(__VA_ARGS__)

#elif defined(__cplusplus)
#define SHMEM_HAVE_CXX_OVERLOADS_ 1

#define SHMEM_CXX_UNPAREN_(...) __VA_ARGS__
/* inline R NAME(PARAMS) { return FN(ARGS); }, PARAMS and ARGS parenthesized. */
#define SHMEM_CXX_FWD_(R, NAME, FN, PARAMS, ARGS) \
  inline R NAME(SHMEM_CXX_UNPAREN_ PARAMS) noexcept { return FN(SHMEM_CXX_UNPAREN_ ARGS); }
/* The same, plus the form with a leading context forwarding to CFN. */
#define SHMEM_CXX_FWD_CTX_(R, NAME, FN, CFN, PARAMS, ARGS) \
  SHMEM_CXX_FWD_(R, NAME, FN, PARAMS, ARGS)                \
  inline R NAME(shmem_ctx_t ctx, SHMEM_CXX_UNPAREN_ PARAMS) noexcept { return CFN(ctx, SHMEM_CXX_UNPAREN_ ARGS); }
#endif

#include "shmem/shmem_generic_rma.h"
#include "shmem/shmem_generic_amo.h"
#include "shmem/shmem_generic_coll.h"

#endif /* SHMEM_SHMEM_GENERIC_H */
