// Teams (shmem_team_*) and communication-context management (shmem_ctx_create,
// shmem_team_create_ctx, shmem_ctx_destroy, shmem_ctx_get_team). Handle conventions are in
// shmem/shmem_team.h and api/team_shim.hpp.
#include "api/team_shim.hpp"
#include "core/coll_check.hpp"

namespace api = shmem::api;
namespace core = shmem::core;
using shmem::Team;

// The public constants are the core's; keep that explicit.
static_assert(SHMEM_TEAM_NUM_CONTEXTS == core::kTeamNumContexts);
static_assert(SHMEM_CTX_SERIALIZED == core::kCtxSerialized && SHMEM_CTX_PRIVATE == core::kCtxPrivate &&
              SHMEM_CTX_NOSTORE == core::kCtxNostore);

namespace {

// shmem_team_config_t -> core::TeamConfig, copying only the fields the mask selects (the others
// may be uninitialised in the caller's struct). Returns nullptr when no field is used.
const core::TeamConfig* to_core(const shmem_team_config_t* in, long mask, core::TeamConfig* out) noexcept {
  if (in == nullptr || mask == 0) return nullptr;
  if (mask & SHMEM_TEAM_NUM_CONTEXTS) out->num_contexts = in->num_contexts;
  return out;
}

// A config argument with a nonzero mask must point somewhere.
void check_config(const char* f, const char* arg, const shmem_team_config_t* config, long mask) noexcept {
  if (api::checking() && config == nullptr && mask != 0)
    core::fatal(f, "%s is null but its mask (%ld) selects fields from it", arg, mask);
}

void check_out(const char* f, const char* arg, const void* p) noexcept {
  if (p == nullptr) core::fatal(f, "%s is null: the routine has nowhere to store its result", arg);
}

}  // namespace

extern "C" {

int shmem_team_my_pe(shmem_team_t team) noexcept { return core::team_my_pe(api::team_of(__func__, team)); }
int shmem_team_n_pes(shmem_team_t team) noexcept { return core::team_n_pes(api::team_of(__func__, team)); }

// A zero mask reads nothing, so config may then be null; a null config with a nonzero mask, or an
// invalid team, is refused.
int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t* config) noexcept {
  const Team* t = api::team_of(__func__, team);
  if (t == nullptr || (config == nullptr && config_mask != 0)) return api::kRefused;
  if (config_mask == 0) return 0;
  core::TeamConfig c;
  const int rc = core::team_get_config(t, config_mask, &c);
  if (rc == 0 && (config_mask & SHMEM_TEAM_NUM_CONTEXTS)) config->num_contexts = c.num_contexts;
  return rc;
}

int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team) noexcept {
  return core::team_translate_pe(api::team_of(__func__, src_team), src_pe, api::team_of(__func__, dest_team));
}

int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t* config, long config_mask, shmem_team_t* new_team) noexcept {
  check_out(__func__, "new_team", new_team);
  check_config(__func__, "config", config, config_mask);
  *new_team = SHMEM_TEAM_INVALID;
  Team* parent = api::team_of(__func__, parent_team);
  if (parent == nullptr) return api::kRefused;
  core::TeamConfig c;
  Team* out = nullptr;
  const int rc = core::team_split_strided(parent, start, stride, size, to_core(config, config_mask, &c), config_mask,
                                          &out);
  *new_team = api::handle_of(out);
  return rc;
}

int shmem_team_split_2d(shmem_team_t parent_team, int xrange, const shmem_team_config_t* xaxis_config,
                        long xaxis_mask, shmem_team_t* xaxis_team, const shmem_team_config_t* yaxis_config,
                        long yaxis_mask, shmem_team_t* yaxis_team) noexcept {
  check_out(__func__, "xaxis_team", xaxis_team);
  check_out(__func__, "yaxis_team", yaxis_team);
  check_config(__func__, "xaxis_config", xaxis_config, xaxis_mask);
  check_config(__func__, "yaxis_config", yaxis_config, yaxis_mask);
  *xaxis_team = SHMEM_TEAM_INVALID;
  *yaxis_team = SHMEM_TEAM_INVALID;
  Team* parent = api::team_of(__func__, parent_team);
  if (parent == nullptr) return api::kRefused;
  core::TeamConfig xc, yc;
  Team* x = nullptr;
  Team* y = nullptr;
  const int rc = core::team_split_2d(parent, xrange, to_core(xaxis_config, xaxis_mask, &xc), xaxis_mask, &x,
                                     to_core(yaxis_config, yaxis_mask, &yc), yaxis_mask, &y);
  *xaxis_team = api::handle_of(x);
  *yaxis_team = api::handle_of(y);
  return rc;
}

void shmem_team_destroy(shmem_team_t team) noexcept {
  if (team == SHMEM_TEAM_INVALID) return;
  core::team_destroy(api::team_of(__func__, team));
}

void* shmem_team_ptr(shmem_team_t team, const void* dest, int pe) noexcept {
  return core::team_ptr(api::team_of(__func__, team), dest, pe);
}

int shmem_team_sync(shmem_team_t team) noexcept {
  Team* t = api::coll_team(__func__, team);
  if (t == nullptr) return api::kRefused;
  const shmem::coll_check::Scope call(__func__, shmem::coll_check::Kind::kTeam, *t);
  return core::team_sync(t);
}

// ---- contexts ------------------------------------------------------------------------------------
// On failure *ctx is left unchanged (shmem_ctx_create.tex).
int shmem_ctx_create(long options, shmem_ctx_t* ctx) noexcept {
  check_out(__func__, "ctx", ctx);
  shmem::Ctx* c = nullptr;
  const int rc = core::ctx_create(core::team_world(), options, &c);
  if (rc == 0) *ctx = api::ctx_handle(c);
  return rc;
}

int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t* ctx) noexcept {
  check_out(__func__, "ctx", ctx);
  Team* t = api::team_of(__func__, team);
  if (t == nullptr) {
    *ctx = SHMEM_CTX_INVALID;
    return api::kRefused;
  }
  shmem::Ctx* c = nullptr;
  const int rc = core::ctx_create(t, options, &c);
  if (rc == 0) *ctx = api::ctx_handle(c);
  return rc;
}

// Destroying SHMEM_CTX_INVALID does nothing, like free(NULL): programs that reset failed handles
// to it can destroy unconditionally.
void shmem_ctx_destroy(shmem_ctx_t ctx) noexcept {
  if (ctx == SHMEM_CTX_INVALID) return;
  core::ctx_destroy(api::ctx_of(__func__, ctx));
}

int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t* team) noexcept {
  check_out(__func__, "team", team);
  if (ctx == SHMEM_CTX_INVALID) {
    *team = SHMEM_TEAM_INVALID;
    return api::kRefused;
  }
  Team* t = core::ctx_get_team(api::ctx_of(__func__, ctx));
  *team = api::handle_of(t);
  return t == nullptr ? api::kRefused : 0;
}

}  // extern "C"
