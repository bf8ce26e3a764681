// store_attack HOST PORT SECONDS - a hostile client of a job's bootstrap store, for
// torchrun_hostile.sh: for SECONDS it keeps
//   - a flood of idle connections (opened as fast as the store accepts them, never a byte),
//   - a trickler that sends one byte of a TLS ClientHello every 200 ms,
//   - a stream of connections that send garbage or reset at once,
// and prints what happened to them: how many connections it opened, and after how long the
// store dropped the trickler (it must, within the store's handshake deadline).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

int connect_to(const sockaddr_in& sa) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&sa), sizeof sa) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

bool closed_by_peer(int fd) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, 0) <= 0) return false;
  char b;
  return ::recv(fd, &b, 1, MSG_DONTWAIT | MSG_PEEK) <= 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: store_attack HOST PORT SECONDS\n");
    return 2;
  }
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<std::uint16_t>(std::atoi(argv[2])));
  if (::inet_pton(AF_INET, argv[1], &sa.sin_addr) != 1) return 2;
  const auto until = Clock::now() + std::chrono::seconds(std::atoi(argv[3]));
  rlimit rl{};
  if (::getrlimit(RLIMIT_NOFILE, &rl) == 0) {
    rl.rlim_cur = rl.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &rl);
  }
  // The store may not listen yet.
  int trickler = -1;
  while (trickler < 0 && Clock::now() < until) {
    trickler = connect_to(sa);
    if (trickler < 0) ::usleep(20000);
  }
  if (trickler < 0) {
    std::printf("store_attack: the store never listened\n");
    return 1;
  }
  const auto trickle_start = Clock::now();
  const char hello[] = "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03";
  std::size_t trickled = 0;
  long trickler_dropped_ms = -1;
  std::vector<int> flood;
  long opened = 0, garbage = 0;
  auto next_drip = Clock::now();
  while (Clock::now() < until) {
    if (trickler >= 0 && Clock::now() >= next_drip) {
      if (closed_by_peer(trickler) ||
          ::send(trickler, hello + trickled % (sizeof hello - 1), 1, MSG_NOSIGNAL) != 1) {
        trickler_dropped_ms =
            std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - trickle_start).count();
        ::close(trickler);
        trickler = -1;
      } else {
        ++trickled;
      }
      next_drip = Clock::now() + std::chrono::milliseconds(200);
    }
    // Idle connections, as many as we can hold (the store closes the excess ones).
    for (int i = 0; i < 20; ++i) {
      int fd = connect_to(sa);
      if (fd < 0) break;
      ++opened;
      flood.push_back(fd);
    }
    // Garbage, and a reset.
    int g = connect_to(sa);
    if (g >= 0) {
      ++garbage;
      if (garbage % 2) {
        (void)!::send(g, "GET / HTTP/1.0\r\n\r\n", 18, MSG_NOSIGNAL);
      } else {
        linger l{1, 0};
        ::setsockopt(g, SOL_SOCKET, SO_LINGER, &l, sizeof l);
      }
      ::close(g);
    }
    // Forget the connections the store has closed, so that new ones replace them.
    std::vector<int> still;
    for (int fd : flood)
      if (closed_by_peer(fd))
        ::close(fd);
      else
        still.push_back(fd);
    flood.swap(still);
    ::usleep(10000);
  }
  std::printf("store_attack: opened %ld idle connections (%zu still open at the end), %ld garbage/reset ones\n",
              opened, flood.size(), garbage);
  if (trickler_dropped_ms >= 0)
    std::printf("store_attack: the trickler was dropped after %ld ms (%zu bytes sent)\n", trickler_dropped_ms, trickled);
  else
    std::printf("store_attack: the trickler was never dropped (%zu bytes sent)\n", trickled);
  for (int fd : flood) ::close(fd);
  if (trickler >= 0) ::close(trickler);
  return 0;
}
