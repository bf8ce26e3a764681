#include "bootstrap/store_server_warn.hpp"

#include "base/log.hpp"

namespace shmem::bootstrap {

std::string with_thousands(std::size_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

void WarnLimiter::warn(const std::string& source, const std::string& kind, bool authenticated, const std::string& line) {
  const Clock::time_point now = Clock::now();
  flush(now);
  std::string src = source;
  if (entries_.size() >= kMaxEntries && !entries_.count({src, kind})) src = "several sources";
  auto [it, fresh] = entries_.try_emplace({src, kind});
  if (fresh) {
    it->second.start = now;
    it->second.authenticated = authenticated;
    SHMEM_WARN("store", "%s", line.c_str());
    return;
  }
  ++it->second.suppressed;
}

void WarnLimiter::flush(Clock::time_point now) {
  for (auto it = entries_.begin(); it != entries_.end();) {
    const Entry& e = it->second;
    if (now != Clock::time_point::max() && now - e.start < window_) {
      ++it;
      continue;
    }
    if (e.suppressed)
      SHMEM_WARN("store", "dropped %s more %s from %s in the last %lld s (%s)", with_thousands(e.suppressed).c_str(),
                 e.authenticated ? (e.suppressed == 1 ? "client" : "clients")
                                 : (e.suppressed == 1 ? "unauthenticated client" : "unauthenticated clients"),
                 it->first.first.c_str(), static_cast<long long>(window_.count()), it->first.second.c_str());
    it = entries_.erase(it);
  }
}

std::optional<WarnLimiter::Clock::time_point> WarnLimiter::next_flush() const {
  std::optional<Clock::time_point> t;
  for (const auto& [key, e] : entries_)
    if (!t || e.start + window_ < *t) t = e.start + window_;
  return t;
}

}  // namespace shmem::bootstrap
