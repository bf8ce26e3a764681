#include "util/fd_limit.hpp"

#include <sys/resource.h>

#include <cstdint>

namespace shmem::util {
namespace {

std::uint64_t as_u64(rlim_t v) { return v == RLIM_INFINITY ? UINT64_MAX : static_cast<std::uint64_t>(v); }

}  // namespace

FdLimit raise_fd_limit(std::uint64_t need) noexcept {
  FdLimit out;
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0) return out;
  if (lim.rlim_cur != RLIM_INFINITY && as_u64(lim.rlim_cur) < need) {
    rlimit raised = lim;
    raised.rlim_cur = as_u64(lim.rlim_max) > need ? static_cast<rlim_t>(need) : lim.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) lim = raised;
  }
  out.soft = as_u64(lim.rlim_cur);
  out.hard = as_u64(lim.rlim_max);
  out.enough = out.soft >= need;
  return out;
}

std::string fd_limit_advice(const FdLimit& l, std::uint64_t need, const std::string& who, const std::string& what) {
  if (l.enough) return {};
  return who + " needs about " + std::to_string(need) + " open files (" + what + "), but the hard limit is " +
         std::to_string(l.hard) + " (ulimit -Hn): raise it (limits.conf, systemd LimitNOFILE, or ulimit -Hn as root) " +
         "or the job may fail with \"too many open files\"";
}

}  // namespace shmem::util
