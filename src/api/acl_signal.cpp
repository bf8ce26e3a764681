// Put with signal and signal waits of aclshmem.h, with Ascend SHMEM's int32 signals:
// aclshmem_TYPENAME_put_signal[_nbi], aclshmem_putBITS_signal[_nbi], aclshmemx_putmem_signal[_nbi]
// and aclshmem_signal_wait_until. The core's put_signal works on uint64 words, so the signal is
// a 32-bit atomic (SET = swap-free store, ADD = fetch-free add) issued after the data put and a
// fence, which orders the payload before the signal on the target.
#include "api/acl_shim.hpp"

namespace acl = shmem::acl;
namespace api = shmem::api;
namespace core = shmem::core;

namespace {

void put_signal(const char* f, void* dest, const void* source, std::size_t bytes, void* sig_addr, std::int32_t signal,
                int sig_op, int pe) noexcept {
  const core::AmoOp op = acl::sig_amo_op(f, sig_op);
  acl::check_sig_word(f, sig_addr);
  shmem::Ctx* ctx = api::ctx_of(f, SHMEM_CTX_DEFAULT);
  if (api::checking()) {
    api::check_rma(f, pe, "dest", dest, bytes, "source", source, bytes);
    api::check_symmetric(f, "sig_addr", sig_addr, sizeof(std::int32_t));
  }
  if (bytes != 0) core::put(ctx, dest, source, bytes, pe);
  core::fence(ctx);
  core::amo32(ctx, op, sig_addr, static_cast<std::uint32_t>(signal), 0, pe);
}

}  // namespace

extern "C" {

// Node-local transfers complete before the call returns, so the _nbi forms are the blocking ones.
#define ACL_DEF_PUT_SIGNAL_(T, NAME)                                                                          \
  void aclshmem_##NAME##_put_signal(T* dest, const T* source, size_t nelems, void* sig_addr, int32_t signal,  \
                                    int sig_op, int pe) noexcept {                                            \
    put_signal(__func__, dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, pe);                     \
  }                                                                                                           \
  void aclshmem_##NAME##_put_signal_nbi(T* dest, const T* source, size_t nelems, void* sig_addr,              \
                                        int32_t signal, int sig_op, int pe) noexcept {                        \
    put_signal(__func__, dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, pe);                     \
  }
ACLSHMEM_HOST_TYPE_TABLE(ACL_DEF_PUT_SIGNAL_)
#undef ACL_DEF_PUT_SIGNAL_

#define ACL_DEF_PUT_SIGNAL_SIZED_(BITS)                                                                        \
  void aclshmem_put##BITS##_signal(void* dest, const void* source, size_t nelems, int32_t* sig_addr,           \
                                   int32_t signal, int sig_op, int pe) noexcept {                              \
    put_signal(__func__, dest, source, nelems * ((BITS) / 8), sig_addr, signal, sig_op, pe);                   \
  }                                                                                                            \
  void aclshmem_put##BITS##_signal_nbi(void* dest, const void* source, size_t nelems, int32_t* sig_addr,       \
                                       int32_t signal, int sig_op, int pe) noexcept {                          \
    put_signal(__func__, dest, source, nelems * ((BITS) / 8), sig_addr, signal, sig_op, pe);                   \
  }
ACLSHMEM_SIZE_TABLE(ACL_DEF_PUT_SIGNAL_SIZED_)
#undef ACL_DEF_PUT_SIGNAL_SIZED_

void aclshmemx_putmem_signal(void* dest, const void* source, size_t nbytes, void* sig_addr, int32_t signal,
                             int sig_op, int pe) noexcept {
  put_signal(__func__, dest, source, nbytes, sig_addr, signal, sig_op, pe);
}
void aclshmemx_putmem_signal_nbi(void* dest, const void* source, size_t nbytes, void* sig_addr, int32_t signal,
                                 int sig_op, int pe) noexcept {
  put_signal(__func__, dest, source, nbytes, sig_addr, signal, sig_op, pe);
}

void aclshmem_signal_wait_until(int32_t* sig_addr, int cmp, int32_t cmp_value) noexcept {
  acl::check_cmp(__func__, cmp);
  if (api::checking()) api::check_wait(__func__, cmp, "sig_addr", sig_addr, sizeof(int32_t));
  core::wait_until(core::WaitKind::kI32, sig_addr, cmp, api::widen(cmp_value));
}

}  // extern "C"
