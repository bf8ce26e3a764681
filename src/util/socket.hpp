#pragma once
// Small TCP helpers over UniqueFd: listen, connect with a deadline, keepalive, blocking I/O that
// never raises SIGPIPE, and address formatting for log lines.
#include <sys/socket.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "util/unique_fd.hpp"

namespace shmem::util {

// Outcome of a blocking read or write of an exact number of bytes.
struct IoResult {
  enum Status { kOk, kEof, kTimeout, kError };
  Status status = kOk;
  std::size_t done = 0;  // bytes transferred before the outcome
  int err = 0;           // errno for kError
  bool ok() const noexcept { return status == kOk; }
  std::string describe() const;  // "connection closed", "timed out", strerror, ...
};

// A listening socket on host:port (port 0 = ephemeral), close-on-exec, SO_REUSEADDR.
// Throws Error(kBootstrap) naming the address on failure.
UniqueFd tcp_listen(const std::string& host, std::uint16_t port, int backlog = 512);

// One connection attempt to host:port bounded by `timeout` (each resolved address is tried).
// Returns an empty fd on failure and describes why in *err.
UniqueFd tcp_connect(const std::string& host, std::uint16_t port, std::chrono::milliseconds timeout,
                     std::string* err);

std::uint16_t local_port(int fd);   // throws Error(kBootstrap)
std::string peer_address(int fd);   // "1.2.3.4:5", "[::1]:5", or "unknown peer"
std::string local_address(int fd);  // same format
std::string format_address(const sockaddr* sa, socklen_t len);

// SO_RCVTIMEO / SO_SNDTIMEO; zero means block forever.
void set_io_timeouts(int fd, std::chrono::milliseconds recv, std::chrono::milliseconds send) noexcept;
void set_nodelay(int fd) noexcept;
// TCP keepalive and user timeout: a peer host that stays silent for `host_timeout`
// (SHMEM_HOST_TIMEOUT) is given up; shorter outages are survived. The bootstrap store sets it
// on both ends of every connection.
void set_keepalive(int fd, std::chrono::seconds host_timeout) noexcept;

// Blocking exact-size I/O (retries EINTR; send uses MSG_NOSIGNAL). A receive timeout set with
// set_io_timeouts shows up as kTimeout.
IoResult send_all(int fd, const void* buf, std::size_t n) noexcept;
IoResult recv_all(int fd, void* buf, std::size_t n) noexcept;

// Waits until fd is readable or hung up; timeout < 0 waits forever. False on timeout.
bool wait_readable(int fd, int timeout_ms) noexcept;
// Non-blocking check whether the peer closed or reset the connection.
bool peer_hung_up(int fd) noexcept;

// Closes TCP connections without losing what was sent on them: a close with input unread
// resets the connection, and the kernel then drops the bytes the network has not delivered
// yet (a lossy link's last replies). Each gets a FIN now; then, reading and dropping what
// arrives, each stays open until the peer has acknowledged every byte sent (SIOCOUTQ 0), hung
// up or reset, or `bound` has passed for all of them. Not-TCP descriptors are just closed.
void linger_close(std::vector<UniqueFd> fds, std::chrono::milliseconds bound) noexcept;

}  // namespace shmem::util
