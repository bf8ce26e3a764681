/*
 * shmem/shmem_team.h - OpenSHMEM 1.6 teams (team management and team-based contexts) and
 * communication context management. Part of <shmem.h>; include that.
 *
 * Team handles (library_handles.tex, library_constants.tex): shmem_team_t is an opaque pointer.
 * The spec allows predefined handles to be link-time constants; here they are compile-time
 * constants, distinguished pointer values that no team object can have:
 *   SHMEM_TEAM_INVALID  NULL, so a zero-initialised handle is invalid (and compares equal to it)
 *   SHMEM_TEAM_WORLD    (shmem_team_t)1
 *   SHMEM_TEAM_SHARED   (shmem_team_t)2
 * Every other valid handle is the address of the library's team object. The library maps the
 * two distinguished values to its predefined teams (core::team_from_handle), and returns them
 * (never the underlying object's address) wherever it hands out a predefined team, e.g. from
 * shmem_ctx_get_team, so `team == SHMEM_TEAM_WORLD` comparisons work.
 *
 * Contexts: shmem_ctx_create, shmem_team_create_ctx, shmem_ctx_destroy, shmem_ctx_get_team.
 * The option constants SHMEM_CTX_SERIALIZED/PRIVATE/NOSTORE and SHMEM_CTX_DEFAULT/INVALID are
 * defined in <shmem.h>.
 */
#ifndef SHMEM_SHMEM_TEAM_H
#define SHMEM_SHMEM_TEAM_H

#ifndef SHMEM_H
#error "include <shmem.h> instead of <shmem/shmem_team.h>"
#endif

typedef struct shmem_team_opaque* shmem_team_t;
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)
#define SHMEM_TEAM_WORLD ((shmem_team_t)(intptr_t)1)
#define SHMEM_TEAM_SHARED ((shmem_team_t)(intptr_t)2)

/* shmem_team_config_t.tex: configuration of a new team; a mask selects the fields to use. */
typedef struct {
  int num_contexts;
} shmem_team_config_t;
#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)

#ifdef __cplusplus
extern "C" {
#endif

/* ---- team management ----------------------------------------------------------------------- */
/* -1 for SHMEM_TEAM_INVALID. */
SHMEM_API int shmem_team_my_pe(shmem_team_t team) SHMEM_NOEXCEPT;
SHMEM_API int shmem_team_n_pes(shmem_team_t team) SHMEM_NOEXCEPT;
/* 0 on success; nonzero for SHMEM_TEAM_INVALID or a null config with a nonzero config_mask. */
SHMEM_API int shmem_team_get_config(shmem_team_t team, long config_mask,
                                    shmem_team_config_t* config) SHMEM_NOEXCEPT;
/* src_pe's number in dest_team, or -1 if it is not a member of both (or a team is invalid). */
SHMEM_API int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team) SHMEM_NOEXCEPT;
/* Collective over parent_team. 0 on success (non-members get SHMEM_TEAM_INVALID); nonzero, with
 * SHMEM_TEAM_INVALID in the output handles, on failure or for an invalid parent. */
SHMEM_API int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                                       const shmem_team_config_t* config, long config_mask,
                                       shmem_team_t* new_team) SHMEM_NOEXCEPT;
SHMEM_API int shmem_team_split_2d(shmem_team_t parent_team, int xrange, const shmem_team_config_t* xaxis_config,
                                  long xaxis_mask, shmem_team_t* xaxis_team,
                                  const shmem_team_config_t* yaxis_config, long yaxis_mask,
                                  shmem_team_t* yaxis_team) SHMEM_NOEXCEPT;
/* Collective over the team. SHMEM_TEAM_INVALID is a no-op; the predefined teams are refused. */
SHMEM_API void shmem_team_destroy(shmem_team_t team) SHMEM_NOEXCEPT;
/* 1.6: local address of dest on team PE pe, or NULL when not load/store accessible. */
SHMEM_API void* shmem_team_ptr(shmem_team_t team, const void* dest, int pe) SHMEM_NOEXCEPT;
/* Team-based sync (C11 generic form: shmem_sync(team)). 0 on success, nonzero otherwise. */
SHMEM_API int shmem_team_sync(shmem_team_t team) SHMEM_NOEXCEPT;

/* ---- communication contexts ---------------------------------------------------------------- */
/* 0 and a valid *ctx on success; nonzero (and *ctx unchanged) otherwise. */
SHMEM_API int shmem_ctx_create(long options, shmem_ctx_t* ctx) SHMEM_NOEXCEPT;
/* Collective over the team. For SHMEM_TEAM_INVALID: *ctx = SHMEM_CTX_INVALID, nonzero. */
SHMEM_API int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t* ctx) SHMEM_NOEXCEPT;
/* Quiets the context, then frees it. SHMEM_CTX_INVALID is a no-op; the default context is refused. */
SHMEM_API void shmem_ctx_destroy(shmem_ctx_t ctx) SHMEM_NOEXCEPT;
/* SHMEM_TEAM_WORLD for the default context and shmem_ctx_create contexts. For SHMEM_CTX_INVALID:
 * *team = SHMEM_TEAM_INVALID, nonzero. */
SHMEM_API int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t* team) SHMEM_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* SHMEM_SHMEM_TEAM_H */
