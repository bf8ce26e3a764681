// One process, written only against aclshmem.h: what needs no peers.
//   - the Ascend-only engine and profiling calls say ACLSHMEM_NOT_SUPPORTED;
//   - aclshmemx_init_attr refuses bad attributes with Ascend SHMEM's error codes;
//   - TLS settings are refused after initialisation (and a bad option string before it);
//   - status, info, instance and team queries; finalize return codes; global_exit before init.
//   acl_single <tcp://127.0.0.1:port>
//   acl_single <tcp://127.0.0.1:port> loglevel   aclshmemx_set_log_level before init holds after it
//                                                (the test checks which warnings were printed)
#include <aclshmem.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

int g_failures = 0;

#define CHECK(cond)                                                                     \
  do {                                                                                  \
    if (!(cond)) {                                                                      \
      std::fprintf(stderr, "CHECK failed at %s:%d: %s\n", __FILE__, __LINE__, #cond);   \
      ++g_failures;                                                                     \
    }                                                                                   \
  } while (0)
#define CHECK_RC(expr, want)                                                                             \
  do {                                                                                                   \
    const int rc_ = (expr);                                                                              \
    if (rc_ != (want)) {                                                                                 \
      std::fprintf(stderr, "CHECK failed at %s:%d: %s returned %d, expected %s (%d)\n", __FILE__, __LINE__, \
                   #expr, rc_, #want, int(want));                                                        \
      ++g_failures;                                                                                      \
    }                                                                                                    \
  } while (0)

int decrypt_never(const char*, size_t, char*, size_t&) { return 1; }
void logger(int, const char*) {}

aclshmemx_init_attr_t attr_for(const std::string& url) {
  aclshmemx_init_attr_t attr;
  attr.my_pe = 0;
  attr.n_pes = 1;
  std::snprintf(attr.ip_port, sizeof attr.ip_port, "%s", url.c_str());
  attr.local_mem_size = 16ULL << 20;
  return attr;
}

void engine_calls() {
  CHECK_RC(aclshmemx_set_mte_config(0, 16384, 0), ACLSHMEM_NOT_SUPPORTED);
  CHECK_RC(aclshmemx_set_sdma_config(191 * 1024, 64, 1), ACLSHMEM_NOT_SUPPORTED);
  CHECK_RC(aclshmemx_set_rdma_config(190 * 1024, 128, 2), ACLSHMEM_NOT_SUPPORTED);
  CHECK_RC(aclshmemx_set_udma_config(189 * 1024, 128, 3), ACLSHMEM_NOT_SUPPORTED);
  aclshmem_handle_t handle{ACLSHMEM_TEAM_WORLD};
  CHECK_RC(aclshmemx_handle_wait(handle, nullptr), ACLSHMEM_NOT_INITED);  // real now: needs a runtime
  aclshmem_prof_pe_t* prof = reinterpret_cast<aclshmem_prof_pe_t*>(&handle);
  CHECK_RC(aclshmemx_get_prof(&prof, true), ACLSHMEM_NOT_SUPPORTED);
  CHECK(prof == nullptr);
  aclshmemx_show_prof();  // warns, returns
  CHECK(util_get_ffts_config() == 0);
  CHECK(shmemx_get_ffts_config() == 0);
  CHECK_RC(aclshmemx_set_extern_logger(logger), ACLSHMEM_NOT_SUPPORTED);
}

void bad_attributes(const std::string& url) {
  CHECK_RC(aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_DEFAULT, nullptr), ACLSHMEM_INVALID_PARAM);
  aclshmemx_init_attr_t a = attr_for(url);
  a.n_pes = 0;
  CHECK_RC(aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_DEFAULT, &a), ACLSHMEM_INVALID_VALUE);
  a = attr_for(url);
  a.my_pe = 1;
  CHECK_RC(aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_DEFAULT, &a), ACLSHMEM_INVALID_VALUE);
  a = attr_for(url);
  a.local_mem_size = ACLSHMEM_MAX_LOCAL_SIZE + 1;
  CHECK_RC(aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_DEFAULT, &a), ACLSHMEM_INVALID_VALUE);
  a = attr_for(url);
  a.option_attr.data_op_engine_type = static_cast<data_op_engine_type_t>(0);
  CHECK_RC(aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_DEFAULT, &a), ACLSHMEM_INVALID_VALUE);
  a = attr_for(url);
  a.option_attr.control_operation_timeout = 0;
  CHECK_RC(aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_DEFAULT, &a), ACLSHMEM_INVALID_VALUE);
  a = attr_for("tcp://127.0.0.1:0");  // Ascend SHMEM's instance port template: not supported
  a.n_pes = 2;
  a.instance_id = 3;
  CHECK_RC(aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_DEFAULT, &a), ACLSHMEM_NOT_SUPPORTED);
  a = attr_for("127.0.0.1:8666");  // no tcp:// and no unique ID to fall back to
  CHECK_RC(aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_DEFAULT, &a), ACLSHMEM_INVALID_PARAM);
  a = attr_for(url);
  CHECK_RC(aclshmemx_init_attr(static_cast<aclshmemx_bootstrap_t>(1 << 2), &a), ACLSHMEM_INVALID_PARAM);
  CHECK_RC(aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_UNIQUEID, &a), ACLSHMEM_INVALID_PARAM);  // no comm_args
  aclshmemx_uniqueid_t zero = ACLSHMEM_UNIQUEID_INITIALIZER;
  CHECK_RC(aclshmemx_set_attr_uniqueid_args(0, 1, 16 << 20, &zero, &a), 0);
  CHECK_RC(aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_UNIQUEID, &a), ACLSHMEM_INVALID_PARAM);  // not from get_uniqueid
  CHECK_RC(aclshmemx_set_attr_uniqueid_args(2, 2, 16 << 20, &zero, &a), ACLSHMEM_INVALID_VALUE);
  CHECK_RC(aclshmemx_set_attr_uniqueid_args(0, 1, -1, &zero, &a), ACLSHMEM_INVALID_VALUE);
  // MPI: either available (a singleton job) or refused as not supported, never a crash.
  a = attr_for(url);
  const int mpi = aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_MPI, &a);
  CHECK(mpi == ACLSHMEM_NOT_SUPPORTED || mpi == ACLSHMEM_SUCCESS);
  if (mpi == ACLSHMEM_SUCCESS) CHECK_RC(aclshmem_finalize(), 0);
  CHECK(aclshmemx_init_status() == ACLSHMEM_STATUS_NOT_INITIALIZED);
}

void tls_settings_before_init() {
  const std::string bad = "tlsCaFile: /nonexistent/ca.pem; tlsBogus: 1;";
  CHECK(aclshmemx_set_conf_store_tls(true, bad.c_str(), uint32_t(bad.size())) != 0);
  CHECK_RC(aclshmemx_set_conf_store_tls(true, "x", ACLSHMEM_MAX_TLS_INFO_LEN + 1), ACLSHMEM_INVALID_PARAM);
  CHECK_RC(aclshmemx_set_config_store_tls_key(nullptr, 0, nullptr, 0, nullptr), ACLSHMEM_INVALID_PARAM);
  CHECK(aclshmemx_set_config_store_tls_key("k", 1, "pw", 2, decrypt_never) != 0);  // the callback refuses
  CHECK_RC(aclshmemx_set_conf_store_tls(false, nullptr, 0), 0);  // what Ascend SHMEM's README shows
}

void initialised(const std::string& url) {
  aclshmemx_init_attr_t a = attr_for(url);
  CHECK_RC(aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_DEFAULT, &a), 0);
  CHECK(aclshmemx_init_status() == ACLSHMEM_STATUS_IS_INITIALIZED);
  CHECK(aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_DEFAULT, &a) != 0);  // instance 0 is live
  CHECK(aclshmem_my_pe() == 0 && aclshmem_n_pes() == 1);

  // TLS settings are frozen now: an error with a message, not a silent change.
  CHECK_RC(aclshmemx_set_conf_store_tls(true, nullptr, 0), ACLSHMEM_INVALID_PARAM);
  CHECK_RC(aclshmemx_set_config_store_tls_key("k", 1, nullptr, 0, nullptr), ACLSHMEM_INVALID_PARAM);

  int major = 0, minor = 0;
  aclshmem_info_get_version(&major, &minor);
  CHECK(major == ACLSHMEM_MAJOR_VERSION && minor == ACLSHMEM_MINOR_VERSION);
  char name[ACLSHMEM_MAX_NAME_LEN];
  aclshmem_info_get_name(name);
  CHECK(std::strncmp(name, "ACLSHMEM v", 10) == 0);

  CHECK_RC(aclshmemx_set_log_level(7), ACLSHMEM_INVALID_PARAM);
  CHECK_RC(aclshmemx_set_log_level(3), 0);

  CHECK(aclshmemx_instance_ctx_get() != nullptr && aclshmemx_instance_ctx_get()->id == 0);
  CHECK_RC(aclshmemx_instance_ctx_set(5), ACLSHMEM_INVALID_PARAM);
  CHECK_RC(aclshmemx_finalize(5), ACLSHMEM_INVALID_PARAM);

  // (An unknown memory type is refused too, but only C can pass one: it is outside the C++ enum.)
  void* p = aclshmemx_malloc(1024, HOST_SIDE);
  CHECK(p != nullptr && aclshmem_ptr(p, 0) == p && aclshmem_ptr(p, 1) == nullptr);
  CHECK(aclshmemx_get_heap_base(HOST_SIDE) == aclshmemx_get_heap_base(DEVICE_SIDE));
  aclshmemx_free(p, HOST_SIDE);

  aclshmem_team_t t = ACLSHMEM_TEAM_INVALID;
  CHECK_RC(aclshmem_team_split_strided(ACLSHMEM_TEAM_WORLD, 0, 1, 1, &t), 0);
  CHECK(t > ACLSHMEM_TEAM_WORLD && aclshmem_team_n_pes(t) == 1);
  CHECK(aclshmem_team_split_strided(ACLSHMEM_TEAM_WORLD, 0, 1, 5, &t) != 0);  // beyond the parent
  CHECK(t == ACLSHMEM_TEAM_INVALID);
  CHECK(aclshmem_team_split_strided(42, 0, 1, 1, &t) != 0);
  aclshmem_team_config_t cfg;
  CHECK_RC(aclshmem_team_get_config(42, &cfg), ACLSHMEM_INVALID_PARAM);
  aclshmem_team_destroy(ACLSHMEM_TEAM_WORLD);  // refused with a message, WORLD stays
  CHECK(aclshmem_team_n_pes(ACLSHMEM_TEAM_WORLD) == 1);
  aclshmem_barrier(42);  // refused with a message
  aclshmem_barrier_all();

  CHECK_RC(aclshmem_finalize(), 0);
  CHECK(aclshmemx_init_status() == ACLSHMEM_STATUS_NOT_INITIALIZED);
  CHECK_RC(aclshmem_finalize(), ACLSHMEM_NOT_INITED);
  CHECK(aclshmem_team_n_pes(ACLSHMEM_TEAM_WORLD) == -1);

  // Initialise again (same instance id, after finalize) and finalise by id.
  CHECK_RC(aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_DEFAULT, &a), 0);
  CHECK_RC(aclshmemx_finalize(0), 0);
}

// Level 3 (error) set before init: the warning of set_mte_config must not appear; back at level 2
// (warn) the one of set_sdma_config must.
int log_level(const std::string& url) {
  CHECK_RC(aclshmemx_set_log_level(3), 0);
  CHECK_RC(aclshmemx_set_conf_store_tls(false, nullptr, 0), 0);
  aclshmemx_init_attr_t a = attr_for(url);
  CHECK_RC(aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_DEFAULT, &a), 0);
  CHECK_RC(aclshmemx_set_mte_config(0, 1, 0), ACLSHMEM_NOT_SUPPORTED);
  CHECK_RC(aclshmemx_set_log_level(2), 0);
  CHECK_RC(aclshmemx_set_sdma_config(0, 1, 0), ACLSHMEM_NOT_SUPPORTED);
  CHECK_RC(aclshmem_finalize(), 0);
  std::printf("acl_single loglevel: %s\n", g_failures == 0 ? "OK" : "FAILED");
  return g_failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    std::fprintf(stderr, "usage: %s tcp://127.0.0.1:port [loglevel]\n", argv[0]);
    return 2;
  }
  const std::string url = argv[1];
  if (argc == 3) return log_level(url);
  CHECK(aclshmemx_init_status() == ACLSHMEM_STATUS_NOT_INITIALIZED);
  CHECK_RC(aclshmem_finalize(), ACLSHMEM_NOT_INITED);
  engine_calls();
  bad_attributes(url);
  tls_settings_before_init();
  initialised(url);
  aclshmem_global_exit(3);  // not initialised: a warning, and it returns
  if (g_failures != 0) {
    std::fprintf(stderr, "acl_single: %d check(s) failed\n", g_failures);
    return 1;
  }
  std::printf("acl_single: OK\n");
  return 0;
}
