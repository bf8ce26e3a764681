// oshrun / shmemrun: starts N PEs of a program on this host around an in-process bootstrap
// store, forwards their output and signals, and ends the job as soon as one PE fails.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bootstrap/store.hpp"
#include "base/error.hpp"
#include "oshrun/args.hpp"
#include "oshrun/events.hpp"
#include "oshrun/job.hpp"
#include "oshrun/output.hpp"
#include "oshrun/spawn.hpp"
#include "oshrun/supervisor.hpp"
#include "util/unique_fd.hpp"

#ifndef SHMEM_PROJECT_VERSION
#define SHMEM_PROJECT_VERSION "unknown"
#endif

extern char** environ;

namespace oshrun {
namespace {

using shmem::util::UniqueFd;

constexpr int kExitUsage = 2;
constexpr int kExitCannotExec = 127;
constexpr int kExitLaunchFailed = 1;

void say(const std::string& msg) { write_fully(2, "oshrun: " + msg + "\n"); }

// With 0/1/2 closed, a pipe could land on them and dup2 in the child would be a no-op that
// leaves O_CLOEXEC set; occupying them with /dev/null avoids that.
void ensure_std_fds() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
      int n = ::open("/dev/null", O_RDWR);
      if (n >= 0 && n != fd) {
        ::dup2(n, fd);
        ::close(n);
      }
    }
  }
}

// Each PE costs two pipe ends for the whole job (three while starting); large jobs can
// exceed the default soft limit of 1024 descriptors, so raise it up to the hard limit.
void ensure_fd_limit(int npes) {
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0) return;
  rlim_t need = static_cast<rlim_t>(npes) * 3 + 64;
  if (lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur < need) {
    lim.rlim_cur = (lim.rlim_max == RLIM_INFINITY || lim.rlim_max > need) ? need : lim.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &lim);
  }
}

// Ends PEs that were started when the job cannot go on (before supervision began).
void kill_and_reap(const std::vector<SpawnedChild>& children) {
  for (const auto& c : children) ::kill(c.pid, SIGKILL);
  for (const auto& c : children) {
    int st;
    while (::waitpid(c.pid, &st, 0) < 0 && errno == EINTR) {
    }
  }
}

int launch(const Args& args) {
  int exec_err = 0;
  std::string path = resolve_program(args.command[0], &exec_err);
  if (path.empty()) {
    say("cannot execute '" + args.command[0] + "': " + std::strerror(exec_err));
    return kExitCannotExec;
  }

  // Signals become events on a signalfd. They are blocked before any store thread exists,
  // so every thread inherits the mask and none of them takes the signal instead.
  // A signal we were started with ignored (nohup, a background job of a script) stays
  // ignored, for us and for the PEs, which inherit the disposition.
  sigset_t handled, original;
  sigemptyset(&handled);
  sigaddset(&handled, SIGCHLD);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    if (::sigaction(s, nullptr, &old) == 0 && old.sa_handler != SIG_IGN) sigaddset(&handled, s);
  }
  ::sigprocmask(SIG_BLOCK, &handled, &original);
  UniqueFd sigfd(::signalfd(-1, &handled, SFD_CLOEXEC | SFD_NONBLOCK));
  if (!sigfd) {
    say(std::string("signalfd: ") + std::strerror(errno));
    return kExitLaunchFailed;
  }
  // A reader of our output going away must not kill the launcher (and orphan the job).
  ::signal(SIGPIPE, SIG_IGN);

  JobIdentity job;
  StoreEventQueue events;  // outlives the server, whose threads push into it
  std::unique_ptr<shmem::bootstrap::StoreServer> store;
  try {
    job = make_job_identity();
    shmem::bootstrap::StoreServer::Options opts;
    opts.bind_host = "127.0.0.1";
    opts.port = 0;
    opts.tls = store_tls_from_env(job.secret_hex);
    opts.on_rank_lost = [&events](int rank, const std::string& reason) {
      events.push({StoreEvent::Kind::kRankLost, rank, 0, reason});
    };
    opts.on_global_exit = [&events](int rank, int status) {
      events.push({StoreEvent::Kind::kGlobalExit, rank, status, {}});
    };
    store = std::make_unique<shmem::bootstrap::StoreServer>(std::move(opts));
  } catch (const std::exception& e) {
    say(std::string("cannot start the bootstrap store: ") + e.what());
    return kExitLaunchFailed;
  }
  const std::string store_addr = "127.0.0.1:" + std::to_string(store->port());

  ensure_fd_limit(args.npes);
  UniqueFd dev_null(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  CStringArray argv(args.command);
  std::vector<CStringArray> envs;
  envs.reserve(static_cast<std::size_t>(args.npes));
  for (int r = 0; r < args.npes; ++r)
    envs.emplace_back(pe_environment(environ, r, args.npes, store_addr, job));

  std::vector<SpawnedChild> children;
  children.reserve(static_cast<std::size_t>(args.npes));
  try {
    for (int r = 0; r < args.npes; ++r) {
      SpawnRequest req;
      req.path = path;
      req.argv = &argv;
      req.envp = &envs[static_cast<std::size_t>(r)];
      req.stdin_fd = r == 0 ? -1 : dev_null.get();  // only PE 0 reads our stdin
      req.child_sigmask = original;
      children.push_back(spawn_child(req));
    }
  } catch (const std::exception& e) {
    say(std::string("cannot start PE ") + std::to_string(children.size()) + ": " + e.what());
    kill_and_reap(children);
    return kExitLaunchFailed;
  }
  for (auto& c : children) {
    if (int e = wait_exec_result(c)) exec_err = exec_err ? exec_err : e;
  }
  if (exec_err) {
    std::string why = std::strerror(exec_err);
    // The file exists (we checked), so ENOENT from execve means its #! interpreter does not.
    if (exec_err == ENOENT) why += " (the interpreter named on its #! line?)";
    say("cannot execute '" + args.command[0] + "': " + why);
    kill_and_reap(children);
    return kExitCannotExec;
  }

  // Lines stay whole per PE; a last partial line gets a newline when another PE's output
  // could follow it on the same line.
  const bool terminate_partial = args.tag_output || args.npes > 1;
  std::vector<PeProcess> pes;
  pes.reserve(children.size());
  for (std::size_t r = 0; r < children.size(); ++r) {
    std::string prefix = args.tag_output ? "[PE " + std::to_string(r) + "] " : "";
    pes.push_back(PeProcess{static_cast<int>(r), children[r].pid, std::move(children[r].out),
                            std::move(children[r].err), LineForwarder(1, prefix, terminate_partial),
                            LineForwarder(2, prefix, terminate_partial)});
  }
  auto* srv = store.get();
  StoreHooks hooks;
  hooks.unfinished = [srv](int rank) { return srv->rank_connected(rank) && !srv->rank_finalized(rank); };
  Supervisor sup(std::move(pes), sigfd.get(), events, std::move(hooks));
  int code = sup.run();
  store.reset();
  return code;
}

}  // namespace
}  // namespace oshrun

int main(int argc, char** argv) {
  using namespace oshrun;
  ensure_std_fds();
  Args args;
  try {
    args = parse_args(argc, argv);
  } catch (const UsageError& e) {
    std::string msg = std::string("oshrun: ") + e.what() + "\nTry 'oshrun --help' for more information.\n";
    write_fully(2, msg);
    return kExitUsage;
  }
  if (args.help) {
    write_fully(1, usage_text());
    return 0;
  }
  if (args.version) {
    write_fully(1, std::string("oshrun (shmem) ") + SHMEM_PROJECT_VERSION + "\n");
    return 0;
  }
  try {
    return launch(args);
  } catch (const std::exception& e) {
    say(e.what());
    return kExitLaunchFailed;
  }
}
