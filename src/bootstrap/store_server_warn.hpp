#pragma once
// Rate-limited, aggregated warnings about bad clients of the store: the first of a kind from a
// source is logged at once, the others within the window are counted and summed up in one line
// when it ends ("dropped 1,998 more unauthenticated clients from 127.0.0.1 in the last 10 s").
#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>

namespace shmem::bootstrap {

class WarnLimiter {
 public:
  using Clock = std::chrono::steady_clock;
  explicit WarnLimiter(std::chrono::seconds window = std::chrono::seconds(10)) : window_(window) {}
  ~WarnLimiter() { flush(Clock::time_point::max()); }
  WarnLimiter(const WarnLimiter&) = delete;
  WarnLimiter& operator=(const WarnLimiter&) = delete;

  // `source`: the peer's address without the port; `kind`: a short fixed reason; `line`: the
  // whole warning. `authenticated`: the client had said hello (changes the summary's words).
  void warn(const std::string& source, const std::string& kind, bool authenticated, const std::string& line);
  // Logs the summaries of the windows that ended by `now` (all of them for time_point::max()).
  void flush(Clock::time_point now);
  std::optional<Clock::time_point> next_flush() const;

 private:
  struct Entry {
    Clock::time_point start;
    std::size_t suppressed = 0;
    bool authenticated = false;
  };
  static constexpr std::size_t kMaxEntries = 256;  // beyond: sources share one entry per kind
  std::chrono::seconds window_;
  std::map<std::pair<std::string, std::string>, Entry> entries_;
};

// 1998 -> "1,998".
std::string with_thousands(std::size_t n);

}  // namespace shmem::bootstrap
