#pragma once
// The on-stream RMA, signal, ordering and barrier operations behind both public surfaces:
// shmemx.h's shmemx_*_on_stream and aclshmem.h's aclshmemx_*_on_stream. `f` is the public
// routine's name (a static string), which error messages name. Each call enqueues and returns
// at once; the work checks its arguments when it runs (checks.hpp) and calls the same core
// operations as the host routines.
#include <shmemx.h>

#include <cstddef>
#include <cstdint>

namespace shmem::stream {

void putmem(const char* f, void* dest, const void* source, std::size_t bytes, int pe, shmemx_stream_t s) noexcept;
void getmem(const char* f, void* dest, const void* source, std::size_t bytes, int pe, shmemx_stream_t s) noexcept;

// Signal words: OpenSHMEM's uint64_t, or Ascend SHMEM's int32_t (4-byte aligned, updated with 32-bit
// atomics). sig_op and cmp use the numbering both APIs share (SET 0, ADD 1; CMP_EQ 0 .. CMP_LE 5).
void signal_op(const char* f, std::uint64_t* sig_addr, std::uint64_t signal, int sig_op, int pe,
               shmemx_stream_t s) noexcept;
void signal_op(const char* f, std::int32_t* sig_addr, std::int32_t signal, int sig_op, int pe,
               shmemx_stream_t s) noexcept;
void signal_wait_until(const char* f, std::uint64_t* sig_addr, int cmp, std::uint64_t cmp_value,
                       shmemx_stream_t s) noexcept;
void signal_wait_until(const char* f, std::int32_t* sig_addr, int cmp, std::int32_t cmp_value,
                       shmemx_stream_t s) noexcept;

void quiet(const char* f, shmemx_stream_t s) noexcept;
// quiet, then the team's sync: the barrier of shmemx.h and of Ascend SHMEM. `team` is a shmem.h
// handle (SHMEM_TEAM_WORLD, SHMEM_TEAM_SHARED or a Team*), resolved when the work runs.
void barrier(const char* f, shmem_team_t team, shmemx_stream_t s) noexcept;

}  // namespace shmem::stream
