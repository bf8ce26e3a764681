// util::raise_fd_limit raises the soft open-file limit to a need, never beyond the hard limit
// and never lowering it; fd_limit_advice names the hard limit when it is too low.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <string>

#include "util/fd_limit.hpp"

namespace {

// Restores the process's limit when a test ends.
class KeepLimit {
 public:
  KeepLimit() { ::getrlimit(RLIMIT_NOFILE, &saved_); }
  ~KeepLimit() { ::setrlimit(RLIMIT_NOFILE, &saved_); }
  const rlimit& saved() const { return saved_; }

 private:
  rlimit saved_{};
};

}  // namespace

TEST(FdLimit, RaisesTheSoftLimitToTheNeed) {
  KeepLimit keep;
  rlimit low = keep.saved();
  if (low.rlim_max != RLIM_INFINITY && low.rlim_max < 200) GTEST_SKIP() << "hard limit below 200";
  low.rlim_cur = 100;
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &low), 0);
  const shmem::util::FdLimit l = shmem::util::raise_fd_limit(150);
  EXPECT_TRUE(l.enough);
  EXPECT_EQ(l.soft, 150u);
  rlimit now{};
  ::getrlimit(RLIMIT_NOFILE, &now);
  EXPECT_EQ(now.rlim_cur, 150u);
  EXPECT_TRUE(shmem::util::fd_limit_advice(l, 150, "oshrun", "test").empty());
  // Never lowers it.
  const shmem::util::FdLimit again = shmem::util::raise_fd_limit(120);
  EXPECT_EQ(again.soft, 150u);
}

TEST(FdLimit, StopsAtTheHardLimitAndSaysSo) {
  KeepLimit keep;
  rlimit cap = keep.saved();
  if (cap.rlim_max != RLIM_INFINITY && cap.rlim_max < 300) GTEST_SKIP() << "hard limit below 300";
  // Lowering the hard limit cannot be undone without privileges: only as root (CI runs as root).
  if (::geteuid() != 0) GTEST_SKIP() << "lowering the hard limit needs root to restore it";
  cap.rlim_cur = 100;
  cap.rlim_max = 200;
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &cap), 0);
  const shmem::util::FdLimit l = shmem::util::raise_fd_limit(1000);
  EXPECT_FALSE(l.enough);
  EXPECT_EQ(l.soft, 200u);
  EXPECT_EQ(l.hard, 200u);
  const std::string advice = shmem::util::fd_limit_advice(l, 1000, "oshrun", "5 per PE");
  EXPECT_NE(advice.find("oshrun needs about 1000 open files (5 per PE)"), std::string::npos) << advice;
  EXPECT_NE(advice.find("hard limit is 200 (ulimit -Hn)"), std::string::npos) << advice;
}
