/*
 * coll_team.c - bench/coll.c measuring the OpenSHMEM 1.5+ team-based collectives
 * (shmem_team_sync, shmem_broadcastmem, shmem_fcollectmem, shmem_alltoallmem,
 * shmem_double_sum_reduce on SHMEM_TEAM_WORLD) instead of the active-set forms. Same sizes,
 * method, checks and CSV. Built only against this project's library (bench/coll_compare.sh
 * reports it as extra "ours (team)" figures): Open MPI 4.1's OSHMEM has no working team
 * collectives.
 */
#define COLL_TEAM_FORMS 1
#include "coll.c"
