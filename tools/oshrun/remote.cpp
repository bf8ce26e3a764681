#include "oshrun/remote.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "oshrun/output.hpp"
#include "oshrun/spawn.hpp"
#include "util/unique_fd.hpp"

extern char** environ;

namespace oshrun {
namespace {

using shmem::util::UniqueFd;
using Clock = std::chrono::steady_clock;

constexpr std::string_view kBlockMagic = "SHMEM-REMOTE 1 ";
constexpr int kExitStubFailed = 1;

constexpr std::string_view kHostLocalVars[] = {
    "HOSTNAME", "HOST", "PWD", "OLDPWD", "SHLVL", "_", "SSH_CLIENT", "SSH_CONNECTION",
    "SSH_TTY", "SSH_AUTH_SOCK", "DISPLAY", "XAUTHORITY", "TERM"};

std::string_view name_of(std::string_view entry) { return entry.substr(0, entry.find('=')); }

std::string signal_text(int sig) {
  std::string s = "signal " + std::to_string(sig);
  if (const char* name = ::strsignal(sig)) s += std::string(" (") + name + ")";
  return s;
}

// Reads exactly n bytes from fd 0 (blocking). False at EOF or on an error.
bool read_exact(char* buf, std::size_t n) {
  std::size_t got = 0;
  while (got < n) {
    ssize_t r = ::read(0, buf + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    got += static_cast<std::size_t>(r);
  }
  return true;
}

// What the stub was told on its command line.
struct StubArgs {
  int rank = -1;
  std::string host;
  std::vector<std::string> command;
};

std::optional<StubArgs> parse_stub_args(int argc, char** argv) {
  StubArgs a;
  int i = 2;
  for (; i + 1 < argc; i += 2) {
    std::string_view opt = argv[i];
    if (opt == "--") break;
    if (opt == "--pe") a.rank = std::atoi(argv[i + 1]);
    else if (opt == "--host") a.host = argv[i + 1];
    else return std::nullopt;
  }
  if (i >= argc || std::string_view(argv[i]) != "--") return std::nullopt;
  for (++i; i < argc; ++i) a.command.emplace_back(argv[i]);
  if (a.command.empty() || a.command[0].empty() || a.command[0][0] != '/') return std::nullopt;
  return a;
}

// The PE's environment: the launcher's block, except that host-local variables keep this
// host's values and PWD is the working directory.
std::vector<std::string> merge_environment(std::vector<std::string> block_env, const std::string& cwd) {
  std::vector<std::string> env;
  for (auto& e : block_env)
    if (!is_host_local_variable(name_of(e))) env.push_back(std::move(e));
  for (char** e = environ; e && *e; ++e) {
    std::string_view name = name_of(*e);
    if (is_host_local_variable(name) && name != "PWD") env.emplace_back(*e);
  }
  env.push_back("PWD=" + cwd);
  return env;
}

}  // namespace

std::string shell_quote(std::string_view word) {
  std::string out = "'";
  for (char c : word) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  out += '\'';
  return out;
}

std::string remote_command_line(const std::string& oshrun_path, int rank, const std::string& host,
                                const std::vector<std::string>& command) {
  std::string line = shell_quote(oshrun_path) + " " + std::string(kRemoteExecOption) + " --pe " +
                     std::to_string(rank) + " --host " + shell_quote(host) + " --";
  for (const auto& w : command) line += " " + shell_quote(w);
  return line;
}

std::string encode_remote_block(const std::string& cwd, const std::vector<std::string>& env) {
  std::string payload = cwd;
  payload += '\0';
  for (const auto& e : env) {
    payload += e;
    payload += '\0';
  }
  return std::string(kBlockMagic) + std::to_string(payload.size()) + "\n" + payload;
}

std::vector<std::string> split_agent(std::string_view text) {
  std::vector<std::string> words;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    std::size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t') ++i;
    if (i > start) words.emplace_back(text.substr(start, i - start));
  }
  return words;
}

bool is_host_local_variable(std::string_view name) {
  return std::find(std::begin(kHostLocalVars), std::end(kHostLocalVars), name) != std::end(kHostLocalVars);
}

std::string describe_remote_status(int st) {
  if (WIFSIGNALED(st))
    return "lost: its agent was killed by " + signal_text(WTERMSIG(st));
  if (!WIFEXITED(st)) return "ended with wait status " + std::to_string(st);
  int code = WEXITSTATUS(st);
  if (code == 255)
    return "lost: the agent exited with status 255 (it could not reach the host or start "
           "the PE there; its message, if any, is above)";
  if (code > 128 && code <= 128 + 64) return "killed by " + signal_text(code - 128);
  return "exited with status " + std::to_string(code);
}

int remote_exec_main(int argc, char** argv) {
  auto args = parse_stub_args(argc, argv);
  if (!args) {
    write_fully(2, "oshrun --remote-exec: bad arguments (this mode is oshrun's own, for PEs on "
                   "other hosts: --remote-exec --pe R --host H -- /absolute/program [args...])\n");
    return kExitStubFailed;
  }
  const std::string who =
      "oshrun (PE " + std::to_string(args->rank) + " on host " + args->host + "): ";
  auto say = [&](const std::string& msg) { write_fully(2, who + msg + "\n"); };

  // The block: a header line (bounded), then the payload.
  std::string header;
  for (char c = 0; header.size() < 64;) {
    if (!read_exact(&c, 1)) break;
    if (c == '\n') break;
    header += c;
  }
  std::size_t n = 0;
  bool ok = header.starts_with(kBlockMagic);
  if (ok) {
    std::string count = header.substr(kBlockMagic.size());
    char* end = nullptr;
    unsigned long long v = std::strtoull(count.c_str(), &end, 10);
    ok = !count.empty() && *end == '\0' && v > 0 && v <= kMaxRemoteBlock;
    n = static_cast<std::size_t>(v);
  }
  std::string payload(n, '\0');
  if (!ok || !read_exact(payload.data(), n) || payload.back() != '\0') {
    say("did not receive the job's environment on stdin (is this oshrun the same version as "
        "the launcher's?)");
    return kExitStubFailed;
  }
  std::vector<std::string> entries;
  for (std::size_t start = 0; start < payload.size();) {
    std::size_t nul = payload.find('\0', start);
    entries.emplace_back(payload.substr(start, nul - start));
    start = nul + 1;
  }
  std::memset(payload.data(), 0, payload.size());  // it held the secret
  const std::string cwd = entries.front();
  entries.erase(entries.begin());
  if (::chdir(cwd.c_str()) != 0) {
    say("cannot change to the launcher's working directory " + cwd + ": " + std::strerror(errno) +
        " (PEs on other hosts run in the same directory: a shared filesystem is assumed)");
    return kExitStubFailed;
  }

  sigset_t handled, original;
  sigemptyset(&handled);
  for (int s : {SIGCHLD, SIGTERM, SIGINT, SIGHUP}) sigaddset(&handled, s);
  ::sigprocmask(SIG_BLOCK, &handled, &original);
  UniqueFd sigfd(::signalfd(-1, &handled, SFD_CLOEXEC | SFD_NONBLOCK));
  if (!sigfd) {
    say(std::string("signalfd: ") + std::strerror(errno));
    return kExitStubFailed;
  }
  ::signal(SIGPIPE, SIG_IGN);

  UniqueFd dev_null(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  CStringArray pe_argv(args->command);
  CStringArray pe_env(merge_environment(std::move(entries), cwd));
  SpawnRequest req;
  req.path = args->command[0];
  req.argv = &pe_argv;
  req.envp = &pe_env;
  req.stdin_fd = dev_null.get();
  req.capture_output = false;
  req.child_sigmask = original;
  SpawnedChild child;
  try {
    child = spawn_child(req);
  } catch (const std::exception& e) {
    say(std::string("cannot start the PE: ") + e.what());
    return kExitStubFailed;
  }
  if (int e = wait_exec_result(child)) {
    say("cannot execute '" + args->command[0] + "': " + std::strerror(e));
    int st;
    while (::waitpid(child.pid, &st, 0) < 0 && errno == EINTR) {
    }
    return e == ENOENT ? 127 : 126;
  }

  bool control_open = true;
  std::string line;
  std::optional<Clock::time_point> kill_at;
  for (;;) {
    pollfd fds[2] = {{sigfd.get(), POLLIN, 0}, {control_open ? 0 : -1, POLLIN, 0}};
    int timeout_ms = -1;
    if (kill_at) {
      auto left = std::chrono::ceil<std::chrono::milliseconds>(*kill_at - Clock::now()).count();
      timeout_ms = static_cast<int>(std::max<long long>(left, 0));
    }
    ::poll(fds, 2, timeout_ms);
    if (kill_at && Clock::now() >= *kill_at) {
      ::kill(child.pid, SIGKILL);
      kill_at.reset();
    }
    if (fds[1].revents) {
      char buf[512];
      ssize_t r = ::read(0, buf, sizeof buf);
      if (r > 0) {
        for (ssize_t k = 0; k < r; ++k) {
          if (buf[k] != '\n') {
            if (line.size() < 64) line += buf[k];
            continue;
          }
          if (line.starts_with("signal ")) {
            int sig = std::atoi(line.c_str() + 7);
            if (sig > 0 && sig < NSIG) ::kill(child.pid, sig);
          }
          line.clear();
        }
      } else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
        // The launcher (or the agent between us) is gone: nobody would end this PE.
        control_open = false;
        ::kill(child.pid, SIGTERM);
        kill_at = Clock::now() + kRemoteKillDelay;
      }
    }
    if (fds[0].revents) {
      signalfd_siginfo si;
      while (::read(sigfd.get(), &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
        int sig = static_cast<int>(si.ssi_signo);
        if (sig != SIGCHLD) ::kill(child.pid, sig);  // as a shell that exec'ed the PE would
      }
      int st = 0;
      pid_t p = ::waitpid(child.pid, &st, WNOHANG);
      if (p == child.pid) {
        if (WIFEXITED(st)) return WEXITSTATUS(st);
        if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
        return kExitStubFailed;
      }
    }
  }
}

}  // namespace oshrun
