#pragma once
// Private helpers of the aclshmem.h shims (src/api/acl_*.cpp): Ascend SHMEM's error codes, set-up
// steps that may throw, the int team handles, signal operations and the wait kinds of
// Ascend SHMEM's types. Same rules as shim.hpp: every public routine is a thin call into shmem::core,
// data-path helpers are noexcept and allocation-free, checked-mode argument checks go through
// the shmem::api helpers so they read the same as for shmem.h.
#include <aclshmem.h>

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <type_traits>

#include "api/shim.hpp"
#include "base/error.hpp"
#include "core/init_ops.hpp"
#include "base/log.hpp"
#include "core/team_ops.hpp"

namespace shmem::acl {

// Ascend SHMEM's comparison and signal constants are the core's numbering.
static_assert(ACLSHMEM_CMP_EQ == SHMEM_CMP_EQ && ACLSHMEM_CMP_NE == SHMEM_CMP_NE && ACLSHMEM_CMP_GT == SHMEM_CMP_GT &&
              ACLSHMEM_CMP_GE == SHMEM_CMP_GE && ACLSHMEM_CMP_LT == SHMEM_CMP_LT && ACLSHMEM_CMP_LE == SHMEM_CMP_LE);
static_assert(sizeof(aclshmemx_uniqueid_t::internal) == core::kUniqueIdBytes);
static_assert(sizeof(aclshmem_team_config_t) == 64);

// ---- error codes --------------------------------------------------------------------------------
// The core's codes share Ascend SHMEM's numbering where Ascend SHMEM has the code; the others are the
// closest Ascend SHMEM code.
constexpr int to_code(Errc c) noexcept {
  switch (c) {
    case Errc::kOk: return ACLSHMEM_SUCCESS;
    case Errc::kInvalidArgument: return ACLSHMEM_INVALID_PARAM;
    case Errc::kInvalidValue: return ACLSHMEM_INVALID_VALUE;
    case Errc::kStore: return ACLSHMEM_SMEM_ERROR;
    case Errc::kInternal: return ACLSHMEM_INNER_ERROR;
    case Errc::kNotInitialized: return ACLSHMEM_NOT_INITED;
    case Errc::kBootstrap: return ACLSHMEM_BOOTSTRAP_ERROR;
    case Errc::kTimeout: return ACLSHMEM_TIMEOUT_ERROR;
    case Errc::kOutOfMemory: return ACLSHMEM_MALLOC_FAILED;
    case Errc::kPeerLost: return ACLSHMEM_BOOTSTRAP_ERROR;
    case Errc::kAuth: return ACLSHMEM_BOOTSTRAP_ERROR;
    case Errc::kNotSupported: return ACLSHMEM_NOT_SUPPORTED;
  }
  return ACLSHMEM_INNER_ERROR;
}

// Logs "func: message" at `lvl` and returns `code` (Ascend SHMEM's int routines log and return).
inline int report(log::Level lvl, int code, const char* func, const char* fmt, ...) noexcept
    __attribute__((format(printf, 4, 5)));
inline int report(log::Level lvl, int code, const char* func, const char* fmt, ...) noexcept {
  if (log::enabled(lvl)) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    log::write(lvl, "api", "%s: %s", func, msg);
  }
  return code;
}
#define ACL_FAIL(code, func, ...) ::shmem::acl::report(::shmem::log::Level::kError, code, func, __VA_ARGS__)

// Runs a set-up step that may throw; ACLSHMEM_SUCCESS, or the error's code after logging it.
template <class Fn>
int guarded(const char* func, Fn&& fn) noexcept {
  try {
    fn();
    return ACLSHMEM_SUCCESS;
  } catch (const Error& e) {
    return ACL_FAIL(to_code(e.code()), func, "%s (%s)", e.what(), errc_name(e.code()));
  } catch (const std::exception& e) {
    return ACL_FAIL(ACLSHMEM_INNER_ERROR, func, "%s", e.what());
  } catch (...) {
    return ACL_FAIL(ACLSHMEM_INNER_ERROR, func, "unknown error");
  }
}

// An Ascend-only feature: warn (naming the routine and why) and return ACLSHMEM_NOT_SUPPORTED.
inline int not_supported(const char* func, const char* why) noexcept {
  return report(log::Level::kWarn, ACLSHMEM_NOT_SUPPORTED, func,
                "not supported on this platform (%s); nothing was done", why);
}

// ---- instances and teams (acl_state.cpp) ---------------------------------------------------------
// Team handles are ints per instance: WORLD (0) is the core's world team; another team's handle
// is its core slot, which all its members share. The table is reset when the instance is
// initialised or finalised through this API.
Team* team_of(aclshmem_team_t handle) noexcept;  // nullptr: invalid, unknown, or not initialised
aclshmem_team_t team_add(Team* team) noexcept;   // ACLSHMEM_TEAM_INVALID for nullptr (or out of memory)
void team_remove(aclshmem_team_t handle) noexcept;
void instance_reset(std::uint64_t instance_id) noexcept;
aclshmem_instance_ctx* instance_ctx(std::uint64_t instance_id) noexcept;  // stable for the process
// The level chosen by aclshmemx_set_log_level (nullptr: none), re-applied after each
// initialisation, which otherwise resets the log level from the environment's default.
void remember_log_level(const char* level) noexcept;
const char* remembered_log_level() noexcept;

// A team argument of a routine: the team, or nullptr after logging why (invalid handle, or the
// library is not initialised).
inline Team* team_arg(const char* func, aclshmem_team_t handle) noexcept {
  if (!core::initialized()) {
    ACL_FAIL(ACLSHMEM_NOT_INITED, func, "called before aclshmemx_init_attr (or after finalize)");
    return nullptr;
  }
  Team* t = team_of(handle);
  if (t == nullptr) ACL_FAIL(ACLSHMEM_INVALID_PARAM, func, "team %d is not a valid team of this PE", handle);
  return t;
}

// ---- signals -------------------------------------------------------------------------------------
// Ascend SHMEM's signals are int32 words; SET and ADD are 32-bit atomics. Always validated: a wrong
// op or a misaligned word would silently corrupt the peer's memory.
inline core::AmoOp sig_amo_op(const char* func, int sig_op) noexcept {
  switch (sig_op) {
    case ACLSHMEM_SIGNAL_SET: return core::AmoOp::kSet;
    case ACLSHMEM_SIGNAL_ADD: return core::AmoOp::kAdd;
    default:
      core::fatal(func, "sig_op=%d is neither ACLSHMEM_SIGNAL_SET (%d) nor ACLSHMEM_SIGNAL_ADD (%d)", sig_op,
                  ACLSHMEM_SIGNAL_SET, ACLSHMEM_SIGNAL_ADD);
  }
}
inline void check_sig_word(const char* func, const void* sig_addr) noexcept {
  if (reinterpret_cast<std::uintptr_t>(sig_addr) % alignof(std::int32_t) != 0)
    core::fatal(func, "sig_addr=%p is not aligned to 4 bytes: Ascend SHMEM's signals are int32_t words", sig_addr);
}

// ---- point-to-point waits -------------------------------------------------------------------------
// Always checked (one compare), so that the message names Ascend SHMEM's constants.
inline void check_cmp(const char* func, int cmp) noexcept {
  if (cmp < ACLSHMEM_CMP_EQ || cmp > ACLSHMEM_CMP_LE)
    core::fatal(func, "cmp=%d is not one of ACLSHMEM_CMP_EQ..ACLSHMEM_CMP_LE (%d..%d)", cmp, ACLSHMEM_CMP_EQ,
                ACLSHMEM_CMP_LE);
}

// ---- point-to-point wait kinds -------------------------------------------------------------------
// Ascend SHMEM's 16-, 32- and 64-bit integer types map to the core's wait kinds. 8-bit integers,
// char and float have no core kind yet (see acl_wait.cpp).
template <class T>
inline constexpr bool kCoreWaitType = std::is_integral_v<T> && (sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8);

}  // namespace shmem::acl
