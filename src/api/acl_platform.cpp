// Logging and the Ascend-only platform calls of aclshmem.h:
//   aclshmemx_set_log_level, aclshmemx_set_extern_logger;
//   aclshmemx_set_{mte,sdma,rdma,udma}_config, aclshmemx_get_prof, aclshmemx_show_prof: they
//   configure hardware this platform does not have, so they return ACLSHMEM_NOT_SUPPORTED with a
//   warning instead of pretending to succeed. (aclshmemx_handle_wait is real: acl_stream.cpp.)
#include <cstring>
#include <string>

#include "api/acl_shim.hpp"
#include "base/config.hpp"

namespace acl = shmem::acl;
namespace slog = shmem::log;

namespace {

// Ascend SHMEM's levels: 0 debug, 1 info, 2 warn, 3 error, 4 fatal.
const char* level_name(int level) noexcept {
  static constexpr const char* kNames[] = {"DEBUG", "INFO", "WARN", "ERROR", "FATAL"};
  return level >= 0 && level <= 4 ? kNames[level] : nullptr;
}

// SHMEM_LOG_LEVEL, when the environment sets it, wins over the API (as in Ascend SHMEM).
// config_raw returns the table default when the variable is unset or empty.
bool level_set_by_environment() {
  for (const shmem::ConfigVarInfo& v : shmem::config_vars())
    if (std::strcmp(v.name, "SHMEM_LOG_LEVEL") == 0) return shmem::config_raw(v.name) != v.default_value;
  return false;
}

}  // namespace

extern "C" {

int32_t aclshmemx_set_log_level(int level) noexcept {
  const char* name = level_name(level);
  if (name == nullptr)
    return ACL_FAIL(ACLSHMEM_INVALID_PARAM, __func__,
                    "level=%d is not 0 (debug), 1 (info), 2 (warn), 3 (error) or 4 (fatal)", level);
  try {
    if (level_set_by_environment()) {
      SHMEM_DEBUG_LOG("api", "%s(%s): SHMEM_LOG_LEVEL is set in the environment and takes precedence", __func__, name);
      return ACLSHMEM_SUCCESS;
    }
  } catch (...) {
    return ACL_FAIL(ACLSHMEM_INNER_ERROR, __func__, "cannot read SHMEM_LOG_LEVEL");
  }
  slog::configure(name, nullptr);
  acl::remember_log_level(name);
  return ACLSHMEM_SUCCESS;
}

// Needs a hook in the core's log sink (not there yet): refused with a clear code until then.
int32_t aclshmemx_set_extern_logger(aclshmem_extern_logger_t func) noexcept {
  (void)func;
  return acl::not_supported(__func__, "external log sinks are not available yet; use SHMEM_LOG_FILE");
}

int32_t aclshmemx_set_mte_config(uint64_t ub_offset, uint32_t ub_size, uint32_t sync_id) noexcept {
  (void)ub_offset, (void)ub_size, (void)sync_id;
  return acl::not_supported(__func__, "there is no MTE unified-buffer window to configure on CPU");
}
int32_t aclshmemx_set_sdma_config(uint64_t ub_offset, uint32_t ub_size, uint32_t sync_id) noexcept {
  (void)ub_offset, (void)ub_size, (void)sync_id;
  return acl::not_supported(__func__, "there is no SDMA engine");
}
int32_t aclshmemx_set_rdma_config(uint64_t ub_offset, uint32_t ub_size, uint32_t sync_id) noexcept {
  (void)ub_offset, (void)ub_size, (void)sync_id;
  return acl::not_supported(__func__, "there is no in-kernel RDMA (RoCE) engine");
}
int32_t aclshmemx_set_udma_config(uint64_t ub_offset, uint32_t ub_size, uint32_t sync_id) noexcept {
  (void)ub_offset, (void)ub_size, (void)sync_id;
  return acl::not_supported(__func__, "there is no UDMA engine");
}
int32_t aclshmemx_get_prof(aclshmem_prof_pe_t** out, bool verbose) noexcept {
  (void)verbose;
  if (out != nullptr) *out = nullptr;
  return acl::not_supported(__func__, "in-kernel cycle profiling is not collected");
}
void aclshmemx_show_prof(void) noexcept {
  acl::not_supported(__func__, "in-kernel cycle profiling is not collected");
}

}  // extern "C"
