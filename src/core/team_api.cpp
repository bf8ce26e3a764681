// Team queries, splits and destruction; contexts (core side of shmem_team_* / shmem_ctx_*).
#include <algorithm>
#include <cstdint>
#include <new>
#include <string>
#include <vector>

#include "core/access.hpp"
#include "core/coll_check.hpp"
#include "core/hot.hpp"
#include "base/log.hpp"
#include "core/team.hpp"

namespace shmem {
namespace {

// Public handle values for the predefined teams (include/shmem/ must agree: see the
// header comment there). SHMEM_TEAM_INVALID is NULL.
constexpr std::uintptr_t kWorldHandle = 1;
constexpr std::uintptr_t kSharedHandle = 2;

// Picks `count` slots free on every member of `parent` (a collective over the parent).
bool agree_slots(Team& parent, int count, int* out) {
  static_assert(3 * TeamSlots::kWords <= kScratchWords, "Team::and_words holds three copies in the scratch words");
  Runtime& r = parent.rt();
  std::uint64_t mine[TeamSlots::kWords];
  {
    std::lock_guard<std::mutex> g(r.teams_mutex());
    std::copy_n(r.team_slots().free_mask(), TeamSlots::kWords, mine);
  }
  std::uint64_t common[TeamSlots::kWords];
  parent.and_words(mine, TeamSlots::kWords, common);
  int found = 0;
  for (int s = 0; s < kMaxTeams && found < count; ++s)
    if (common[s / 64] & (1ull << (s % 64))) out[found++] = s;
  return found == count;
}

Team* make_team(Team& parent, int slot, const std::vector<int>& parent_pes, const core::TeamConfig* cfg, long mask,
                const char* routine) {
  Runtime& r = parent.rt();
  std::vector<int> world;
  world.reserve(parent_pes.size());
  for (int p : parent_pes) world.push_back(parent.world_pe(p));
  auto t = std::make_unique<Team>(r, slot, std::move(world), false, routine);
  if (t->my_pe() < 0) return nullptr;
  if (cfg && (mask & core::kTeamNumContexts)) t->config.num_contexts = cfg->num_contexts;
  t->config_mask = mask;
  {
    std::lock_guard<std::mutex> g(r.teams_mutex());
    r.team_slots().take(slot);
  }
  return r.add_team(std::move(t));
}

int split_failed(Team& parent, const char* why, Team** out) {
  if (parent.my_pe() == 0) SHMEM_ERROR("team", "shmem_team_split: %s", why);
  *out = nullptr;
  return 1;
}

// A split's arguments as words, and in words ("start=0, stride=1, size=4").
struct SplitArgs {
  std::uint64_t words[3] = {};
  int count = 0;
  const char* const* names = nullptr;
};

std::string describe(const std::uint64_t* words, const SplitArgs& a) {
  std::string s;
  for (int k = 0; k < a.count; ++k) {
    if (k) s += ", ";
    s += a.names[k];
    s += '=';
    s += std::to_string(static_cast<std::int64_t>(words[k]));
  }
  return s;
}

// Whether every member of `parent` passed the same split arguments (collective over the
// parent). The split itself needs no agreement on them beyond the slot, so members that differ
// would leave it with different teams and wait on them until SHMEM_WAIT_TIMEOUT (the check of
// core/coll_check.hpp sees only two PEs in the same routine on the same team). One
// Team::all_equal round over a fingerprint of the arguments; on a mismatch, an allgather of the arguments
// names the members: PE 0 of the parent and each member that differs from it log the pair.
bool same_split_args(Team& parent, const char* routine, const SplitArgs& a) {
  std::uint64_t h = 0x9e3779b97f4a7c15ull;
  for (int k = 0; k < a.count; ++k) {  // splitmix64 over the words
    std::uint64_t z = h + a.words[k] + 0x9e3779b97f4a7c15ull * static_cast<std::uint64_t>(k + 1);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    h = z ^ (z >> 31);
  }
  if (parent.all_equal(h)) return true;
  const int n = parent.size();
  std::vector<std::uint64_t> all(static_cast<std::size_t>(n) * static_cast<std::size_t>(a.count));
  parent.allgather_words(a.words, a.count, all.data());
  const std::uint64_t* first = all.data();
  const int me = parent.my_pe();
  for (int pe = 1; pe < n; ++pe) {
    const std::uint64_t* theirs = all.data() + static_cast<std::size_t>(pe) * static_cast<std::size_t>(a.count);
    if (std::equal(theirs, theirs + a.count, first)) continue;
    if (me == 0 || me == pe)
      SHMEM_ERROR("team",
                  "%s: the members of the parent team passed different arguments: parent PE 0 (world PE %d) "
                  "passed (%s), parent PE %d (world PE %d) passed (%s); every member must pass the same",
                  routine, parent.world_pe(0), describe(first, a).c_str(), pe, parent.world_pe(pe),
                  describe(theirs, a).c_str());
    if (me == 0) break;  // PE 0 names the first that differs
  }
  return false;
}

}  // namespace

namespace core {

Team* team_world() noexcept { return rt("shmem_team_world").world_team(); }
Team* team_shared() noexcept { return rt("shmem_team_shared").shared_team(); }

Team* team_in(Runtime& r, std::uintptr_t handle) noexcept {
  if (handle == kWorldHandle) return r.world_team();
  if (handle == kSharedHandle) return r.shared_team();
  return handle == 0 ? nullptr : r.team_by_handle(handle);
}

Team* team_from_handle(void* handle, const char* func) noexcept {
  const auto h = reinterpret_cast<std::uintptr_t>(handle);
  Team* t = team_in(rt(func), h);
  if (t == nullptr && h != 0)
    fatal(func,
          "team=%#lx is not a team of this PE: it was destroyed (shmem_team_destroy), or the value is not a team "
          "handle; pass a team from shmem_team_split_strided or shmem_team_split_2d, SHMEM_TEAM_WORLD or "
          "SHMEM_TEAM_SHARED",
          static_cast<unsigned long>(h));
  return t;
}

std::uintptr_t team_handle(const Runtime& r, const Team* t) noexcept {
  if (t == nullptr) return 0;
  if (t == r.world_team()) return kWorldHandle;
  if (t == r.shared_team()) return kSharedHandle;
  return t->handle();
}

int team_my_pe(const Team* t) noexcept { return t ? t->my_pe() : -1; }
int team_n_pes(const Team* t) noexcept { return t ? t->size() : -1; }

int team_translate_pe(const Team* src, int pe, const Team* dst) noexcept {
  if (!src || !dst || pe < 0 || pe >= src->size()) return -1;
  return dst->index_of(src->world_pe(pe));
}

int team_split_strided(Team* parent, int start, int stride, int size, const TeamConfig* config, long mask,
                       Team** out) noexcept {
  *out = nullptr;
  if (!parent) return 1;
  const coll_check::Scope call("shmem_team_split_strided", coll_check::Kind::kTeam, *parent);
  static const char* const kNames[] = {"start", "stride", "size"};
  SplitArgs args{
      {static_cast<std::uint64_t>(start), static_cast<std::uint64_t>(stride), static_cast<std::uint64_t>(size)},
      3,
      kNames};
  if (!same_split_args(*parent, "shmem_team_split_strided", args)) {
    *out = nullptr;
    return 1;
  }
  const int n = parent->size();
  // Every parent member evaluates the same triplet, so all agree on validity without talking.
  bool valid = size > 0 && start >= 0 && start < n && (stride != 0 || size == 1);
  std::vector<int> members;
  for (int i = 0; valid && i < size; ++i) {
    const long long p = start + static_cast<long long>(stride) * i;
    if (p < 0 || p >= n) valid = false;
    else members.push_back(static_cast<int>(p));
  }
  if (!valid) {
    parent->sync();
    return split_failed(*parent, "invalid (start, stride, size) triplet for the parent team", out);
  }
  int slot = -1;
  if (!agree_slots(*parent, 1, &slot))
    return split_failed(*parent, "no free team slot: destroy unused teams (the limit is 128 teams)", out);
  try {
    *out = make_team(*parent, slot, members, config, mask, "shmem_team_split_strided");
  } catch (const std::bad_alloc&) {
    core::fatal("shmem_team_split_strided", "out of memory");
  }
  parent->sync();
  return 0;
}

int team_split_2d(Team* parent, int xrange, const TeamConfig* xconfig, long xmask, Team** xteam,
                  const TeamConfig* yconfig, long ymask, Team** yteam) noexcept {
  *xteam = nullptr;
  *yteam = nullptr;
  if (!parent) return 1;
  const coll_check::Scope call("shmem_team_split_2d", coll_check::Kind::kTeam, *parent);
  static const char* const kNames[] = {"xrange"};
  if (!same_split_args(*parent, "shmem_team_split_2d", SplitArgs{{static_cast<std::uint64_t>(xrange)}, 1, kNames}))
    return 1;
  if (xrange <= 0) {
    parent->sync();
    Team* dummy;
    return split_failed(*parent, "xrange must be positive", &dummy);
  }
  const int n = parent->size();
  const int xr = std::min(xrange, n);
  const int me = parent->my_pe();
  int slots[2];
  if (!agree_slots(*parent, 2, slots)) {
    Team* dummy;
    return split_failed(*parent, "no free team slots: destroy unused teams (the limit is 128 teams)", &dummy);
  }
  std::vector<int> row, column;
  for (int p = (me / xr) * xr; p < std::min(n, (me / xr + 1) * xr); ++p) row.push_back(p);
  for (int p = me % xr; p < n; p += xr) column.push_back(p);
  try {
    *xteam = make_team(*parent, slots[0], row, xconfig, xmask, "shmem_team_split_2d");
    *yteam = make_team(*parent, slots[1], column, yconfig, ymask, "shmem_team_split_2d");
  } catch (const std::bad_alloc&) {
    core::fatal("shmem_team_split_2d", "out of memory");
  }
  parent->sync();
  return 0;
}

int team_get_config(const Team* t, long mask, TeamConfig* config) noexcept {
  if (!t || !config) return 1;
  if (mask & kTeamNumContexts) config->num_contexts = t->config.num_contexts;
  return 0;
}

void team_destroy(Team* t) noexcept {
  if (!t) return;
  if (t->predefined()) {
    SHMEM_ERROR("team", "shmem_team_destroy: the predefined teams cannot be destroyed; ignored");
    return;
  }
  {
    const coll_check::Scope call("shmem_team_destroy", coll_check::Kind::kTeam, *t);
    quiet(t->rt().default_ctx());
    t->sync();  // no member still uses the slot
  }
  t->clear_my_cell();
  // Its contexts go with it (shmem_team_destroy.tex): the shareable ones by the specification;
  // private ones the program should have destroyed first, and they would outlive their team.
  if (const int private_ones = t->rt().remove_team_ctxs(t); private_ones > 0)
    SHMEM_ERROR("team",
                "shmem_team_destroy: %d context(s) created from the team with SHMEM_CTX_PRIVATE were not destroyed "
                "first (the program must destroy them before the team); destroyed with it",
                private_ones);
  t->rt().remove_team(t);
}

void* team_ptr(const Team* t, const void* dest, int pe) noexcept {
  if (!t || pe < 0 || pe >= t->size()) return nullptr;
  return hot::ptr(dest, t->world_pe(pe));
}

int team_sync(Team* t) noexcept {
  if (!t) return 1;
  t->sync();
  return 0;
}

int ctx_create(Team* team, long options, Ctx** out) noexcept {
  if (!team || (options & ~(kCtxSerialized | kCtxPrivate | kCtxNostore)) != 0) return 1;
  std::unique_ptr<Ctx> c(new (std::nothrow) Ctx);
  if (!c) return 1;
  c->rt = &team->rt();
  c->team = team;
  c->options = options;
  if (team != team->rt().world_team()) {
    c->world = team->world_pes().data();
    c->team_size = team->size();
  }
  try {
    *out = team->rt().add_ctx(std::move(c));
  } catch (const std::bad_alloc&) {
    return 1;
  }
  return 0;
}

void ctx_destroy(Ctx* ctx) noexcept {
  if (!ctx) return;
  Runtime& r = rt("shmem_ctx_destroy");
  if (ctx == r.default_ctx()) {
    SHMEM_ERROR("ctx", "shmem_ctx_destroy: the default context cannot be destroyed; ignored");
    return;
  }
  // Only a live context is read: a destroyed one's memory is gone.
  if (!r.remove_ctx(ctx))
    fatal("shmem_ctx_destroy",
          "ctx=%p is not a live context of this PE: it was destroyed already (by shmem_ctx_destroy, or by "
          "shmem_team_destroy of its team), or the value is not a context from shmem_ctx_create or "
          "shmem_team_create_ctx",
          static_cast<void*>(ctx));
}

Team* ctx_get_team(const Ctx* ctx) noexcept { return ctx ? ctx->team : nullptr; }

}  // namespace core

namespace detail {
void bad_team_pe(const Ctx& ctx, int pe, const char* func) noexcept {
  core::fatal(func, "PE %d is out of range for the context's team: it has PEs 0..%d", pe, ctx.team_size - 1);
}
}  // namespace detail

}  // namespace shmem
