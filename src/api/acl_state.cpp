// Per-instance state of the aclshmem.h shims: the int team handles of each runtime instance and
// the instance context that aclshmemx_instance_ctx_get hands out. This is shim bookkeeping that
// only exists because Ascend SHMEM's handles are plain ints; the teams themselves live in the core.
//
// A team's handle is its core slot: the index every member of the team agrees on (chosen by a
// collective over the parent), so a handle means the same team on every member PE, as Ascend SHMEM's
// device-visible team table requires. WORLD is slot 0, matching ACLSHMEM_TEAM_WORLD; slot 1
// (the core's SHARED team) is never handed out.
#include <map>
#include <mutex>
#include <vector>

#include "api/acl_shim.hpp"
#include "core/team.hpp"

namespace shmem::acl {
namespace {

struct InstanceState {
  std::vector<Team*> teams;  // index = handle; [0] unused (WORLD is the core's world team)
  aclshmem_instance_ctx ctx{};
};

struct States {
  std::mutex mu;
  std::map<std::uint64_t, InstanceState> by_id;  // map nodes are stable: ctx pointers stay valid
  const char* log_level = nullptr;               // set by aclshmemx_set_log_level (a static string)
};

States& states() {
  static States s;
  return s;
}

InstanceState& state_locked(States& s, std::uint64_t id) {
  InstanceState& st = s.by_id[id];
  st.ctx.id = id;
  return st;
}

}  // namespace

Team* team_of(aclshmem_team_t handle) noexcept {
  if (!core::initialized() || handle < 0) return nullptr;
  if (handle == ACLSHMEM_TEAM_WORLD) return core::team_world();
  const std::uint64_t id = core::instance_current();  // the core's lock is never taken under ours
  States& s = states();
  std::lock_guard<std::mutex> g(s.mu);
  const auto it = s.by_id.find(id);
  if (it == s.by_id.end()) return nullptr;
  const auto i = static_cast<std::size_t>(handle);
  return i < it->second.teams.size() ? it->second.teams[i] : nullptr;
}

aclshmem_team_t team_add(Team* team) noexcept {
  if (team == nullptr || team->slot() <= ACLSHMEM_TEAM_WORLD) return ACLSHMEM_TEAM_INVALID;
  const auto slot = static_cast<std::size_t>(team->slot());
  const std::uint64_t id = core::instance_current();
  States& s = states();
  std::lock_guard<std::mutex> g(s.mu);
  try {
    InstanceState& st = state_locked(s, id);
    if (st.teams.size() <= slot) st.teams.resize(slot + 1, nullptr);
    st.teams[slot] = team;
    return static_cast<aclshmem_team_t>(slot);
  } catch (...) {  // bad_alloc
    return ACLSHMEM_TEAM_INVALID;
  }
}

void team_remove(aclshmem_team_t handle) noexcept {
  if (handle <= ACLSHMEM_TEAM_WORLD) return;
  const std::uint64_t id = core::instance_current();  // the core's lock is never taken under ours
  States& s = states();
  std::lock_guard<std::mutex> g(s.mu);
  const auto it = s.by_id.find(id);
  if (it == s.by_id.end()) return;
  InstanceState& st = it->second;
  const auto i = static_cast<std::size_t>(handle);
  if (i < st.teams.size()) st.teams[i] = nullptr;
  while (st.teams.size() > 1 && st.teams.back() == nullptr) st.teams.pop_back();
}

void instance_reset(std::uint64_t instance_id) noexcept {
  States& s = states();
  std::lock_guard<std::mutex> g(s.mu);
  const auto it = s.by_id.find(instance_id);
  if (it != s.by_id.end()) it->second.teams.clear();
}

aclshmem_instance_ctx* instance_ctx(std::uint64_t instance_id) noexcept {
  States& s = states();
  std::lock_guard<std::mutex> g(s.mu);
  try {
    return &state_locked(s, instance_id).ctx;
  } catch (...) {
    return nullptr;
  }
}

void remember_log_level(const char* level) noexcept {
  States& s = states();
  std::lock_guard<std::mutex> g(s.mu);
  s.log_level = level;
}

const char* remembered_log_level() noexcept {
  States& s = states();
  std::lock_guard<std::mutex> g(s.mu);
  return s.log_level;
}

}  // namespace shmem::acl
