#pragma once
// Descriptors across a Unix socket (SCM_RIGHTS): one message of bytes with up to a few
// descriptors attached. The receiver's copies are close-on-exec.
#include <cstddef>
#include <span>

#include "util/unique_fd.hpp"

namespace shmem::util {

// Sends `bytes` with `fds` attached (at most 8) in one message. False on error (errno set).
bool send_with_fds(int sock, std::span<const char> bytes, std::span<const int> fds) noexcept;

// Receives exactly `bytes.size()` bytes, the first message carrying the descriptors, which go
// into `fds` in order (the rest of `fds` stays empty). Returns the bytes received: fewer than
// asked on end of stream, a timeout (SO_RCVTIMEO) or an error.
std::size_t recv_with_fds(int sock, std::span<char> bytes, std::span<UniqueFd> fds) noexcept;

}  // namespace shmem::util
