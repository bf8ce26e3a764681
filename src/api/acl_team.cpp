// Teams and team synchronisation of aclshmem.h: aclshmem_team_split_strided / split_2d /
// translate_pe / my_pe / n_pes / get_config / destroy, aclshmem_barrier[_all], aclshmem_sync[_all].
// Ascend SHMEM's int team handles map to core teams through the per-instance table of acl_state.cpp;
// splits are the core's collective splits over the parent (Ascend SHMEM's split has no config, so
// none is passed).
#include <cstring>

#include "api/acl_shim.hpp"

namespace acl = shmem::acl;
namespace core = shmem::core;
using shmem::Team;

namespace {

// A new core team gets its handle. Should that fail (out of memory) the team is destroyed again
// (collective over its members) and the error reported.
int adopt(const char* f, Team* t, aclshmem_team_t* out) noexcept {
  *out = ACLSHMEM_TEAM_INVALID;
  if (t == nullptr) return ACLSHMEM_SUCCESS;  // not a member
  *out = acl::team_add(t);
  if (*out != ACLSHMEM_TEAM_INVALID) return ACLSHMEM_SUCCESS;
  core::team_destroy(t);
  return ACL_FAIL(ACLSHMEM_INNER_ERROR, f, "out of memory recording the new team's handle");
}

// quiet + team sync: Ascend SHMEM's host barrier and sync both complete earlier operations first.
void barrier(const char* f, aclshmem_team_t team) noexcept {
  Team* t = acl::team_arg(f, team);
  if (t == nullptr) return;
  core::quiet(core::hot::ctx(nullptr, f));
  core::team_sync(t);
}

}  // namespace

extern "C" {

int aclshmem_team_split_strided(aclshmem_team_t parent_team, int pe_start, int pe_stride, int pe_size,
                                aclshmem_team_t* new_team) noexcept {
  const char* f = __func__;
  if (new_team == nullptr) return ACL_FAIL(ACLSHMEM_INVALID_PARAM, f, "new_team is NULL");
  *new_team = ACLSHMEM_TEAM_INVALID;
  Team* parent = acl::team_arg(f, parent_team);
  if (parent == nullptr) return core::initialized() ? ACLSHMEM_INVALID_PARAM : ACLSHMEM_NOT_INITED;
  Team* out = nullptr;
  if (core::team_split_strided(parent, pe_start, pe_stride, pe_size, nullptr, 0, &out) != 0)
    return ACL_FAIL(ACLSHMEM_INVALID_PARAM, f,
                    "cannot split team %d with start=%d, stride=%d, size=%d (out of the team's range, or no free "
                    "team slot)",
                    parent_team, pe_start, pe_stride, pe_size);
  return adopt(f, out, new_team);
}

int aclshmem_team_split_2d(aclshmem_team_t parent_team, int x_range, aclshmem_team_t* x_team,
                           aclshmem_team_t* y_team) noexcept {
  const char* f = __func__;
  if (x_team == nullptr || y_team == nullptr) return ACL_FAIL(ACLSHMEM_INVALID_PARAM, f, "x_team or y_team is NULL");
  *x_team = *y_team = ACLSHMEM_TEAM_INVALID;
  Team* parent = acl::team_arg(f, parent_team);
  if (parent == nullptr) return core::initialized() ? ACLSHMEM_INVALID_PARAM : ACLSHMEM_NOT_INITED;
  Team* x = nullptr;
  Team* y = nullptr;
  if (core::team_split_2d(parent, x_range, nullptr, 0, &x, nullptr, 0, &y) != 0)
    return ACL_FAIL(ACLSHMEM_INVALID_PARAM, f,
                    "cannot split team %d with x_range=%d (out of range, or no free team slot)", parent_team, x_range);
  const int rc = adopt(f, x, x_team);
  const int rc_y = adopt(f, y, y_team);
  return rc != ACLSHMEM_SUCCESS ? rc : rc_y;
}

int aclshmem_team_translate_pe(aclshmem_team_t src_team, int src_pe, aclshmem_team_t dest_team) noexcept {
  return core::team_translate_pe(acl::team_of(src_team), src_pe, acl::team_of(dest_team));
}

int aclshmem_team_my_pe(aclshmem_team_t team) noexcept { return core::team_my_pe(acl::team_of(team)); }
int aclshmem_team_n_pes(aclshmem_team_t team) noexcept { return core::team_n_pes(acl::team_of(team)); }

int aclshmem_team_get_config(aclshmem_team_t team, aclshmem_team_config_t* config) noexcept {
  const char* f = __func__;
  if (config == nullptr) return ACL_FAIL(ACLSHMEM_INVALID_PARAM, f, "config is NULL");
  const Team* t = acl::team_arg(f, team);
  if (t == nullptr) return core::initialized() ? ACLSHMEM_INVALID_PARAM : ACLSHMEM_NOT_INITED;
  core::TeamConfig c;
  if (core::team_get_config(t, core::kTeamNumContexts, &c) != 0)
    return ACL_FAIL(ACLSHMEM_INNER_ERROR, f, "cannot read the configuration of team %d", team);
  std::memset(config, 0, sizeof *config);
  config->version = (1 << 16) + static_cast<int32_t>(sizeof(aclshmem_team_config_t));
  config->num_contexts = c.num_contexts;
  config->uniqueid = team;
  return ACLSHMEM_SUCCESS;
}

// ACLSHMEM_TEAM_INVALID (what non-members of a split get) is ignored, so every PE of the parent
// may run the same destroy code.
void aclshmem_team_destroy(aclshmem_team_t team) noexcept {
  const char* f = __func__;
  if (team == ACLSHMEM_TEAM_INVALID) return;
  if (team == ACLSHMEM_TEAM_WORLD) {
    ACL_FAIL(ACLSHMEM_INVALID_PARAM, f, "ACLSHMEM_TEAM_WORLD cannot be destroyed");
    return;
  }
  Team* t = acl::team_arg(f, team);
  if (t == nullptr) return;
  acl::team_remove(team);
  core::team_destroy(t);
}

void aclshmem_barrier(aclshmem_team_t team) noexcept { barrier(__func__, team); }
void aclshmem_barrier_all(void) noexcept { core::barrier_all(); }
void aclshmem_sync(aclshmem_team_t team) noexcept { barrier(__func__, team); }
void aclshmem_sync_all(void) noexcept { core::barrier_all(); }

}  // extern "C"
