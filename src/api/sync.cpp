// Memory ordering (quiet, fence, 1.6 pe_quiet), shmem_barrier_all, shmem_sync_all, and the 1.6
// session hints.
#include "api/shim.hpp"
#include "core/coll_check.hpp"

namespace api = shmem::api;

namespace {
// Completing everything on the context also completes what was issued to target_pes; the spec
// notes pe_quiet may cost the same as quiet. npes == 0 returns at once, ignoring target_pes.
void pe_quiet(const char* f, shmem_ctx_t h, const int* target_pes, size_t npes) noexcept {
  if (h == SHMEM_CTX_INVALID) return;  // as for shmem_ctx_quiet
  shmem::Ctx* ctx = api::ctx_of(f, h);
  if (npes == 0) return;
  if (api::checking()) {
    api::check_local(f, "target_pes", target_pes, npes * sizeof(int));
    for (size_t i = 0; i < npes; ++i) shmem::core::check_pe(f, target_pes[i]);
  }
  shmem::core::quiet(ctx);
}
}  // namespace

extern "C" {

void shmem_quiet(void) noexcept { shmem::core::quiet(api::ctx_of(__func__, SHMEM_CTX_DEFAULT)); }
// Spec (shmem_quiet.tex, shmem_fence.tex): "If ctx has the value SHMEM_CTX_INVALID, no operation
// is performed." (RMA and AMO routines on it are undefined; ctx_of ends the job with a message.)
void shmem_ctx_quiet(shmem_ctx_t ctx) noexcept {
  if (ctx == SHMEM_CTX_INVALID) return;
  shmem::core::quiet(api::ctx_of(__func__, ctx));
}
void shmem_fence(void) noexcept { shmem::core::fence(api::ctx_of(__func__, SHMEM_CTX_DEFAULT)); }
void shmem_ctx_fence(shmem_ctx_t ctx) noexcept {
  if (ctx == SHMEM_CTX_INVALID) return;
  shmem::core::fence(api::ctx_of(__func__, ctx));
}

void shmem_ctx_pe_quiet(shmem_ctx_t ctx, const int* target_pes, size_t npes) noexcept {
  pe_quiet(__func__, ctx, target_pes, npes);
}
void shmem_pe_quiet(const int* target_pes, size_t npes) noexcept {
  pe_quiet(__func__, SHMEM_CTX_DEFAULT, target_pes, npes);
}

// Before init, the core's call reports the routine; after, the call is published for the
// collective check (core/coll_check.hpp) and made here (core::barrier_all's two steps, without
// looking the runtime up again).
void shmem_barrier_all(void) noexcept {
  shmem::Runtime* r = shmem::current_runtime();
  if (__builtin_expect(r == nullptr, 0)) return shmem::core::barrier_all();
  const shmem::coll_check::Scope call(__func__, shmem::coll_check::Kind::kNoArgs, *r);
  shmem::core::quiet(r->default_ctx());
  r->barrier();
}
void shmem_sync_all(void) noexcept {
  shmem::Runtime* r = shmem::current_runtime();
  if (__builtin_expect(r == nullptr, 0)) return shmem::core::sync_all();
  const shmem::coll_check::Scope call(__func__, shmem::coll_check::Kind::kNoArgs, *r);
  r->barrier();
}

// Sessions are hints that never change completion or ordering semantics; this library applies
// no session-specific optimisation, so start and stop only validate their arguments.
// SHMEM_CTX_INVALID is explicitly a no-op for start.
void shmem_ctx_session_start(shmem_ctx_t ctx, long options, const shmem_ctx_session_config_t* config,
                             long config_mask) noexcept {
  (void)options;
  if (ctx == SHMEM_CTX_INVALID) return;
  if (api::checking() && config_mask != 0 && config == nullptr)
    shmem::core::fatal(__func__, "config is null but config_mask=%ld selects fields from it", config_mask);
}
void shmem_ctx_session_stop(shmem_ctx_t ctx) noexcept { (void)ctx; }

}  // extern "C"
