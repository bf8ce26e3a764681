// util/socket.hpp: linger_close ends a connection in order (FIN after the bytes sent) even when
// the peer's input was left unread, where a plain close resets it.
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <string>
#include <vector>

#include "util/socket.hpp"

namespace shmem::util {
namespace {

using namespace std::chrono_literals;

struct Pair {
  UniqueFd client, server;
};

// A loopback connection where the client sent bytes the server never reads and the server
// sent a reply.
Pair unread_input_then_reply() {
  UniqueFd listener = tcp_listen("127.0.0.1", 0);
  Pair p;
  std::string err;
  p.client = tcp_connect("127.0.0.1", local_port(listener.get()), 5000ms, &err);
  EXPECT_TRUE(p.client) << err;
  p.server = UniqueFd(::accept(listener.get(), nullptr, nullptr));
  EXPECT_TRUE(p.server);
  const std::string unread(10000, 'x');
  EXPECT_TRUE(send_all(p.client.get(), unread.data(), unread.size()).ok());
  EXPECT_TRUE(wait_readable(p.server.get(), 5000));  // it arrived, and stays unread
  EXPECT_TRUE(send_all(p.server.get(), "reply", 5).ok());
  return p;
}

// What the client reads after the reply: 0 at an orderly end, -1 with errno at a reset.
ssize_t after_reply(int fd, int* err) {
  set_io_timeouts(fd, 5000ms, 5000ms);
  char reply[5];
  EXPECT_TRUE(recv_all(fd, reply, sizeof reply).ok());
  EXPECT_EQ(std::string(reply, sizeof reply), "reply");
  char more;
  const ssize_t r = ::recv(fd, &more, 1, 0);
  *err = errno;
  return r;
}

TEST(LingerClose, EndsInOrderWithInputUnread) {
  Pair p = unread_input_then_reply();
  std::vector<UniqueFd> fds;
  fds.push_back(std::move(p.server));
  linger_close(std::move(fds), 5000ms);
  int err = 0;
  EXPECT_EQ(after_reply(p.client.get(), &err), 0) << "errno " << err;
}

TEST(LingerClose, APlainCloseWouldResetIt) {
  // The case linger_close exists for: this kernel resets a connection closed with input unread.
  Pair p = unread_input_then_reply();
  p.server.reset();
  int err = 0;
  EXPECT_EQ(after_reply(p.client.get(), &err), -1);
  EXPECT_EQ(err, ECONNRESET);
}

}  // namespace
}  // namespace shmem::util
