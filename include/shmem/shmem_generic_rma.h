/*
 * shmem/shmem_generic_rma.h - generic RMA and put-with-signal names, each with an optional
 * leading context: shmem_{put,get,put_nbi,get_nbi,p,g,iput,iget,ibput,ibget,put_signal,
 * put_signal_nbi}, and shmem_signal_{set,add} with an optional context. TYPE: the standard RMA types (SHMEM_RMA_TYPE_TABLE_BASE). Selection is by
 * the first non-context argument (dest, or source for shmem_g). Included by shmem/shmem_generic.h.
 */
#ifndef SHMEM_SHMEM_GENERIC_RMA_H
#define SHMEM_SHMEM_GENERIC_RMA_H

#if defined(SHMEM_HAVE_C11_GENERIC_)

#define SHMEM_G_RMA_(S, ...) SHMEM_G_CTX_(SHMEM_RMA_TYPE_TABLE_BASE_A, SHMEM_G_ASSOC_, S, __VA_ARGS__)
#define shmem_put(...) SHMEM_G_RMA_(_put, __VA_ARGS__)
#define shmem_get(...) SHMEM_G_RMA_(_get, __VA_ARGS__)
#define shmem_put_nbi(...) SHMEM_G_RMA_(_put_nbi, __VA_ARGS__)
#define shmem_get_nbi(...) SHMEM_G_RMA_(_get_nbi, __VA_ARGS__)
#define shmem_p(...) SHMEM_G_RMA_(_p, __VA_ARGS__)
#define shmem_g(...) SHMEM_G_CTX_(SHMEM_RMA_TYPE_TABLE_BASE_A, SHMEM_G_ASSOC_C_, _g, __VA_ARGS__)
#define shmem_iput(...) SHMEM_G_RMA_(_iput, __VA_ARGS__)
#define shmem_iget(...) SHMEM_G_RMA_(_iget, __VA_ARGS__)
#define shmem_ibput(...) SHMEM_G_RMA_(_ibput, __VA_ARGS__)
#define shmem_ibget(...) SHMEM_G_RMA_(_ibget, __VA_ARGS__)
#define shmem_put_signal(...) SHMEM_G_RMA_(_put_signal, __VA_ARGS__)
#define shmem_put_signal_nbi(...) SHMEM_G_RMA_(_put_signal_nbi, __VA_ARGS__)
/* shmem_signal_{set,add}([ctx,] sig_addr, signal, pe) (1.6 synopsis): the ctx form when the
 * first argument is a shmem_ctx_t. Inside the expansion the name is the function again. */
#define SHMEM_G_SIGNAL_(S, ...)                                              \
  _Generic(SHMEM_G_ARG1_(__VA_ARGS__, 0), shmem_ctx_t: shmem_ctx_signal_##S, \
           default: shmem_signal_##S)(__VA_ARGS__)
#define shmem_signal_set(...) SHMEM_G_SIGNAL_(set, __VA_ARGS__)
#define shmem_signal_add(...) SHMEM_G_SIGNAL_(add, __VA_ARGS__)

#elif defined(SHMEM_HAVE_CXX_OVERLOADS_)

extern "C++" {
#define SHMEM_CXX_RMA_(T, N)                                                                            \
  SHMEM_CXX_FWD_CTX_(void, shmem_put, shmem_##N##_put, shmem_ctx_##N##_put,                             \
                     (T * dest, const T* source, size_t nelems, int pe), (dest, source, nelems, pe))    \
  SHMEM_CXX_FWD_CTX_(void, shmem_get, shmem_##N##_get, shmem_ctx_##N##_get,                             \
                     (T * dest, const T* source, size_t nelems, int pe), (dest, source, nelems, pe))    \
  SHMEM_CXX_FWD_CTX_(void, shmem_put_nbi, shmem_##N##_put_nbi, shmem_ctx_##N##_put_nbi,                 \
                     (T * dest, const T* source, size_t nelems, int pe), (dest, source, nelems, pe))    \
  SHMEM_CXX_FWD_CTX_(void, shmem_get_nbi, shmem_##N##_get_nbi, shmem_ctx_##N##_get_nbi,                 \
                     (T * dest, const T* source, size_t nelems, int pe), (dest, source, nelems, pe))    \
  SHMEM_CXX_FWD_CTX_(void, shmem_p, shmem_##N##_p, shmem_ctx_##N##_p, (T * dest, T value, int pe),      \
                     (dest, value, pe))                                                                 \
  SHMEM_CXX_FWD_CTX_(T, shmem_g, shmem_##N##_g, shmem_ctx_##N##_g, (const T* source, int pe),           \
                     (source, pe))                                                                      \
  SHMEM_CXX_FWD_CTX_(void, shmem_iput, shmem_##N##_iput, shmem_ctx_##N##_iput,                          \
                     (T * dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe),  \
                     (dest, source, dst, sst, nelems, pe))                                              \
  SHMEM_CXX_FWD_CTX_(void, shmem_iget, shmem_##N##_iget, shmem_ctx_##N##_iget,                          \
                     (T * dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe),  \
                     (dest, source, dst, sst, nelems, pe))                                              \
  SHMEM_CXX_FWD_CTX_(void, shmem_ibput, shmem_##N##_ibput, shmem_ctx_##N##_ibput,                       \
                     (T * dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,            \
                      size_t nblocks, int pe),                                                          \
                     (dest, source, dst, sst, bsize, nblocks, pe))                                      \
  SHMEM_CXX_FWD_CTX_(void, shmem_ibget, shmem_##N##_ibget, shmem_ctx_##N##_ibget,                       \
                     (T * dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,            \
                      size_t nblocks, int pe),                                                          \
                     (dest, source, dst, sst, bsize, nblocks, pe))                                      \
  SHMEM_CXX_FWD_CTX_(void, shmem_put_signal, shmem_##N##_put_signal, shmem_ctx_##N##_put_signal,        \
                     (T * dest, const T* source, size_t nelems, uint64_t* sig_addr, uint64_t signal,    \
                      int sig_op, int pe),                                                              \
                     (dest, source, nelems, sig_addr, signal, sig_op, pe))                              \
  SHMEM_CXX_FWD_CTX_(void, shmem_put_signal_nbi, shmem_##N##_put_signal_nbi,                            \
                     shmem_ctx_##N##_put_signal_nbi,                                                    \
                     (T * dest, const T* source, size_t nelems, uint64_t* sig_addr, uint64_t signal,    \
                      int sig_op, int pe),                                                              \
                     (dest, source, nelems, sig_addr, signal, sig_op, pe))
SHMEM_RMA_TYPE_TABLE_BASE(SHMEM_CXX_RMA_)
#undef SHMEM_CXX_RMA_
/* shmem_signal_{set,add}(ctx, sig_addr, signal, pe) beside the C functions without ctx. */
inline void shmem_signal_set(shmem_ctx_t ctx, uint64_t* sig_addr, uint64_t signal, int pe) noexcept {
  shmem_ctx_signal_set(ctx, sig_addr, signal, pe);
}
inline void shmem_signal_add(shmem_ctx_t ctx, uint64_t* sig_addr, uint64_t signal, int pe) noexcept {
  shmem_ctx_signal_add(ctx, sig_addr, signal, pe);
}
}  // extern "C++"

#endif

#endif /* SHMEM_SHMEM_GENERIC_RMA_H */
