// util/parent_only_fd.hpp: the marks, and the forked child's handler that replaces the marked
// descriptors with /dev/null.
#include "util/parent_only_fd.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <mutex>

namespace shmem::util::detail {
namespace {

constexpr int kMaxFd = 1 << 20;
constexpr int kWords = kMaxFd / 64;
// One bit per descriptor number (128 KiB of zero pages until used); the highest word ever marked
// bounds the child's scan.
std::atomic<std::uint64_t> g_marks[kWords];
std::atomic<int> g_top{0};

// In the child, alone (the other threads were not copied): only async-signal-safe calls.
void in_forked_child() noexcept {
  const int top = g_top.load(std::memory_order_relaxed);
  int null_fd = -1;
  for (int w = 0; w <= top && w < kWords; ++w) {
    std::uint64_t bits = g_marks[w].exchange(0, std::memory_order_relaxed);
    for (; bits != 0; bits &= bits - 1) {
      const int fd = w * 64 + __builtin_ctzll(bits);
      if (null_fd < 0) null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
      if (null_fd < 0 || ::dup3(null_fd, fd, O_CLOEXEC) < 0) ::close(fd);  // no /dev/null: free it
    }
  }
  if (null_fd >= 0) ::close(null_fd);
}

}  // namespace

void mark_parent_only(int fd) noexcept {
  if (fd < 0 || fd >= kMaxFd) return;
  static std::once_flag once;
  std::call_once(once, [] { pthread_atfork(nullptr, nullptr, &in_forked_child); });
  const int w = fd / 64;
  g_marks[w].fetch_or(std::uint64_t{1} << (fd % 64), std::memory_order_relaxed);
  int top = g_top.load(std::memory_order_relaxed);
  while (w > top && !g_top.compare_exchange_weak(top, w, std::memory_order_relaxed)) {}
}

void unmark_parent_only(int fd) noexcept {
  if (fd < 0 || fd >= kMaxFd) return;
  g_marks[fd / 64].fetch_and(~(std::uint64_t{1} << (fd % 64)), std::memory_order_relaxed);
}

bool marked_parent_only(int fd) noexcept {
  if (fd < 0 || fd >= kMaxFd) return false;
  return (g_marks[fd / 64].load(std::memory_order_relaxed) >> (fd % 64)) & 1;
}

}  // namespace shmem::util::detail
