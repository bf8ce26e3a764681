// Initialisation, bootstrap, finalisation, instances, bootstrap-store TLS and library queries of
// aclshmem.h: aclshmemx_init_attr (default tcp://host:port, unique ID, MPI), aclshmemx_get_uniqueid,
// aclshmemx_set_attr_uniqueid_args, aclshmemx_init_status, aclshmem[x]_finalize,
// aclshmemx_instance_ctx_get/set, aclshmemx_set_conf_store_tls, aclshmemx_set_config_store_tls_key,
// aclshmem_global_exit, aclshmem_info_get_*, aclshmem_my_pe / n_pes.
// Ascend SHMEM's attributes become one core::InitSpec; everything else is core::init_with's job.
#include <cstdlib>
#include <cstring>
#include <string>

#include "stream/stream.hpp"
#include "api/acl_shim.hpp"

namespace acl = shmem::acl;
namespace core = shmem::core;

namespace {

constexpr std::int32_t kUidVersion = (1 << 16) + static_cast<std::int32_t>(sizeof(aclshmemx_uniqueid_t));
constexpr std::uint32_t kKnownEngines =
    ACLSHMEM_DATA_OP_MTE | ACLSHMEM_DATA_OP_SDMA | ACLSHMEM_DATA_OP_ROCE | ACLSHMEM_DATA_OP_UDMA;

// A string given as (pointer, length): a NUL before `len` ends it; NULL is the empty string.
std::string bounded(const char* p, std::uint32_t len) {
  return p == nullptr ? std::string() : std::string(p, ::strnlen(p, len));
}

bool is_tcp_url(const char* ip_port) noexcept {
  return std::strncmp(ip_port, "tcp://", 6) == 0 || std::strncmp(ip_port, "tcp6://", 7) == 0;
}

// "tcp://host:0": Ascend SHMEM's template port for instances (SHMEM_INSTANCE_PORT_RANGE).
bool has_port_zero(const char* ip_port) noexcept {
  const char* colon = std::strrchr(ip_port, ':');
  return colon != nullptr && std::strcmp(colon + 1, "0") == 0;
}

// Checks Ascend SHMEM's attributes and turns them into a core::InitSpec. Returns ACLSHMEM_SUCCESS or
// an error code after logging which field is wrong.
int to_spec(const char* f, aclshmemx_bootstrap_t flags, const aclshmemx_init_attr_t& a, core::InitSpec& spec) {
  if (a.n_pes <= 0 || a.n_pes > ACLSHMEM_MAX_PES)
    return ACL_FAIL(ACLSHMEM_INVALID_VALUE, f, "attr->n_pes=%d must be between 1 and %d", a.n_pes, ACLSHMEM_MAX_PES);
  if (a.my_pe < 0 || a.my_pe >= a.n_pes)
    return ACL_FAIL(ACLSHMEM_INVALID_VALUE, f, "attr->my_pe=%d must be between 0 and n_pes-1 (%d)", a.my_pe,
                    a.n_pes - 1);
  if (a.local_mem_size > ACLSHMEM_MAX_LOCAL_SIZE)
    return ACL_FAIL(ACLSHMEM_INVALID_VALUE, f, "attr->local_mem_size=%llu exceeds ACLSHMEM_MAX_LOCAL_SIZE (40 GiB)",
                    static_cast<unsigned long long>(a.local_mem_size));
  const aclshmem_init_optional_attr_t& o = a.option_attr;
  if (o.shm_init_timeout == 0)
    return ACL_FAIL(ACLSHMEM_INVALID_VALUE, f, "attr->option_attr.shm_init_timeout must be nonzero (seconds)");
  if (o.control_operation_timeout == 0)
    return ACL_FAIL(ACLSHMEM_INVALID_VALUE, f, "attr->option_attr.control_operation_timeout must be nonzero (seconds)");
  const auto engines = static_cast<std::uint32_t>(o.data_op_engine_type);
  if (engines == 0 || (engines & ~kKnownEngines) != 0)
    return ACL_FAIL(ACLSHMEM_INVALID_VALUE, f,
                    "attr->option_attr.data_op_engine_type=0x%x must be a nonzero mask of ACLSHMEM_DATA_OP_* (<= 0xf)",
                    engines);
  if ((engines & ~static_cast<std::uint32_t>(ACLSHMEM_DATA_OP_MTE)) != 0)
    SHMEM_WARN("api", "%s: data_op_engine_type=0x%x: SDMA, RoCE and UDMA engines do not exist on this platform; every "
               "transfer uses the shared-memory path (the MTE equivalent)", f, engines);
  if (o.sockFd > 0)
    SHMEM_WARN("api", "%s: option_attr.sockFd=%d (a pre-bound listening socket) is not supported and is ignored; "
               "PE 0 binds the store address itself", f, static_cast<int>(o.sockFd));
  if (std::memchr(a.ip_port, '\0', sizeof a.ip_port) == nullptr)
    return ACL_FAIL(ACLSHMEM_INVALID_PARAM, f, "attr->ip_port is not NUL-terminated within %d characters",
                    ACLSHMEM_MAX_IP_PORT_LEN);

  spec.pe = a.my_pe;
  spec.npes = a.n_pes;
  spec.heap_size = a.local_mem_size;
  // SHMEM_BOOTSTRAP_TIMEOUT, when set, wins over both attributes (0 = the variable's value): the
  // attributes always hold a value (120 by default), so the variable is how a run changes it.
  const char* env_timeout = std::getenv("SHMEM_BOOTSTRAP_TIMEOUT");
  const bool env_wins = env_timeout != nullptr && *env_timeout != '\0';
  spec.connect_timeout_s = env_wins ? 0 : o.shm_init_timeout;
  spec.control_timeout_s = env_wins ? 0 : o.control_operation_timeout;
  spec.instance_id = a.instance_id;
  spec.thread_level = SHMEM_THREAD_MULTIPLE;  // Ascend SHMEM has no thread levels and no restrictions

  switch (flags) {
    case ACLSHMEMX_INIT_WITH_DEFAULT:
      if (is_tcp_url(a.ip_port)) {
        if (has_port_zero(a.ip_port) && a.n_pes > 1)
          return ACL_FAIL(ACLSHMEM_NOT_SUPPORTED, f,
                          "ip_port \"%s\" has port 0: choosing ports from SHMEM_INSTANCE_PORT_RANGE is not supported; "
                          "give every instance its own port in ip_port",
                          a.ip_port);
        spec.mode = core::BootstrapMode::kTcp;
        spec.store_url = a.ip_port;
        return ACLSHMEM_SUCCESS;
      }
      if (a.comm_args == nullptr)  // Ascend SHMEM falls back to a unique ID in comm_args, if any
        return ACL_FAIL(ACLSHMEM_INVALID_PARAM, f,
                        "ACLSHMEMX_INIT_WITH_DEFAULT needs attr->ip_port = \"tcp://host:port\" or "
                        "\"tcp6://[host]:port\" (got \"%s\") or a unique ID in attr->comm_args",
                        a.ip_port);
      [[fallthrough]];
    case ACLSHMEMX_INIT_WITH_UNIQUEID: {
      const auto* uid = static_cast<const aclshmemx_uniqueid_t*>(a.comm_args);
      if (uid == nullptr)
        return ACL_FAIL(ACLSHMEM_INVALID_PARAM, f,
                        "ACLSHMEMX_INIT_WITH_UNIQUEID needs attr->comm_args = the aclshmemx_uniqueid_t from PE 0 "
                        "(see aclshmemx_set_attr_uniqueid_args)");
      if (uid->version != kUidVersion)
        return ACL_FAIL(ACLSHMEM_INVALID_PARAM, f,
                        "the unique ID's version is 0x%x, not 0x%x: it was not made by aclshmemx_get_uniqueid of "
                        "this library (or was not copied whole)",
                        static_cast<unsigned>(uid->version), static_cast<unsigned>(kUidVersion));
      spec.mode = core::BootstrapMode::kUniqueId;
      spec.unique_id = uid->internal;
      return ACLSHMEM_SUCCESS;
    }
    case ACLSHMEMX_INIT_WITH_MPI:
      spec.mode = core::BootstrapMode::kMpi;
      spec.mpi_comm = a.comm_args;
      return ACLSHMEM_SUCCESS;
    default:
      break;
  }
  return ACL_FAIL(ACLSHMEM_INVALID_PARAM, f,
                  "bootstrap_flags=0x%x is not one of ACLSHMEMX_INIT_WITH_DEFAULT, _WITH_UNIQUEID or _WITH_MPI",
                  static_cast<unsigned>(flags));
}

}  // namespace

extern "C" {

int aclshmemx_init_attr(aclshmemx_bootstrap_t bootstrap_flags, aclshmemx_init_attr_t* attributes) noexcept {
  const char* f = __func__;
  if (attributes == nullptr) return ACL_FAIL(ACLSHMEM_INVALID_PARAM, f, "attributes is NULL");
  core::InitSpec spec;
  int rc = ACLSHMEM_SUCCESS;
  try {
    rc = to_spec(f, bootstrap_flags, *attributes, spec);
  } catch (...) {  // std::string allocation
    return ACL_FAIL(ACLSHMEM_INNER_ERROR, f, "out of memory");
  }
  if (rc != ACLSHMEM_SUCCESS) return rc;
  rc = acl::guarded(f, [&] { core::init_with(spec); });
  if (rc != ACLSHMEM_SUCCESS) return rc;
  acl::instance_reset(spec.instance_id);
  // The runtime applies SHMEM_LOG_LEVEL (or its default) at start; a level chosen through
  // aclshmemx_set_log_level before init still holds, as in Ascend SHMEM (the environment, when set,
  // was already preferred by aclshmemx_set_log_level).
  if (const char* level = acl::remembered_log_level()) shmem::log::configure(level, nullptr);
  return ACLSHMEM_SUCCESS;
}

int aclshmemx_get_uniqueid(aclshmemx_uniqueid_t* uid) noexcept {
  if (uid == nullptr) return ACL_FAIL(ACLSHMEM_INVALID_PARAM, __func__, "uid is NULL");
  const int rc = acl::guarded(__func__, [&] { core::uniqueid_create(uid->internal); });
  if (rc == ACLSHMEM_SUCCESS) {
    uid->version = kUidVersion;
    uid->my_pe = 0;
    uid->n_pes = 0;
  }
  return rc;
}

int aclshmemx_set_attr_uniqueid_args(int my_pe, int n_pes, int64_t local_mem_size, aclshmemx_uniqueid_t* uid,
                                     aclshmemx_init_attr_t* attr) noexcept {
  const char* f = __func__;
  if (uid == nullptr || attr == nullptr) return ACL_FAIL(ACLSHMEM_INVALID_PARAM, f, "uid and attr must not be NULL");
  if (n_pes <= 0 || n_pes > ACLSHMEM_MAX_PES)
    return ACL_FAIL(ACLSHMEM_INVALID_VALUE, f, "n_pes=%d must be between 1 and %d", n_pes, ACLSHMEM_MAX_PES);
  if (my_pe < 0 || my_pe >= n_pes)
    return ACL_FAIL(ACLSHMEM_INVALID_VALUE, f, "my_pe=%d must be between 0 and n_pes-1 (%d)", my_pe, n_pes - 1);
  if (local_mem_size < 0 || static_cast<std::uint64_t>(local_mem_size) > ACLSHMEM_MAX_LOCAL_SIZE)
    return ACL_FAIL(ACLSHMEM_INVALID_VALUE, f, "local_mem_size=%lld must be between 0 and 40 GiB",
                    static_cast<long long>(local_mem_size));
  attr->my_pe = my_pe;
  attr->n_pes = n_pes;
  attr->local_mem_size = static_cast<std::uint64_t>(local_mem_size);
  attr->ip_port[0] = '\0';
  attr->comm_args = uid;
  uid->my_pe = my_pe;
  uid->n_pes = n_pes;
  return ACLSHMEM_SUCCESS;
}

int aclshmemx_init_status(void) noexcept {
  static_assert(ACLSHMEM_STATUS_NOT_INITIALIZED == 0 && ACLSHMEM_STATUS_IS_INITIALIZED == 2,
                "core::init_status uses Ascend SHMEM's numbering");
  return core::init_status();
}

int aclshmem_finalize(void) noexcept {
  if (core::ignored_in_forked_child(__func__)) return ACLSHMEM_SUCCESS;
  if (!core::initialized()) return ACL_FAIL(ACLSHMEM_NOT_INITED, __func__, "nothing to finalize: not initialised");
  return aclshmemx_finalize(core::instance_current());
}

int aclshmemx_finalize(uint64_t instance_id) noexcept {
  if (core::ignored_in_forked_child(__func__)) return ACLSHMEM_SUCCESS;
  shmem::stream::before_finalize();
  if (core::instance_finalize(instance_id) != 0)
    return ACL_FAIL(ACLSHMEM_INVALID_PARAM, __func__, "instance %llu is not initialised",
                    static_cast<unsigned long long>(instance_id));
  acl::instance_reset(instance_id);
  return ACLSHMEM_SUCCESS;
}

void aclshmem_global_exit(int status) noexcept {
  if (!core::initialized()) {
    acl::report(shmem::log::Level::kWarn, 0, __func__, "called before initialisation: nothing was done");
    return;
  }
  core::global_exit(status);
}

aclshmem_instance_ctx* aclshmemx_instance_ctx_get(void) noexcept {
  return acl::instance_ctx(core::instance_current());
}

int aclshmemx_instance_ctx_set(uint64_t instance_id) noexcept {
  if (core::instance_set(instance_id) != 0)
    return ACL_FAIL(ACLSHMEM_INVALID_PARAM, __func__, "instance %llu is not initialised",
                    static_cast<unsigned long long>(instance_id));
  return ACLSHMEM_SUCCESS;
}

int32_t aclshmemx_set_conf_store_tls(bool enable, const char* tls_info, const uint32_t tls_info_len) noexcept {
  if (tls_info_len > ACLSHMEM_MAX_TLS_INFO_LEN)
    return ACL_FAIL(ACLSHMEM_INVALID_PARAM, __func__, "tls_info_len=%u exceeds %d bytes", tls_info_len,
                    ACLSHMEM_MAX_TLS_INFO_LEN);
  return acl::guarded(__func__, [&] {
    core::set_store_tls(enable, bounded(tls_info, tls_info_len));
  });
}

int32_t aclshmemx_set_config_store_tls_key(const char* tls_pk, const uint32_t tls_pk_len, const char* tls_pk_pw,
                                           const uint32_t tls_pk_pw_len,
                                           const aclshmem_decrypt_handler decrypt_handler) noexcept {
  if (tls_pk == nullptr || tls_pk_len == 0)
    return ACL_FAIL(ACLSHMEM_INVALID_PARAM, __func__, "tls_pk (the private key's PEM content) is empty");
  if (tls_pk_pw == nullptr && tls_pk_pw_len != 0)
    return ACL_FAIL(ACLSHMEM_INVALID_PARAM, __func__, "tls_pk_pw is NULL but tls_pk_pw_len=%u", tls_pk_pw_len);
  static_assert(std::is_same_v<aclshmem_decrypt_handler, core::DecryptFn>, "Ascend SHMEM's callback is the core's");
  return acl::guarded(__func__, [&] {
    core::set_store_tls_key(bounded(tls_pk, tls_pk_len), bounded(tls_pk_pw, tls_pk_pw_len), decrypt_handler);
  });
}

void aclshmem_info_get_version(int* major, int* minor) noexcept {
  if (major != nullptr) *major = ACLSHMEM_MAJOR_VERSION;
  if (minor != nullptr) *minor = ACLSHMEM_MINOR_VERSION;
}

void aclshmem_info_get_name(char* name) noexcept {
  static_assert(sizeof(ACLSHMEM_VENDOR_STRING) <= ACLSHMEM_MAX_NAME_LEN);
  if (name != nullptr) std::memcpy(name, ACLSHMEM_VENDOR_STRING, sizeof(ACLSHMEM_VENDOR_STRING));
}

int aclshmem_my_pe(void) noexcept { return core::my_pe(); }
int aclshmem_n_pes(void) noexcept { return core::n_pes(); }

}  // extern "C"
