#include "bootstrap/store_fd.hpp"

#include <fcntl.h>
#include <sys/socket.h>

#include <atomic>
#include <charconv>
#include <cstdlib>
#include <string>
#include <string_view>

#include "base/error.hpp"

namespace shmem::bootstrap {

util::UniqueFd take_store_fd() {
  static std::atomic<bool> taken{false};
  const char* text = std::getenv("SHMEM_STORE_FD");
  if (!text || !*text || taken.exchange(true)) return {};
  const std::string_view v(text);
  int fd = -1;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), fd);
  if (ec != std::errc() || p != v.data() + v.size() || fd < 3)
    throw Error(Errc::kInvalidValue, "SHMEM_STORE_FD='" + std::string(v) +
                                         "' is not a descriptor number (it is set by oshrun's host agent)");
  int type = 0;
  socklen_t len = sizeof type;
  const char* bad = nullptr;
  if (::fcntl(fd, F_GETFD) < 0)
    bad = "not open";
  else if (::getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0)
    bad = "not a socket";
  else if (type != SOCK_STREAM)
    bad = "not a stream socket";
  if (bad)
    throw Error(Errc::kInvalidValue, "SHMEM_STORE_FD=" + std::to_string(fd) + ": the descriptor is " + bad +
                                         " (the variable is oshrun's host agent's, for the PE it starts)");
  ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  return util::UniqueFd(fd);
}

}  // namespace shmem::bootstrap
