// Sandia OpenSHMEM's performance counters and thread-id registration (shmemx.h): the counts of
// a context's RMA writes and reads issued and completed (core/op_counters.hpp).
#include <shmemx.h>

#include "api/shim.hpp"

namespace api = shmem::api;

namespace {
const shmem::Ctx::Counted& counted(const char* f, shmem_ctx_t h) noexcept { return api::ctx_of(f, h)->counted; }
std::uint64_t load(const std::uint64_t& w) noexcept {
  return std::atomic_ref<const std::uint64_t>(w).load(std::memory_order_relaxed);
}
void out(const char* f, std::uint64_t* value, std::uint64_t v) noexcept {
  if (value == nullptr) shmem::core::fatal(f, "cntr_value is null");
  *value = v;
}
}  // namespace

extern "C" {

void shmemx_pcntr_get_issued_write(shmem_ctx_t ctx, uint64_t* cntr_value) noexcept {
  out(__func__, cntr_value, load(counted(__func__, ctx).issued_write));
}
void shmemx_pcntr_get_issued_read(shmem_ctx_t ctx, uint64_t* cntr_value) noexcept {
  out(__func__, cntr_value, load(counted(__func__, ctx).issued_read));
}
void shmemx_pcntr_get_completed_write(shmem_ctx_t ctx, uint64_t* cntr_value) noexcept {
  out(__func__, cntr_value, load(counted(__func__, ctx).completed_write));
}
void shmemx_pcntr_get_completed_read(shmem_ctx_t ctx, uint64_t* cntr_value) noexcept {
  out(__func__, cntr_value, load(counted(__func__, ctx).completed_read));
}
// Writes into this PE's memory are plain stores of its node-local peers (or of the transport):
// not counted, so 0, as Sandia OpenSHMEM reports on its transports without target counters.
void shmemx_pcntr_get_completed_target(uint64_t* cntr_value) noexcept {
  (void)shmem::core::rt(__func__);
  out(__func__, cntr_value, 0);
}
void shmemx_pcntr_get_all(shmem_ctx_t ctx, shmemx_pcntr_t* pcntr) noexcept {
  if (pcntr == nullptr) shmem::core::fatal(__func__, "pcntr is null");
  const shmem::Ctx::Counted& c = counted(__func__, ctx);
  pcntr->pending_put = load(c.issued_write);
  pcntr->pending_get = load(c.issued_read);
  pcntr->completed_put = load(c.completed_write);
  pcntr->completed_get = load(c.completed_read);
  pcntr->target = 0;
}

// Sandia uses the function to tell threads apart for its thread-safe contexts; this library's
// contexts need no thread ids, so it is accepted and not called.
void shmemx_register_gettid(uint64_t (*gettid_fn)(void)) noexcept { (void)gettid_fn; }
}  // extern "C"
