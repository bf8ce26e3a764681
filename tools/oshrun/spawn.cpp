#include "oshrun/spawn.hpp"

#include <errno.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <tuple>

#include "base/error.hpp"

namespace oshrun {
namespace {

using shmem::util::UniqueFd;

int check_executable(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return errno;
  if (S_ISDIR(st.st_mode)) return EACCES;
  if (::access(path.c_str(), X_OK) != 0) return errno;
  return 0;
}

std::pair<UniqueFd, UniqueFd> make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw shmem::Error(shmem::Errc::kInternal, std::string("pipe2: ") + std::strerror(errno));
  return {UniqueFd(fds[0]), UniqueFd(fds[1])};
}

[[noreturn]] void pty_error(const char* what) {
  throw shmem::Error(shmem::Errc::kInternal, std::string(what) + ": " + std::strerror(errno));
}

// A pseudo-terminal for a PE's stdout: (master, slave). The slave passes the PE's bytes
// unchanged (no output processing: "\n" stays "\n"; no echo) and has the size of our own
// terminal, so that the PE formats for it.
std::pair<UniqueFd, UniqueFd> make_pty() {
  UniqueFd master(::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (!master) pty_error("posix_openpt");
  if (::grantpt(master.get()) != 0 || ::unlockpt(master.get()) != 0) pty_error("grantpt/unlockpt");
  char name[128];
  if (::ptsname_r(master.get(), name, sizeof name) != 0) pty_error("ptsname_r");
  UniqueFd slave(::open(name, O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (!slave) pty_error("opening the PE's pseudo-terminal");
  termios t;
  if (::tcgetattr(slave.get(), &t) == 0) {
    t.c_oflag &= ~static_cast<tcflag_t>(OPOST);
    t.c_lflag &= ~static_cast<tcflag_t>(ECHO | ECHONL | ICANON | ISIG);
    ::tcsetattr(slave.get(), TCSANOW, &t);
  }
  winsize ws;
  if (::ioctl(1, TIOCGWINSZ, &ws) == 0) ::ioctl(slave.get(), TIOCSWINSZ, &ws);
  return {std::move(master), std::move(slave)};
}

[[noreturn]] void report_exec_failure(int status_w, int e) {
  ssize_t r = ::write(status_w, &e, sizeof e);
  (void)r;
  ::_exit(127);
}

// Child side of the fork: only async-signal-safe calls from here on.
[[noreturn]] void exec_child(const SpawnRequest& req, pid_t launcher, int out_w, int err_w,
                             int status_w) {
  auto fail = [status_w](int e) { report_exec_failure(status_w, e); };
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) fail(errno);
  // The launcher may have died between fork and prctl; then nobody would kill us later.
  if (::getppid() != launcher) ::_exit(137);
  if (req.new_process_group && ::setpgid(0, 0) != 0) fail(errno);
  if (req.stdin_fd >= 0 && ::dup2(req.stdin_fd, 0) < 0) fail(errno);
  if (out_w >= 0 && ::dup2(out_w, 1) < 0) fail(errno);
  if (err_w >= 0 && ::dup2(err_w, 2) < 0) fail(errno);
  if (req.inherit_fd >= 0 && ::fcntl(req.inherit_fd, F_SETFD, 0) != 0) fail(errno);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  ::sigaction(SIGPIPE, &dfl, nullptr);
  ::sigprocmask(SIG_SETMASK, &req.child_sigmask, nullptr);
  ::execve(req.path.c_str(), req.argv->data(), req.envp->data());
  report_exec_failure(status_w, errno);
}

}  // namespace

std::string resolve_program(const std::string& name, int* err) {
  *err = 0;
  if (name.empty()) {
    *err = ENOENT;
    return "";
  }
  if (name.find('/') != std::string::npos) {
    *err = check_executable(name);
    return *err ? "" : name;
  }
  const char* path_env = std::getenv("PATH");
  std::string path = path_env ? path_env : "/usr/local/bin:/usr/bin:/bin";
  int first_err = ENOENT;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
    int e = check_executable(candidate);
    if (e == 0) return candidate;
    if (e == EACCES && first_err == ENOENT) first_err = EACCES;  // as execvp reports it
    start = end + 1;
  }
  *err = first_err;
  return "";
}

CStringArray::CStringArray(std::vector<std::string> items) : items_(std::move(items)) {
  ptrs_.reserve(items_.size() + 1);
  for (auto& s : items_) ptrs_.push_back(s.data());
  ptrs_.push_back(nullptr);
}

SpawnedChild spawn_child(const SpawnRequest& req) {
  UniqueFd out_r, out_w, err_r, err_w;
  if (req.capture_output) {
    std::tie(out_r, out_w) = req.stdout_pty ? make_pty() : make_pipe();
    if (req.capture_stderr) std::tie(err_r, err_w) = make_pipe();
  }
  auto [st_r, st_w] = make_pipe();
  pid_t launcher = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0)
    throw shmem::Error(shmem::Errc::kInternal, std::string("fork: ") + std::strerror(errno));
  if (pid == 0) exec_child(req, launcher, out_w.get(), err_w.get(), st_w.get());
  if (out_r) {
    ::fcntl(out_r.get(), F_SETFL, O_NONBLOCK);
    if (err_r) ::fcntl(err_r.get(), F_SETFL, O_NONBLOCK);
  }
  SpawnedChild c;
  c.pid = pid;
  c.out = std::move(out_r);
  c.err = std::move(err_r);
  c.exec_status = std::move(st_r);
  return c;  // the write ends close here, so EOF on out/err means the child side closed
}

int wait_exec_result(SpawnedChild& child) {
  int e = 0;
  std::size_t got = 0;
  while (got < sizeof e) {
    ssize_t r = ::read(child.exec_status.get(), reinterpret_cast<char*>(&e) + got, sizeof e - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<std::size_t>(r);
  }
  child.exec_status.reset();
  return got == sizeof e ? e : 0;
}

}  // namespace oshrun
