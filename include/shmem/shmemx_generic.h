/*
 * shmem/shmemx_generic.h - Sandia OpenSHMEM's generic shmemx_ names: shmemx_ibput / shmemx_ibget
 * (any standard RMA type, optional leading context) and shmemx_signal_set / shmemx_signal_add with
 * an optional leading context (the 4-argument ctx form). Each is the standard generic routine
 * under another name. C11 _Generic macros, C++ overloads. Included by shmemx.h.
 */
#ifndef SHMEM_SHMEMX_GENERIC_H
#define SHMEM_SHMEMX_GENERIC_H

#if defined(SHMEM_HAVE_C11_GENERIC_)

#define shmemx_ibput(...) shmem_ibput(__VA_ARGS__)
#define shmemx_ibget(...) shmem_ibget(__VA_ARGS__)
/* Inside the expansion the name is the function again (the 3-argument form). */
/* clang-format off */
#define SHMEMX_G_SIGNAL_(S, ...)                                              \
  _Generic(SHMEM_G_ARG1_(__VA_ARGS__, 0), shmem_ctx_t: shmemx_ctx_signal_##S, \
           default: shmemx_signal_##S)(__VA_ARGS__)
/* clang-format on */
#define shmemx_signal_set(...) SHMEMX_G_SIGNAL_(set, __VA_ARGS__)
#define shmemx_signal_add(...) SHMEMX_G_SIGNAL_(add, __VA_ARGS__)

#elif defined(SHMEM_HAVE_CXX_OVERLOADS_)

extern "C++" {
template <class... A>
inline auto shmemx_ibput(A... a) noexcept -> decltype(shmem_ibput(a...)) {
  return shmem_ibput(a...);
}
template <class... A>
inline auto shmemx_ibget(A... a) noexcept -> decltype(shmem_ibget(a...)) {
  return shmem_ibget(a...);
}
inline void shmemx_signal_set(shmem_ctx_t ctx, uint64_t* sig_addr, uint64_t signal, int pe) noexcept {
  shmemx_ctx_signal_set(ctx, sig_addr, signal, pe);
}
inline void shmemx_signal_add(shmem_ctx_t ctx, uint64_t* sig_addr, uint64_t signal, int pe) noexcept {
  shmemx_ctx_signal_add(ctx, sig_addr, signal, pe);
}
}  // extern "C++"

#endif

#endif /* SHMEM_SHMEMX_GENERIC_H */
