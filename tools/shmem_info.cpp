// shmem-info: the library's version and every configuration variable with its current value.
//   shmem-info            human-readable listing
//   shmem-info --json     JSON array, one object per variable
//   shmem-info --markdown the table as Markdown (source of docs/config.md)
// Exit status 1 when a variable in the environment has an invalid value, 2 on bad usage.
#include <cstdio>
#include <unistd.h>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "base/config.hpp"
#include "base/log.hpp"
#include "transport/transport.hpp"
#include "shmem_info_check.hpp"

#ifndef SHMEM_PROJECT_VERSION
#define SHMEM_PROJECT_VERSION "unknown"
#endif
#ifndef SHMEM_LIBRARY_FILE
#define SHMEM_LIBRARY_FILE "libshmem.so"
#endif

namespace {

constexpr const char* kSpecVersion = "1.6";

struct VarState {
  const shmem::ConfigVarInfo* info;
  bool set = false;        // present in the environment (under its name or an alias)
  const char* alias = nullptr;  // the alias it was set under, if not its own name
  bool secret = false;     // never shown
  std::string value;       // environment value, else the default
  std::string error;       // parser message for an invalid value
};

bool is_secret(std::string_view name) { return name == "SHMEM_JOB_SECRET"; }

// `label` names the variable as the user set it (an alias: "SMA_DEBUG (read as SHMEM_DEBUG)").
std::string validate(const shmem::ConfigVarInfo& v, const std::string& value, const std::string& label) {
  try {
    v.check(value, label);
    if (std::string_view(v.name) == "SHMEM_LOG_LEVEL") {
      shmem::log::Level l;
      if (!shmem::log::parse_level(value.c_str(), &l))
        return std::string(v.name) + "='" + value +
               "' is invalid: expected TRACE, DEBUG, INFO, WARN, ERROR, FATAL or OFF";
    }
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

std::vector<VarState> collect(std::string* global_error) {
  std::vector<VarState> out;
  bool any_error = false;
  for (const auto& v : shmem::config_vars()) {
    VarState s;
    s.info = &v;
    const char* own = std::getenv(v.name);
    s.set = own != nullptr;
    if ((own == nullptr || *own == '\0') && shmem::config_alias_value(v.name, &s.alias) != nullptr) s.set = true;
    s.secret = is_secret(v.name);
    s.value = shmem::config_raw(v.name);
    s.error = validate(v, s.value, shmem::config_label(v.name));
    any_error = any_error || !s.error.empty();
    out.push_back(std::move(s));
  }
  // Checks that span more than one field (e.g. a zero heap size) live in Config::from_env.
  if (!any_error) {
    try {
      shmem::Config::from_env();
    } catch (const std::exception& e) {
      *global_error = e.what();
    }
  }
  return out;
}

// "Size", or an enum's "one of auto, ucx, none".
std::string kind_text(const shmem::ConfigVarInfo& v) {
  return v.allowed ? std::string("one of ") + v.allowed : std::string(v.kind);
}

std::string shown_value(const VarState& s) {
  if (s.secret && s.set && !s.value.empty()) return "(set, hidden)";
  return s.value;
}

std::string json_string(std::string_view s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      case '\r': o += "\\r"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          o += buf;
        } else {
          o += static_cast<char>(c);
        }
    }
  }
  return o + "\"";
}

// Where the plugins are: SHMEM_BOOTSTRAP_PLUGIN_DIR, else the library directory next to ours
// (build tree: build/bin -> build/lib; installed: PREFIX/bin -> PREFIX/<libdir>).
std::string plugin_dir_for_info() {
  if (std::string d = shmem::config_raw("SHMEM_BOOTSTRAP_PLUGIN_DIR"); !d.empty()) return d;
  char self[4096] = {};
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  std::string dir = n > 0 ? std::string(self, static_cast<std::size_t>(n)) : std::string(".");
  dir = dir.substr(0, dir.rfind('/'));
  const std::string up = dir.substr(0, dir.rfind('/'));
  for (const std::string& cand : {up + "/" SHMEM_INSTALL_LIBDIR, up + "/lib"})
    if (access((cand + "/" SHMEM_LIBRARY_FILE).c_str(), F_OK) == 0) return cand;
  return up + "/lib";
}

void print_transports() {
  std::printf("Transports:\n");
  std::printf("  PEs on this host:    shared memory (memfd segments mapped by every node-local PE: loads, stores, "
              "CPU atomics)\n");
  for (const auto& line : shmem::transport::probe_remote(plugin_dir_for_info()))
    std::printf("  PEs on other hosts:  %s\n", line.c_str());
  std::printf("  (which one a job uses is decided per peer at init: SHMEM_LOG_LEVEL=INFO prints it)\n\n");
}

void print_text(const std::vector<VarState>& vars, const std::string& global_error) {
  std::printf("shmem %s (%s)\n", SHMEM_PROJECT_VERSION, SHMEM_LIBRARY_FILE);
  std::printf("OpenSHMEM specification %s\n\n", kSpecVersion);
  print_transports();
  std::printf("Configuration variables (value: from the environment, else the default):\n");
  for (const auto& s : vars) {
    std::printf("\n%s\n", s.info->name);
    std::printf("  kind:        %s\n", kind_text(*s.info).c_str());
    std::printf("  default:     %s\n", *s.info->default_value ? s.info->default_value : "(empty)");
    std::string v = shown_value(s);
    std::string origin = s.secret && s.set ? "" : s.set ? " (from the environment)" : "";
    if (s.alias) origin = std::string(" (from ") + s.alias + ", another implementation's name for it)";
    std::printf("  value:       %s%s\n", v.empty() ? "(empty)" : v.c_str(), origin.c_str());
    if (!s.error.empty()) std::printf("  ERROR:       %s\n", s.error.c_str());
    std::printf("  description: %s\n", s.info->description);
  }
  if (!global_error.empty()) std::printf("\nERROR: %s\n", global_error.c_str());
}

void print_json(const std::vector<VarState>& vars) {
  std::printf("[\n");
  for (std::size_t i = 0; i < vars.size(); ++i) {
    const auto& s = vars[i];
    std::printf("  {\"name\": %s, \"kind\": %s, \"default\": %s, \"value\": %s, \"set\": %s, "
                "\"error\": %s, \"description\": %s}%s\n",
                json_string(s.info->name).c_str(), json_string(kind_text(*s.info)).c_str(),
                json_string(s.info->default_value).c_str(), json_string(shown_value(s)).c_str(),
                s.set ? "true" : "false", s.error.empty() ? "null" : json_string(s.error).c_str(),
                json_string(s.info->description).c_str(), i + 1 < vars.size() ? "," : "");
  }
  std::printf("]\n");
}

std::string md_cell(std::string_view s) {
  std::string o;
  for (char c : s) {
    if (c == '|') o += "\\|";
    else if (c == '\n') o += ' ';
    else o += c;
  }
  return o;
}

void print_markdown(const std::vector<VarState>& vars) {
  std::printf("# Configuration variables\n\n");
  std::printf("<!-- Generated by `shmem-info --markdown`; edit src/base/config_table.def instead. -->\n\n");
  std::printf("shmem %s reads these environment variables. Kinds: **Size** takes a byte count "
              "with optional K/M/G/T suffix; **Bool** takes 0/1, yes/no, on/off or true/false; "
              "**Seconds** takes a non-negative decimal number; \"one of\" lists every value a variable "
              "accepts.\n\n",
              SHMEM_PROJECT_VERSION);
  std::printf("| Variable | Kind | Default | Description |\n");
  std::printf("|---|---|---|---|\n");
  for (const auto& s : vars) {
    // (not "`" + ... + "`": a GCC 12 -Wrestrict false positive in Release builds)
    std::string dflt = "(empty)";
    if (*s.info->default_value) dflt = md_cell(s.info->default_value).insert(0, 1, '`').append(1, '`');
    std::printf("| `%s` | %s | %s | %s |\n", s.info->name, kind_text(*s.info).c_str(), dflt.c_str(),
                md_cell(s.info->description).c_str());
  }
  std::printf("\n## Other implementations' names\n\n"
              "These names are read as aliases, so settings made for other OpenSHMEM libraries keep "
              "working; when a variable is set under both names, the name above wins.\n\n");
  for (const auto& a : shmem::config_aliases())
    std::printf("- `%s` for `%s` (%s)\n", a.alias, a.canonical, a.whose);
}

void usage(std::FILE* f) {
  std::fprintf(f,
               "usage: shmem-info [--json | --markdown]\n"
               "Prints the shmem version and every configuration variable with its kind,\n"
               "default, current value and description.\n"
               "  --json       as a JSON array of objects\n"
               "  --markdown   as a Markdown table (for docs/config.md)\n"
               "  --version    print the version only\n"
               "Exit status: 0, 1 if a variable has an invalid value, 2 on bad usage.\n");
  std::fprintf(f, "shmem-info --check [-n PES_PER_HOST]: checks this host for jobs (heap against memory, /dev/shm,\n"
                  "open files, ptrace, UCX, GPU, TLS), says what to fix; exit status 1 when a check fails.\n");
}

}  // namespace

int main(int argc, char** argv) {
  enum class Mode { kText, kJson, kMarkdown } mode = Mode::kText;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--json") mode = Mode::kJson;
    else if (a == "--markdown") mode = Mode::kMarkdown;
    else if (a == "-h" || a == "--help") {
      usage(stdout);
      return 0;
    } else if (a == "--check") {  // tools/shmem_info_check.cpp
      return shmem::tools::run_check(argc - i - 1, argv + i + 1, plugin_dir_for_info());
    } else if (a == "--version" || a == "-V") {
      std::printf("shmem %s (OpenSHMEM %s)\n", SHMEM_PROJECT_VERSION, kSpecVersion);
      return 0;
    } else {
      std::fprintf(stderr, "shmem-info: unknown argument '%s'\n", argv[i]);
      usage(stderr);
      return 2;
    }
  }
  std::string global_error;
  auto vars = collect(&global_error);
  switch (mode) {
    case Mode::kText: print_text(vars, global_error); break;
    case Mode::kJson: print_json(vars); break;
    case Mode::kMarkdown: print_markdown(vars); return 0;  // documents defaults, not this env
  }
  bool bad = !global_error.empty();
  for (const auto& s : vars) {
    if (!s.error.empty()) {
      std::fprintf(stderr, "shmem-info: %s\n", s.error.c_str());
      bad = true;
    }
  }
  if (!global_error.empty()) std::fprintf(stderr, "shmem-info: %s\n", global_error.c_str());
  // Likely typos: SHMEM_* names the library does not read (a warning, not an error).
  for (const std::string& m : shmem::unknown_variable_messages()) std::fprintf(stderr, "shmem-info: warning: %s\n", m.c_str());
  return bad ? 1 : 0;
}
