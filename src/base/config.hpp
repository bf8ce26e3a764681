#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace shmem {

// The most worker threads a kernel launch may use (SHMEM_DEVICE_THREADS).
constexpr std::int64_t kMaxDeviceThreads = 4096;

// Typed view of every SHMEM_* environment variable (see config_table.def).
struct Config {
  std::uint64_t symmetric_size = 0;
  bool debug = false;
  bool info = false;
  bool version = false;
  std::string log_level;
  std::string log_file;
  double wait_timeout = 0;
  double coll_check_after = 3;  // 0 = never (core/coll_check.hpp)
  std::int64_t wait_spin = -1;  // -1 = automatic
  bool bootstrap_tls = true;
  std::string bootstrap_tls_info;
  double bootstrap_timeout = 120;
  std::string store_addr;
  std::int64_t pe = -1;
  std::int64_t npes = 0;
  std::string job_id;
  std::string job_secret;
  std::string transport;        // auto | ucx | none
  std::string progress_thread;  // auto | on | off
  std::string rsh;
  std::string bootstrap_iface;
  std::string bootstrap_addr;
  std::uint64_t coll_xhost_direct = 16384;
  std::uint64_t coll_xhost_push = 16384;
  std::string coll_xhost_algo;  // auto | direct | ring
  char coll_xhost_forced = 0;   // the same, parsed: 0 (auto), 'd' or 'r'
  std::string coll_rings;       // auto | on | off
  std::uint64_t cuda_heap_size = 0;  // bytes of GPU heap per PE (0 = none)
  std::string cuda_driver;           // empty = libcuda.so.1
  std::int64_t cuda_device = -1;     // -1 = local index % devices
  std::string acl_device;            // cpu | cuda
  std::int64_t device_threads = 0;   // 0 = the hardware threads, else 1..kMaxDeviceThreads

  // Reads the environment; throws Error(kInvalidValue) naming the variable on bad input.
  static Config from_env();
};

struct ConfigVarInfo {
  const char* name;
  const char* kind;
  const char* default_value;
  const char* description;
};
const std::vector<ConfigVarInfo>& config_vars();
// Names other implementations use for a table variable, accepted as aliases of it (the table's
// own name wins when both are set): SMA_SYMMETRIC_SIZE, SMA_DEBUG, SMA_INFO, SMA_VERSION,
// SHMEM_SYMMETRIC_HEAP_SIZE (SHMEM_CONFIG_ALIAS in config_table.def).
struct ConfigAlias {
  const char* alias;
  const char* canonical;
  const char* whose;  // the implementations that use the alias
};
const std::vector<ConfigAlias>& config_aliases();
// The value of the first alias of `name` that is set (non-empty), or nullptr; *which (when
// given) is set to that alias's name.
const char* config_alias_value(std::string_view name, const char** which = nullptr);
// The environment value of a table variable (or of an alias of it), or its default.
std::string config_raw(const char* name);
// The variable as the user set it, for messages: `name`, or "SMA_DEBUG (read as SHMEM_DEBUG)"
// when only an alias is set.
std::string config_label(const char* name);

// SHMEM_* variables in the environment that are not in the table, each with a message naming
// the closest known one ("SHMEM_SYMMETRIC_SIZ is not a shmem variable; did you mean
// SHMEM_SYMMETRIC_SIZE?"). Known aliases and variables read outside the table are not listed.
std::vector<std::string> unknown_variable_messages();
// Checks what Config::from_env cannot see alone: SHMEM_LOG_LEVEL is a level, SHMEM_LOG_FILE can
// be opened for appending, SHMEM_BOOTSTRAP_TIMEOUT is positive. Throws Error(kInvalidValue).
void validate_startup_settings(const Config& c);

// Strict parsers (exposed for tests). Each throws Error(kInvalidValue) naming `what`.
std::uint64_t parse_size(std::string_view text, std::string_view what);
bool parse_bool(std::string_view text, std::string_view what);
std::int64_t parse_int(std::string_view text, std::string_view what);
double parse_seconds(std::string_view text, std::string_view what);

}  // namespace shmem
