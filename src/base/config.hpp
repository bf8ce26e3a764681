#pragma once
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace shmem {

// The most worker threads a kernel launch may use (SHMEM_DEVICE_THREADS).
constexpr std::int64_t kMaxDeviceThreads = 4096;

// The Config field types of the table's kinds.
using ConfigSize = std::uint64_t;
using ConfigBool = bool;
using ConfigInt = std::int64_t;
using ConfigSeconds = double;
using ConfigString = std::string;

// The table's enums (SHMEM_CONFIG_ENUM rows): `enum class Type` and to_string(Type).
#define SHMEM_CONFIG_ENUMERATOR_(e, text) e,
#define SHMEM_CONFIG_VAR(name, field, kind, dflt, doc)
#define SHMEM_CONFIG_ENUM(name, field, Type, dflt, doc)                                    \
  enum class Type : std::uint8_t { SHMEM_CONFIG_VALUES_##Type(SHMEM_CONFIG_ENUMERATOR_) }; \
  const char* to_string(Type v) noexcept;
#define SHMEM_CONFIG_ALIAS(alias, name, whose)
#include "base/config_table.def"
#undef SHMEM_CONFIG_ALIAS
#undef SHMEM_CONFIG_ENUM
#undef SHMEM_CONFIG_VAR
#undef SHMEM_CONFIG_ENUMERATOR_

// Typed view of every SHMEM_* environment variable: one field per row of config_table.def.
// from_env sets every field (a default-constructed Config holds zeros, not the table's defaults).
struct Config {
#define SHMEM_CONFIG_VAR(name, field, kind, dflt, doc) Config##kind field{};
#define SHMEM_CONFIG_ENUM(name, field, Type, dflt, doc) Type field{};
#define SHMEM_CONFIG_ALIAS(alias, name, whose)
#include "base/config_table.def"
#undef SHMEM_CONFIG_ALIAS
#undef SHMEM_CONFIG_ENUM
#undef SHMEM_CONFIG_VAR

  // Reads the environment; throws Error(kInvalidValue) naming the variable on bad input.
  static Config from_env();
};

struct ConfigVarInfo {
  const char* name;
  const char* kind;  // Size, Bool, Int, Seconds, String or Enum
  const char* default_value;
  const char* description;
  const char* allowed;  // an Enum's values, "auto, ucx or none"; else nullptr
  // Parses `value` as this variable's kind (an Enum: one of its values); throws
  // Error(kInvalidValue) naming `label` and what is allowed.
  void (*check)(std::string_view value, std::string_view label);
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

// SHMEM_HOST_TIMEOUT, checked (whole seconds, 1 to 86400): read where no Config exists yet (the
// bootstrap store's connections in oshrun and in every PE). Throws Error(kInvalidValue).
std::chrono::seconds host_timeout_from_env();

// Strict parsers (exposed for tests). Each throws Error(kInvalidValue) naming `what`.
std::uint64_t parse_size(std::string_view text, std::string_view what);
bool parse_bool(std::string_view text, std::string_view what);
std::int64_t parse_int(std::string_view text, std::string_view what);
double parse_seconds(std::string_view text, std::string_view what);

}  // namespace shmem
