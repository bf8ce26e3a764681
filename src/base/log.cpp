#include "base/log.hpp"

#include <strings.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace shmem::log {
namespace {

struct Sink {
  std::mutex mu;
  std::atomic<int> level{static_cast<int>(Level::kWarn)};
  FILE* file = nullptr;  // nullptr = stderr
  int pe = -1;
  int npes = -1;
  char host[64] = {};
  bool env_read = false;

  Sink() {
    gethostname(host, sizeof host - 1);
    const char* lvl = std::getenv("SHMEM_LOG_LEVEL");
    Level l;
    if (lvl && parse_level(lvl, &l)) level.store(static_cast<int>(l));
    if (const char* f = std::getenv("SHMEM_LOG_FILE"); f && *f) file = std::fopen(f, "a");
  }
  ~Sink() {
    if (file) std::fclose(file);
  }
};

Sink& sink() {
  static Sink s;
  return s;
}

const char* level_name(Level l) {
  switch (l) {
    case Level::kTrace: return "TRACE";
    case Level::kDebug: return "DEBUG";
    case Level::kInfo: return "INFO";
    case Level::kWarn: return "WARN";
    case Level::kError: return "ERROR";
    case Level::kFatal: return "FATAL";
    case Level::kOff: return "OFF";
  }
  return "?";
}

}  // namespace

bool parse_level(const char* s, Level* out) noexcept {
  static const Level all[] = {Level::kTrace, Level::kDebug, Level::kInfo, Level::kWarn,
                              Level::kError, Level::kFatal, Level::kOff};
  for (Level l : all) {
    if (strcasecmp(s, level_name(l)) == 0) {
      *out = l;
      return true;
    }
  }
  if (strcasecmp(s, "WARNING") == 0) {
    *out = Level::kWarn;
    return true;
  }
  return false;
}

void set_identity(int pe, int npes) noexcept {
  Sink& s = sink();
  std::lock_guard<std::mutex> g(s.mu);
  s.pe = pe;
  s.npes = npes;
}

void configure(const char* level, const char* file_path) noexcept {
  Sink& s = sink();
  std::lock_guard<std::mutex> g(s.mu);
  Level l;
  if (level && parse_level(level, &l)) s.level.store(static_cast<int>(l));
  if (file_path && *file_path) {
    if (s.file) std::fclose(s.file);
    s.file = std::fopen(file_path, "a");
  }
}

bool enabled(Level lvl) noexcept { return static_cast<int>(lvl) >= sink().level.load(std::memory_order_relaxed); }

void vwrite(Level lvl, const char* subsystem, const char* fmt, va_list ap) noexcept {
  Sink& s = sink();
  char msg[2048];
  std::vsnprintf(msg, sizeof msg, fmt, ap);
  char line[2300];
  if (s.pe >= 0)
    std::snprintf(line, sizeof line, "[%s:%d] PE %d/%d %s %s: %s\n", s.host, (int)getpid(), s.pe,
                  s.npes, level_name(lvl), subsystem, msg);
  else
    std::snprintf(line, sizeof line, "[%s:%d] %s %s: %s\n", s.host, (int)getpid(),
                  level_name(lvl), subsystem, msg);
  std::lock_guard<std::mutex> g(s.mu);
  FILE* out = s.file ? s.file : stderr;
  std::fputs(line, out);
  std::fflush(out);
}

void write(Level lvl, const char* subsystem, const char* fmt, ...) noexcept {
  va_list ap;
  va_start(ap, fmt);
  vwrite(lvl, subsystem, fmt, ap);
  va_end(ap);
}

}  // namespace shmem::log
