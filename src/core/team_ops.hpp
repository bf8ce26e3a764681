#pragma once
// Internal operations for teams and contexts (OpenSHMEM 1.6 sections 9.4-9.5; the collectives
// are in coll/ops.hpp).
// Like ops.hpp, this is the one interface behind every public surface; the C shims in
// src/api/ stay thin. Team and context handles are opaque pointers to shmem::Team / Ctx.
// Every PE number passed here is relative to the team it comes with.
#include <cstddef>
#include <cstdint>

#include "core/ops.hpp"

namespace shmem {

class Team;
class Runtime;

namespace core {

// ---- teams ----------------------------------------------------------------------------------
// The predefined teams always exist after init; their handles are stable for the job.
Team* team_world() noexcept;
Team* team_shared() noexcept;   // PEs whose memory this PE maps directly (this host)
// Maps a public handle to a team. nullptr (SHMEM_TEAM_INVALID) stays nullptr; callers decide.
// Ends the job if the library is not initialised.
Team* team_from_handle(void* handle, const char* func) noexcept;
// The same without the error: nullptr for SHMEM_TEAM_INVALID and for a value that is no live
// team of r (a destroyed team's handle).
Team* team_in(Runtime& r, std::uintptr_t handle) noexcept;
// The inverse: the public handle of a team of r (the predefined teams' distinguished values,
// else the Team* itself; 0 for nullptr).
std::uintptr_t team_handle(const Runtime& r, const Team* t) noexcept;

struct TeamConfig {
  int num_contexts = 0;
};
constexpr long kTeamNumContexts = 1L << 0;  // SHMEM_TEAM_NUM_CONTEXTS

int team_my_pe(const Team* team) noexcept;      // -1 for nullptr
int team_n_pes(const Team* team) noexcept;      // -1 for nullptr
// PE `pe` of `src` as numbered in `dst`; -1 if not a member or any argument invalid.
int team_translate_pe(const Team* src, int pe, const Team* dst) noexcept;
// Collective over `parent`. Returns 0 on success (non-members get *out = nullptr and 0),
// nonzero on error (invalid arguments or no free team slot), with *out = nullptr.
int team_split_strided(Team* parent, int start, int stride, int size, const TeamConfig* config, long config_mask,
                       Team** out) noexcept;
int team_split_2d(Team* parent, int xrange, const TeamConfig* xconfig, long xmask, Team** xteam,
                  const TeamConfig* yconfig, long ymask, Team** yteam) noexcept;
int team_get_config(const Team* team, long config_mask, TeamConfig* config) noexcept;  // 0 or nonzero
void team_destroy(Team* team) noexcept;  // collective over the team; predefined teams refused
void* team_ptr(const Team* team, const void* dest, int pe) noexcept;
int team_sync(Team* team) noexcept;      // 0, or nonzero for an invalid team

// ---- contexts (SHMEM_CTX_SERIALIZED=1, PRIVATE=2, NOSTORE=4 as options) ---------------------
constexpr long kCtxSerialized = 1L << 0;
constexpr long kCtxPrivate = 1L << 1;
constexpr long kCtxNostore = 1L << 2;
// Returns 0 and *ctx on success; nonzero (and *ctx untouched) when options are invalid or the
// team is invalid. The default context is not created here (hot::ctx(nullptr)).
int ctx_create(Team* team, long options, Ctx** ctx) noexcept;
void ctx_destroy(Ctx* ctx) noexcept;  // quiets first; destroying the default context is refused
Team* ctx_get_team(const Ctx* ctx) noexcept;

}  // namespace core
}  // namespace shmem
