#include "base/config.hpp"

#include <strings.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <span>

#include "base/error.hpp"

namespace shmem {
namespace {

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

[[noreturn]] void bad(std::string_view what, std::string_view text, const char* expect) {
  throw Error(Errc::kInvalidValue, std::string(what) + "='" + std::string(text) + "' is invalid: expected " + expect);
}

}  // namespace

std::uint64_t parse_size(std::string_view text, std::string_view what) {
  const char* expect = "a byte count such as 4096, 512K, 64M, 1G or 2T";
  std::string t = trim(text);
  if (t.empty()) bad(what, text, expect);
  std::size_t i = 0;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
  if (i == 0) bad(what, text, expect);
  std::uint64_t mult = 1;
  std::string suffix = t.substr(i);
  for (auto& c : suffix) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (suffix.empty() || suffix == "B") mult = 1;
  else if (suffix == "K" || suffix == "KB" || suffix == "KIB") mult = 1ull << 10;
  else if (suffix == "M" || suffix == "MB" || suffix == "MIB") mult = 1ull << 20;
  else if (suffix == "G" || suffix == "GB" || suffix == "GIB") mult = 1ull << 30;
  else if (suffix == "T" || suffix == "TB" || suffix == "TIB") mult = 1ull << 40;
  else bad(what, text, expect);
  errno = 0;
  unsigned long long n = std::strtoull(t.substr(0, i).c_str(), nullptr, 10);
  if (errno == ERANGE || n > std::numeric_limits<std::uint64_t>::max() / mult) bad(what, text, "a size that fits in 64 bits");
  return n * mult;
}

bool parse_bool(std::string_view text, std::string_view what) {
  std::string t = trim(text);
  for (auto& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (t == "1" || t == "y" || t == "yes" || t == "on" || t == "true") return true;
  if (t == "0" || t == "n" || t == "no" || t == "off" || t == "false" || t.empty()) return false;
  bad(what, text, "0/1, yes/no, on/off or true/false");
}

std::int64_t parse_int(std::string_view text, std::string_view what) {
  std::string t = trim(text);
  if (t.empty()) bad(what, text, "an integer");
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(t.c_str(), &end, 10);
  if (errno == ERANGE || *end != '\0') bad(what, text, "an integer");
  return v;
}

double parse_seconds(std::string_view text, std::string_view what) {
  std::string t = trim(text);
  if (t.empty()) bad(what, text, "a number of seconds");
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (*end == 's' && end[1] == '\0') ++end;
  if (*end != '\0' || !std::isfinite(v) || v < 0) bad(what, text, "a non-negative number of seconds");
  return v;
}

// ---- the table's enums: enumerator i is the i-th value of its row --------------------------
namespace {

// "auto, ucx or none"
std::string allowed_list(std::span<const char* const> texts) {
  std::string out;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    if (i) out += i + 1 == texts.size() ? " or " : ", ";
    out += texts[i];
  }
  return out;
}

// The index of `text` among `texts`, or Error(kInvalidValue) naming `what` and the values.
std::size_t parse_choice(std::span<const char* const> texts, std::string_view text, std::string_view what) {
  const std::string t = trim(text);
  for (std::size_t i = 0; i < texts.size(); ++i)
    if (t == texts[i]) return i;
  bad(what, text, allowed_list(texts).c_str());
}

#define SHMEM_CONFIG_TEXT_(e, text) text,
#define SHMEM_CONFIG_VAR(name, field, kind, dflt, doc)
#define SHMEM_CONFIG_ENUM(name, field, Type, dflt, doc) \
  constexpr const char* k##Type##Texts[] = {SHMEM_CONFIG_VALUES_##Type(SHMEM_CONFIG_TEXT_)};
#define SHMEM_CONFIG_ALIAS(alias, name, whose)
#include "base/config_table.def"
#undef SHMEM_CONFIG_ALIAS
#undef SHMEM_CONFIG_ENUM
#undef SHMEM_CONFIG_VAR

// Parsers by kind, named as the table names kinds: parse_Size(text, what) and so on; an enum's
// is parse_enum_Type.
ConfigSize parse_Size(std::string_view text, std::string_view what) { return parse_size(text, what); }
ConfigBool parse_Bool(std::string_view text, std::string_view what) { return parse_bool(text, what); }
ConfigInt parse_Int(std::string_view text, std::string_view what) { return parse_int(text, what); }
ConfigSeconds parse_Seconds(std::string_view text, std::string_view what) { return parse_seconds(text, what); }
ConfigString parse_String(std::string_view text, std::string_view) { return std::string(text); }
#define SHMEM_CONFIG_VAR(name, field, kind, dflt, doc)
#define SHMEM_CONFIG_ENUM(name, field, Type, dflt, doc)                  \
  Type parse_enum_##Type(std::string_view text, std::string_view what) { \
    return static_cast<Type>(parse_choice(k##Type##Texts, text, what));  \
  }
#define SHMEM_CONFIG_ALIAS(alias, name, whose)
#include "base/config_table.def"
#undef SHMEM_CONFIG_ALIAS
#undef SHMEM_CONFIG_ENUM
#undef SHMEM_CONFIG_VAR

}  // namespace

#define SHMEM_CONFIG_VAR(name, field, kind, dflt, doc)
#define SHMEM_CONFIG_ENUM(name, field, Type, dflt, doc)             \
  const char* to_string(Type v) noexcept {                          \
    const auto i = static_cast<std::size_t>(v);                     \
    return i < std::size(k##Type##Texts) ? k##Type##Texts[i] : "?"; \
  }
#define SHMEM_CONFIG_ALIAS(alias, name, whose)
#include "base/config_table.def"
#undef SHMEM_CONFIG_ALIAS
#undef SHMEM_CONFIG_ENUM
#undef SHMEM_CONFIG_VAR

const std::vector<ConfigVarInfo>& config_vars() {
  static const std::vector<ConfigVarInfo> vars = {
#define SHMEM_CONFIG_VAR(name, field, kind, dflt, doc) \
  {#name, #kind, dflt, doc, nullptr, [](std::string_view v, std::string_view l) { (void)parse_##kind(v, l); }},
#define SHMEM_CONFIG_ENUM(name, field, Type, dflt, doc)           \
  {#name,                                                         \
   "Enum",                                                        \
   dflt,                                                          \
   doc,                                                           \
   ("" SHMEM_CONFIG_VALUES_##Type(SHMEM_CONFIG_COMMA_TEXT_)) + 2, \
   [](std::string_view v, std::string_view l) { (void)parse_enum_##Type(v, l); }},
#define SHMEM_CONFIG_COMMA_TEXT_(e, text) ", " text
#define SHMEM_CONFIG_ALIAS(alias, name, whose)
#include "base/config_table.def"
#undef SHMEM_CONFIG_ALIAS
#undef SHMEM_CONFIG_COMMA_TEXT_
#undef SHMEM_CONFIG_ENUM
#undef SHMEM_CONFIG_VAR
  };
  return vars;
}
#undef SHMEM_CONFIG_TEXT_

// Other implementations' names for a table variable (docs/porting.md, the end of the table):
// SMA_SYMMETRIC_SIZE, SMA_DEBUG, SMA_INFO, SMA_VERSION, SHMEM_SYMMETRIC_HEAP_SIZE. The table's
// own name wins when both are set. Returns the value set under an alias, or nullptr (and the
// alias's name in *which).
const char* config_alias_value(std::string_view name, const char** which) {
  for (const ConfigAlias& a : config_aliases())
    if (name == a.canonical)
      if (const char* v = std::getenv(a.alias); v && *v) {
        if (which) *which = a.alias;
        return v;
      }
  return nullptr;
}

const std::vector<ConfigAlias>& config_aliases() {
  static const std::vector<ConfigAlias> aliases = {
#define SHMEM_CONFIG_VAR(name, field, kind, dflt, doc)
#define SHMEM_CONFIG_ENUM(name, field, Type, dflt, doc)
#define SHMEM_CONFIG_ALIAS(alias, name, whose) {#alias, #name, whose},
#include "base/config_table.def"
#undef SHMEM_CONFIG_ALIAS
#undef SHMEM_CONFIG_ENUM
#undef SHMEM_CONFIG_VAR
  };
  return aliases;
}

std::string config_label(const char* name) {
  if (const char* v = std::getenv(name); v && *v) return name;
  const char* alias = nullptr;
  if (config_alias_value(name, &alias)) return std::string(alias) + " (read as " + name + ")";
  return name;
}

std::string config_raw(const char* name) {
  // An empty value means "unset", as in most shells' idiom VAR= command.
  if (const char* v = std::getenv(name); v && *v) return v;
  if (const char* v = config_alias_value(name)) return v;
  for (const auto& var : config_vars())
    if (std::string_view(var.name) == name) return var.default_value;
  throw Error(Errc::kInternal, std::string("unknown configuration variable ") + name);
}

namespace {
// SHMEM_HOST_TIMEOUT beyond its kind: whole seconds, 1 to 86400.
std::chrono::seconds checked_host_timeout(double s) {
  if (s < 1 || s > 86400 || s != static_cast<double>(static_cast<long long>(s)))
    bad("SHMEM_HOST_TIMEOUT", config_raw("SHMEM_HOST_TIMEOUT"),
        "whole seconds from 1 to 86400: how long a silent link to another host is waited out");
  return std::chrono::seconds(static_cast<long long>(s));
}
}  // namespace

std::chrono::seconds host_timeout_from_env() {
  return checked_host_timeout(parse_seconds(config_raw("SHMEM_HOST_TIMEOUT"), config_label("SHMEM_HOST_TIMEOUT")));
}

Config Config::from_env() {
  Config c;
#define SHMEM_CONFIG_VAR(name, field, kind, dflt, doc) c.field = parse_##kind(config_raw(#name), config_label(#name));
#define SHMEM_CONFIG_ENUM(name, field, Type, dflt, doc) \
  c.field = parse_enum_##Type(config_raw(#name), config_label(#name));
#define SHMEM_CONFIG_ALIAS(alias, name, whose)
#include "base/config_table.def"
#undef SHMEM_CONFIG_ALIAS
#undef SHMEM_CONFIG_ENUM
#undef SHMEM_CONFIG_VAR
  // Ranges beyond what a kind says.
  if (c.symmetric_size == 0) bad("SHMEM_SYMMETRIC_SIZE", "0", "a size greater than zero");
  if (c.wait_spin < -1 || c.wait_spin > (1 << 30))
    bad("SHMEM_WAIT_SPIN", config_raw("SHMEM_WAIT_SPIN"), "-1 (automatic) or a count from 0 to 2^30");
  if (c.device_threads < 0 || c.device_threads > kMaxDeviceThreads)
    bad("SHMEM_DEVICE_THREADS", config_raw("SHMEM_DEVICE_THREADS"),
        "0 (the hardware threads) or a count from 1 to 4096");
  if (c.cuda_device < -1 || c.cuda_device > 1023)
    bad("SHMEM_CUDA_DEVICE", config_raw("SHMEM_CUDA_DEVICE"), "-1 (by node-local index) or a device ordinal");
  checked_host_timeout(c.host_timeout);
  return c;
}

// ---- checks beyond the table's parsers (kept apart: the table's code is above) -------------
namespace {

// SHMEM_* names that are not in the table but are read (or accepted) elsewhere; the table's
// aliases are known too.
constexpr const char* kKnownOutsideTable[] = {
    "SHMEM_UID_SESSION_ID",  // Ascend SHMEM's unique-ID store address
    "SHMEM_CC",              // oshcc's back-end compiler
    "SHMEM_CXX",             // oshc++'s back-end compiler
    "SHMEM_PY_OSHRUN",       // the oshrun that python3 -m shmem.run starts
    // tests/tools/system_install.sh runs (CI: .ci/run)
    "SHMEM_TEST_SYSTEM_INSTALL",
};

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::vector<std::string> unknown_variable_messages() {
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e) {
    std::string_view entry(*e);
    if (!entry.starts_with("SHMEM_")) continue;
    const std::string name(entry.substr(0, entry.find('=')));
    bool known = false;
    for (const auto& v : config_vars()) known = known || name == v.name;
    for (const char* k : kKnownOutsideTable) known = known || name == k;
    for (const auto& a : config_aliases()) known = known || name == a.alias;
    if (known) continue;
    std::string best;
    std::size_t best_d = std::string::npos;
    for (const auto& v : config_vars())
      if (std::size_t d = edit_distance(name, v.name); d < best_d) {
        best_d = d;
        best = v.name;
      }
    std::string msg = name + " is not a shmem variable";
    // Close enough to be a typo: about one edit in four of the part after SHMEM_.
    if (best_d <= std::max<std::size_t>(1, (name.size() - 6) / 4))
      msg += "; did you mean " + best + "?";
    else
      msg += " (shmem-info lists them)";
    out.push_back(std::move(msg));
  }
  return out;
}

void validate_startup_settings(const Config& c) {
  static constexpr const char* kLevels[] = {"TRACE", "DEBUG", "INFO", "WARN", "WARNING", "ERROR", "FATAL", "OFF"};
  bool level_ok = false;
  for (const char* l : kLevels) level_ok = level_ok || strcasecmp(c.log_level.c_str(), l) == 0;
  if (!level_ok) bad("SHMEM_LOG_LEVEL", c.log_level, "TRACE, DEBUG, INFO, WARN, ERROR, FATAL or OFF");
  if (!c.log_file.empty()) {
    FILE* f = std::fopen(c.log_file.c_str(), "a");
    if (!f)
      throw Error(Errc::kInvalidValue, "SHMEM_LOG_FILE='" + c.log_file + "' cannot be opened for appending: " +
                                           std::strerror(errno));
    std::fclose(f);
  }
  if (c.bootstrap_timeout <= 0)
    bad("SHMEM_BOOTSTRAP_TIMEOUT", config_raw("SHMEM_BOOTSTRAP_TIMEOUT"),
        "a positive number of seconds: the bootstrap always has a deadline (for a very slow start use a large "
        "value, e.g. 3600)");
}

}  // namespace shmem
