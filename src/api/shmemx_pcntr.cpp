// Sandia OpenSHMEM's performance counters and thread-id registration (shmemx.h): the counts of
// a context's writes and reads issued and completed, and this PE's target count
// (core/op_counters.hpp says what counts as which).
#include <shmemx.h>

#include "api/shim.hpp"
#include "core/op_counters.hpp"

namespace api = shmem::api;

namespace {
const shmem::Ctx::Counted& counted(const char* f, shmem_ctx_t h) noexcept { return api::ctx_of(f, h)->counted; }
std::uint64_t load(const std::uint64_t& w) noexcept {
  return std::atomic_ref<const std::uint64_t>(w).load(std::memory_order_relaxed);
}
// Issued: complete on return plus complete at quiet; completed: the first plus those a quiet saw.
std::uint64_t issued_write(const shmem::Ctx::Counted& c) noexcept { return load(c.write_now) + load(c.write_later); }
std::uint64_t issued_read(const shmem::Ctx::Counted& c) noexcept { return load(c.read_now) + load(c.read_later); }
std::uint64_t completed_write(const shmem::Ctx::Counted& c) noexcept {
  return load(c.write_now) + load(c.write_later_done);
}
std::uint64_t completed_read(const shmem::Ctx::Counted& c) noexcept {
  return load(c.read_now) + load(c.read_later_done);
}
void out(const char* f, std::uint64_t* value, std::uint64_t v) noexcept {
  if (value == nullptr) shmem::core::fatal(f, "cntr_value is null");
  *value = v;
}
}  // namespace

extern "C" {

void shmemx_pcntr_get_issued_write(shmem_ctx_t ctx, uint64_t* cntr_value) noexcept {
  out(__func__, cntr_value, issued_write(counted(__func__, ctx)));
}
void shmemx_pcntr_get_issued_read(shmem_ctx_t ctx, uint64_t* cntr_value) noexcept {
  out(__func__, cntr_value, issued_read(counted(__func__, ctx)));
}
void shmemx_pcntr_get_completed_write(shmem_ctx_t ctx, uint64_t* cntr_value) noexcept {
  out(__func__, cntr_value, completed_write(counted(__func__, ctx)));
}
void shmemx_pcntr_get_completed_read(shmem_ctx_t ctx, uint64_t* cntr_value) noexcept {
  out(__func__, cntr_value, completed_read(counted(__func__, ctx)));
}
// The writes and AMOs other PEs (and this one) completed into this PE's memory, counted by the
// PEs that made them when they run with SHMEM_PCNTR_TARGET=1; 0 otherwise (peers write with
// plain stores), as Sandia OpenSHMEM reports on its transports without a target counter.
void shmemx_pcntr_get_completed_target(uint64_t* cntr_value) noexcept {
  const shmem::Runtime& r = shmem::core::rt(__func__);
  out(__func__, cntr_value, shmem::op_counters::target_count(r));
}
void shmemx_pcntr_get_all(shmem_ctx_t ctx, shmemx_pcntr_t* pcntr) noexcept {
  if (pcntr == nullptr) shmem::core::fatal(__func__, "pcntr is null");
  const shmem::Ctx::Counted& c = counted(__func__, ctx);
  pcntr->pending_put = issued_write(c);
  pcntr->pending_get = issued_read(c);
  pcntr->completed_put = completed_write(c);
  pcntr->completed_get = completed_read(c);
  pcntr->target = shmem::op_counters::target_count(*api::ctx_of(__func__, ctx)->rt);
}

// Sandia uses the function to tell threads apart for its thread-safe contexts; this library's
// contexts need no thread ids, so it is accepted and not called.
void shmemx_register_gettid(uint64_t (*gettid_fn)(void)) noexcept { (void)gettid_fn; }
}  // extern "C"
