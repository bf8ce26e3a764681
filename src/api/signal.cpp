// Put-with-signal (typed, sized and mem; blocking and _nbi; ctx forms) and the signal routines
// shmem_signal_fetch, shmem_signal_wait_until, shmem_[ctx_]signal_{add,set} (1.6).
#include "api/shim.hpp"

namespace api = shmem::api;

using api::signal_update;

extern "C" {

#define SHMEM_DEF_PUT_SIGNAL_(NAME, ELEM_T, ELEM_BYTES)                                                     \
  void shmem_##NAME##_signal(ELEM_T* dest, const ELEM_T* source, size_t nelems, uint64_t* sig_addr,         \
                             uint64_t signal, int sig_op, int pe) noexcept {                                \
    api::put_signal(__func__, SHMEM_CTX_DEFAULT, dest, source, nelems*(ELEM_BYTES), sig_addr, signal,       \
                    sig_op, pe, false);                                                                     \
  }                                                                                                         \
  void shmem_ctx_##NAME##_signal(shmem_ctx_t ctx, ELEM_T* dest, const ELEM_T* source, size_t nelems,        \
                                 uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) noexcept {        \
    api::put_signal(__func__, ctx, dest, source, nelems*(ELEM_BYTES), sig_addr, signal, sig_op, pe, false); \
  }                                                                                                         \
  void shmem_##NAME##_signal_nbi(ELEM_T* dest, const ELEM_T* source, size_t nelems, uint64_t* sig_addr,     \
                                 uint64_t signal, int sig_op, int pe) noexcept {                            \
    api::put_signal(__func__, SHMEM_CTX_DEFAULT, dest, source, nelems*(ELEM_BYTES), sig_addr, signal,       \
                    sig_op, pe, true);                                                                      \
  }                                                                                                         \
  void shmem_ctx_##NAME##_signal_nbi(shmem_ctx_t ctx, ELEM_T* dest, const ELEM_T* source, size_t nelems,    \
                                     uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) noexcept {    \
    api::put_signal(__func__, ctx, dest, source, nelems*(ELEM_BYTES), sig_addr, signal, sig_op, pe, true);  \
  }

// shmem_TYPENAME_put_signal ...
#define SHMEM_DEF_PUT_SIGNAL_TYPED_(T, N) SHMEM_DEF_PUT_SIGNAL_(N##_put, T, sizeof(T))
SHMEM_RMA_TYPE_TABLE(SHMEM_DEF_PUT_SIGNAL_TYPED_)
#undef SHMEM_DEF_PUT_SIGNAL_TYPED_

// shmem_putSIZE_signal ...
#define SHMEM_DEF_PUT_SIGNAL_SIZED_(S) SHMEM_DEF_PUT_SIGNAL_(put##S, void, S / 8)
SHMEM_RMA_SIZE_TABLE(SHMEM_DEF_PUT_SIGNAL_SIZED_)
#undef SHMEM_DEF_PUT_SIGNAL_SIZED_

// shmem_putmem_signal ...
SHMEM_DEF_PUT_SIGNAL_(putmem, void, 1)
#undef SHMEM_DEF_PUT_SIGNAL_

uint64_t shmem_signal_fetch(const uint64_t* sig_addr) noexcept {
  if (api::checking()) shmem::core::check_symmetric(__func__, "sig_addr", sig_addr, sizeof(uint64_t));
  return shmem::core::signal_fetch(sig_addr);
}

uint64_t shmem_signal_wait_until(uint64_t* sig_addr, int cmp, uint64_t cmp_value) noexcept {
  if (api::checking()) api::check_wait(__func__, cmp, "sig_addr", sig_addr, sizeof(uint64_t));
  return shmem::core::signal_wait_until(sig_addr, cmp, cmp_value, __func__);
}

void shmem_signal_add(uint64_t* sig_addr, uint64_t signal, int pe) noexcept {
  signal_update(__func__, SHMEM_CTX_DEFAULT, sig_addr, signal, SHMEM_SIGNAL_ADD, pe);
}
void shmem_ctx_signal_add(shmem_ctx_t ctx, uint64_t* sig_addr, uint64_t signal, int pe) noexcept {
  signal_update(__func__, ctx, sig_addr, signal, SHMEM_SIGNAL_ADD, pe);
}
void shmem_signal_set(uint64_t* sig_addr, uint64_t signal, int pe) noexcept {
  signal_update(__func__, SHMEM_CTX_DEFAULT, sig_addr, signal, SHMEM_SIGNAL_SET, pe);
}
void shmem_ctx_signal_set(shmem_ctx_t ctx, uint64_t* sig_addr, uint64_t signal, int pe) noexcept {
  signal_update(__func__, ctx, sig_addr, signal, SHMEM_SIGNAL_SET, pe);
}

}  // extern "C"
