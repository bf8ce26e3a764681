// util/parent_only_fd.hpp: a forked child finds /dev/null where the parent holds a ParentOnlyFd,
// and the parent's descriptors are untouched.
#include "util/parent_only_fd.hpp"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <utility>

namespace shmem::util {
namespace {

bool is_socket(int fd) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode);
}
bool is_null(int fd) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 && S_ISCHR(st.st_mode);
}

std::pair<UniqueFd, UniqueFd> socket_pair() {
  int sv[2];
  EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  return {UniqueFd(sv[0]), UniqueFd(sv[1])};
}

// Runs `child` in a forked child; its return value is the child's exit status.
template <class F>
int in_child(F child) {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(child());
  int status = 0;
  EXPECT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status));
  return WEXITSTATUS(status);
}

TEST(ParentOnlyFd, AForkedChildGetsDevNullUnderTheSameNumber) {
  auto [a, b] = socket_pair();
  ParentOnlyFd mine(std::move(a));
  const UniqueFd& theirs = b;  // a plain UniqueFd: inherited as it is
  ASSERT_TRUE(detail::marked_parent_only(mine.get()));
  ASSERT_FALSE(detail::marked_parent_only(theirs.get()));
  const int m = mine.get(), t = theirs.get();
  EXPECT_EQ(in_child([&] { return (is_null(m) ? 0 : 1) | (is_socket(t) ? 0 : 2); }), 0);
  EXPECT_TRUE(is_socket(m));  // the parent's own is still the socket
  // The child's copy was not the connection: the parent's end still talks to the other.
  ASSERT_EQ(::write(t, "x", 1), 1);
  char c = 0;
  EXPECT_EQ(::read(m, &c, 1), 1);
  EXPECT_EQ(c, 'x');
}

TEST(ParentOnlyFd, AChildForkedWhileTheChildOfAChildHoldsItSeesDevNullToo) {
  auto [a, b] = socket_pair();
  ParentOnlyFd mine(std::move(a));
  const int m = mine.get();
  // The child's handler cleared its marks: a grandchild inherits /dev/null, not a mark.
  EXPECT_EQ(in_child([&] { return in_child([&] { return is_null(m) ? 0 : 1; }) == 0 && is_null(m) ? 0 : 1; }), 0);
}

TEST(ParentOnlyFd, ClosingOrReleasingUnmarks) {
  auto [a, b] = socket_pair();
  ParentOnlyFd mine(std::move(a));
  const int m = mine.get();
  mine.reset();
  EXPECT_FALSE(detail::marked_parent_only(m));  // its number may now be anyone's

  auto [c, d] = socket_pair();
  ParentOnlyFd other(std::move(c));
  const int o = other.get();
  UniqueFd taken(other.release());
  EXPECT_FALSE(detail::marked_parent_only(o));
  EXPECT_EQ(in_child([&] { return is_socket(o) ? 0 : 1; }), 0);  // released: inherited as it is
}

TEST(ParentOnlyFd, MovesKeepTheMark) {
  auto [a, b] = socket_pair();
  ParentOnlyFd first(std::move(a));
  const int m = first.get();
  ParentOnlyFd second(std::move(first));
  EXPECT_FALSE(first);  // NOLINT(bugprone-use-after-move): moved-from is empty
  EXPECT_TRUE(detail::marked_parent_only(m));
  ParentOnlyFd third;
  third = std::move(second);
  EXPECT_TRUE(detail::marked_parent_only(m));
  third = UniqueFd();  // closes it
  EXPECT_FALSE(detail::marked_parent_only(m));
}

}  // namespace
}  // namespace shmem::util
