#pragma once
#include <cstdarg>

namespace shmem::log {

enum class Level : int { kTrace = 0, kDebug = 1, kInfo = 2, kWarn = 3, kError = 4, kFatal = 5, kOff = 6 };

// Lines look like: [host:pid] PE n/N LEVEL subsystem: message
// The sink is the one piece of process-wide state besides the Runtime pointer: it must work
// before any runtime exists (launcher, store server, unit tests) and after it is gone.
void set_identity(int pe, int npes) noexcept;
void configure(const char* level_name, const char* file_path) noexcept;  // nullptr = keep
bool enabled(Level lvl) noexcept;
void write(Level lvl, const char* subsystem, const char* fmt, ...) noexcept
    __attribute__((format(printf, 3, 4)));
void vwrite(Level lvl, const char* subsystem, const char* fmt, va_list ap) noexcept;
// Parses TRACE/DEBUG/INFO/WARN/ERROR/FATAL/OFF (any case); returns false if unknown.
bool parse_level(const char* s, Level* out) noexcept;

}  // namespace shmem::log

#define SHMEM_LOG(lvl, subsys, ...)                                        \
  do {                                                                     \
    if (::shmem::log::enabled(::shmem::log::Level::lvl))                   \
      ::shmem::log::write(::shmem::log::Level::lvl, subsys, __VA_ARGS__);  \
  } while (0)
#define SHMEM_DEBUG_LOG(subsys, ...) SHMEM_LOG(kDebug, subsys, __VA_ARGS__)
#define SHMEM_INFO_LOG(subsys, ...) SHMEM_LOG(kInfo, subsys, __VA_ARGS__)
#define SHMEM_WARN(subsys, ...) SHMEM_LOG(kWarn, subsys, __VA_ARGS__)
#define SHMEM_ERROR(subsys, ...) SHMEM_LOG(kError, subsys, __VA_ARGS__)
