#include "oshrun/host_agent.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "oshrun/agent_link.hpp"
#include "oshrun/agent_protocol.hpp"
#include "oshrun/agent_store_relay.hpp"
#include "oshrun/output.hpp"
#include "oshrun/remote.hpp"
#include "oshrun/spawn.hpp"
#include "util/fd_limit.hpp"
#include "util/unique_fd.hpp"

extern char** environ;

namespace oshrun {
namespace {

using shmem::util::UniqueFd;
using Clock = std::chrono::steady_clock;

constexpr int kExitAgentFailed = 1;
// After the launcher is gone: SIGTERM, then SIGKILL this much later, then give up.
constexpr std::chrono::milliseconds kKillDelay{1000};
constexpr std::chrono::milliseconds kGiveUpDelay{1000};
// After the store's host went silent: the launcher, which sees the same silence from its side,
// gets this long to end the job itself, naming this host (its grace for a remote PE's status
// is 1 s), before this agent ends its PEs.
constexpr std::chrono::milliseconds kSilentStoreGrace{2000};

std::string_view name_of(std::string_view entry) { return entry.substr(0, entry.find('=')); }

struct AgentArgs {
  std::string host;
  std::vector<std::string> command;
};

std::optional<AgentArgs> parse_agent_args(int argc, char** argv) {
  AgentArgs a;
  int i = 2;
  for (; i + 1 < argc; i += 2) {
    std::string_view opt = argv[i];
    if (opt == "--") break;
    if (opt == "--host")
      a.host = argv[i + 1];
    else
      return std::nullopt;
  }
  if (i >= argc || std::string_view(argv[i]) != "--") return std::nullopt;
  for (++i; i < argc; ++i) a.command.emplace_back(argv[i]);
  if (a.command.empty() || a.command[0].empty() || a.command[0][0] != '/') return std::nullopt;
  return a;
}

// A PE's environment: the launcher's, except that host-local variables keep this host's
// values, PWD is the working directory, and SHMEM_PE is its rank.
std::vector<std::string> pe_env(const std::vector<std::string>& job_env, const std::string& cwd, int rank,
                                int store_fd) {
  std::vector<std::string> env;
  for (const auto& e : job_env)
    if (!is_host_local_variable(name_of(e))) env.push_back(e);
  for (char** e = environ; e && *e; ++e) {
    std::string_view name = name_of(*e);
    if (is_host_local_variable(name) && name != "PWD") env.emplace_back(*e);
  }
  env.push_back("PWD=" + cwd);
  env.push_back("SHMEM_PE=" + std::to_string(rank));
  if (store_fd >= 0) env.push_back("SHMEM_STORE_FD=" + std::to_string(store_fd));  // its end of our relay
  return env;
}

struct LocalPe {
  int rank = -1;
  pid_t pid = -1;
  UniqueFd out, err;
  bool exited = false;
};

class HostAgent {
 public:
  HostAgent(std::string host, std::vector<std::string> command)
      : host_(std::move(host)), command_(std::move(command)) {}
  int run();

 private:
  void say(const std::string& msg) const { write_fully(2, "oshrun (host " + host_ + "): " + msg + "\n"); }
  void send(const std::string& frame);
  void start_pes(const AgentJob& job, const sigset_t& mask);
  void start_agents(const AgentJob& job, const sigset_t& mask);
  void lose_subtree(const std::vector<HostPlan>& hosts, const std::string& why, int code);
  void read_pe(LocalPe& pe, bool is_err, bool drain);
  void on_control();
  void on_signals();
  void reap();
  void signal_all(int sig, int except_rank);
  void connection_lost();
  void end_pes();
  void on_relay_end();
  bool open_relay(const AgentJob& job);
  bool finished() const;

  std::string host_;
  std::vector<std::string> command_;
  std::vector<LocalPe> pes_;
  std::vector<std::unique_ptr<AgentLink>> links_;
  std::unique_ptr<CStringArray> agent_env_;
  // This host's PEs reach the store through it: one connection for all of them.
  std::unique_ptr<shmem::bootstrap::StoreRelay> relay_;
  bool told_to_end_ = false;  // the launcher signalled the PEs (the job is ending anyway)
  UniqueFd sigfd_;
  bool up_ok_ = true;         // our stdout still reaches the parent
  bool control_open_ = true;  // our stdin
  std::string control_line_;
  std::optional<Clock::time_point> kill_at_, give_up_at_, end_pes_at_;
};

void HostAgent::send(const std::string& frame) {
  if (!up_ok_) return;
  std::string_view data = frame;
  while (!data.empty()) {
    ssize_t w = ::write(1, data.data(), data.size());
    if (w > 0) {
      data.remove_prefix(static_cast<std::size_t>(w));
    } else if (w < 0 && errno == EINTR) {
      continue;
    } else if (w < 0 && errno == EAGAIN) {
      pollfd p{1, POLLOUT, 0};
      ::poll(&p, 1, -1);
    } else {
      up_ok_ = false;  // the launcher is gone: nobody would end these PEs
      connection_lost();
      return;
    }
  }
}

void HostAgent::start_pes(const AgentJob& job, const sigset_t& mask) {
  UniqueFd dev_null(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  CStringArray argv(command_);
  for (int rank : job.ranks) {
    UniqueFd store_end;
    try {
      if (relay_) store_end = relay_->add(rank);
    } catch (const std::exception& ex) {
      say("cannot start PE " + std::to_string(rank) + ": " + ex.what());
      send(encode_frame(FrameType::kExit, rank, W_EXITCODE(kExitAgentFailed, 0)));
      LocalPe failed;
      failed.rank = rank;
      failed.exited = true;
      pes_.push_back(std::move(failed));
      continue;
    }
    CStringArray env(pe_env(job.env, job.cwd, rank, store_end ? store_end.get() : -1));
    SpawnRequest req;
    req.path = command_[0];
    req.argv = &argv;
    req.envp = &env;
    req.stdin_fd = dev_null.get();  // only a PE 0 on oshrun's host reads its stdin
    req.child_sigmask = mask;
    req.inherit_fd = store_end ? store_end.get() : -1;
    LocalPe pe;
    pe.rank = rank;
    try {
      SpawnedChild c = spawn_child(req);
      pe.pid = c.pid;
      if (int e = wait_exec_result(c))
        say("cannot execute '" + command_[0] + "' for PE " + std::to_string(rank) + ": " + std::strerror(e));
      pe.out = std::move(c.out);
      pe.err = std::move(c.err);
    } catch (const std::exception& ex) {
      say("cannot start PE " + std::to_string(rank) + ": " + ex.what());
      send(encode_frame(FrameType::kExit, rank, W_EXITCODE(kExitAgentFailed, 0)));
      pe.exited = true;
    }
    pes_.push_back(std::move(pe));
  }
}

void HostAgent::lose_subtree(const std::vector<HostPlan>& hosts, const std::string& why, int code) {
  for (const auto& h : hosts)
    for (int r : h.ranks)
      send(encode_frame(FrameType::kLost, r, code,
                        "lost: the agent on host " + host_ + " could not start host " + h.host + ": " + why));
}

void HostAgent::start_agents(const AgentJob& job, const sigset_t& mask) {
  if (job.subtree.empty()) return;
  AgentStart how;
  how.rsh = job.rsh;
  how.command = command_;
  how.child_sigmask = mask;
  int e = 0;
  how.rsh_path = job.rsh.empty() ? "" : resolve_program(job.rsh[0], &e);
  if (how.rsh_path.empty()) {
    lose_subtree(
        job.subtree,
        "cannot execute '" + (job.rsh.empty() ? std::string() : job.rsh[0]) + "': " + std::strerror(e ? e : ENOENT),
        127);
    return;
  }
  // Our own environment: the agent runs from this host as a user would run it here.
  std::vector<std::string> env;
  for (char** p = environ; p && *p; ++p) env.emplace_back(*p);
  agent_env_ = std::make_unique<CStringArray>(std::move(env));
  how.env = agent_env_.get();
  for (const TreeBranch& b : split_tree(job.subtree, job.fanout)) {
    std::vector<HostPlan> below{b.host};
    below.insert(below.end(), b.subtree.begin(), b.subtree.end());
    try {
      auto link = std::make_unique<AgentLink>(how, b, job);
      if (int err = link->wait_exec()) {
        lose_subtree(below, "cannot execute '" + how.rsh_path + "': " + std::strerror(err), 127);
        continue;  // it exited 127; its zombie is reaped below (not one of ours any more)
      }
      links_.push_back(std::move(link));
    } catch (const std::exception& ex) {
      lose_subtree(below, ex.what(), 1);
    }
  }
}

void HostAgent::read_pe(LocalPe& pe, bool is_err, bool drain) {
  UniqueFd& fd = is_err ? pe.err : pe.out;
  char buf[65536];
  int reads_left = 64;
  while (fd) {
    ssize_t r = ::read(fd.get(), buf, sizeof buf);
    if (r > 0) {
      send(encode_frame(is_err ? FrameType::kStderr : FrameType::kStdout, pe.rank, 0,
                        std::string_view(buf, static_cast<std::size_t>(r))));
      if (!drain) return;
      if (--reads_left > 0) continue;
      r = 0;
    }
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 && errno == EAGAIN && !drain) return;
    fd.reset();
    send(encode_frame(is_err ? FrameType::kStderrEnd : FrameType::kStdoutEnd, pe.rank, 0));
  }
}

void HostAgent::signal_all(int sig, int except_rank) {
  for (auto& pe : pes_)
    if (!pe.exited && pe.rank != except_rank) ::kill(pe.pid, sig);
  for (auto& l : links_) l->send_signal(sig, except_rank);
}

void HostAgent::connection_lost() {
  control_open_ = false;
  if (!kill_at_ && !give_up_at_)
    for (auto& l : links_) l->close_control();
  end_pes();
}

void HostAgent::end_pes() {
  if (kill_at_ || give_up_at_) return;
  for (auto& pe : pes_)
    if (!pe.exited) ::kill(pe.pid, SIGTERM);
  kill_at_ = Clock::now() + kKillDelay;
}

bool HostAgent::open_relay(const AgentJob& job) {
  if (job.ranks.empty()) return true;
  try {
    relay_ = open_store_relay(job.env, host_);
    return true;
  } catch (const std::exception& e) {
    // One message for the host; its PEs are not started (they could not reach it either).
    // The store client's own message says so, naming the address, when it could not connect;
    // anything else (a refused hello, a bad SHMEM_STORE_ADDR) is said to be why.
    constexpr std::string_view kCannot = "cannot reach the bootstrap store";
    std::string why = e.what();
    if (!why.starts_with(kCannot)) why = std::string(kCannot) + ": " + why;
    say(why);
    for (int r : job.ranks) {
      send(encode_frame(FrameType::kLost, r, kExitAgentFailed, "lost: the agent on host " + host_ + " " + why));
      LocalPe pe;
      pe.rank = r;
      pe.exited = true;
      pes_.push_back(std::move(pe));
    }
    return false;
  }
}

// The store connection of this host's PEs ended. While they run and nobody told them to end,
// that is news: one line for the host, and its PEs end (as a PE watching the store would).
void HostAgent::on_relay_end() {
  std::uint64_t v;
  ssize_t r = ::read(relay_->ended_fd(), &v, sizeof v);
  (void)r;
  const auto end = relay_->ended();
  if (!end.ended) return;
  std::string running;
  for (const auto& pe : pes_)
    if (!pe.exited) running += (running.empty() ? "" : ",") + std::to_string(pe.rank);
  if (running.empty() || told_to_end_ || kill_at_ || give_up_at_) return;
  say(end.why + "; ending PE" + (running.find(',') == std::string::npos ? " " : "s ") + running + " of this host");
  if (end.silent)
    end_pes_at_ = Clock::now() + kSilentStoreGrace;
  else
    end_pes();
}

void HostAgent::on_control() {
  char buf[512];
  ssize_t r = ::read(0, buf, sizeof buf);
  if (r < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (r <= 0) {
    connection_lost();
    return;
  }
  for (ssize_t k = 0; k < r; ++k) {
    if (buf[k] != '\n') {
      if (control_line_.size() < 64) control_line_ += buf[k];
      continue;
    }
    int sig = 0, except = -1;
    if (std::sscanf(control_line_.c_str(), "signal %d %d", &sig, &except) >= 1 && sig > 0 && sig < NSIG) {
      told_to_end_ = true;
      signal_all(sig, except);
    }
    control_line_.clear();
  }
}

void HostAgent::on_signals() {
  signalfd_siginfo si;
  bool child = false;
  while (::read(sigfd_.get(), &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
    int sig = static_cast<int>(si.ssi_signo);
    if (sig == SIGCHLD)
      child = true;
    else {
      told_to_end_ = true;
      signal_all(sig, -1);  // as a shell that exec'ed the PEs would
    }
  }
  if (child) reap();
}

void HostAgent::reap() {
  for (;;) {
    int st = 0;
    pid_t pid = ::waitpid(-1, &st, WNOHANG);
    if (pid <= 0) return;
    auto pe = std::find_if(pes_.begin(), pes_.end(), [&](const LocalPe& p) { return p.pid == pid; });
    if (pe != pes_.end() && !pe->exited) {
      pe->exited = true;
      // Its writes are complete: what it wrote goes up before its status.
      read_pe(*pe, false, true);
      read_pe(*pe, true, true);
      send(encode_frame(FrameType::kExit, pe->rank, st));
      continue;
    }
    auto link = std::find_if(links_.begin(), links_.end(), [&](const auto& l) { return l->pid() == pid; });
    if (link == links_.end()) continue;
    (*link)->on_exit(st);
    std::vector<Frame> frames;
    (*link)->read(frames, true);
    for (auto& f : (*link)->unreported_losses()) frames.push_back(std::move(f));
    for (const auto& f : frames) send(encode_frame(f.type, f.rank, f.value, f.data));
  }
}

bool HostAgent::finished() const {
  for (const auto& pe : pes_)
    if (!pe.exited || pe.out || pe.err) return false;
  for (const auto& l : links_)
    if (!l->done()) return false;
  return true;
}

int HostAgent::run() {
  AgentJob job;
  try {
    job = read_agent_job(0);
  } catch (const std::exception& e) {
    say(std::string("did not receive the job on stdin (") + e.what() +
        "; is this oshrun the same version as the launcher's?)");
    return kExitAgentFailed;
  }
  if (::chdir(job.cwd.c_str()) != 0) {
    say("cannot change to the launcher's working directory " + job.cwd + ": " + std::strerror(errno) +
        " (PEs on other hosts run in the same directory: a shared filesystem is assumed)");
    return kExitAgentFailed;
  }
  // Per PE its two output pipes and its end of the store relay (its exec-status pipe and its
  // own end of the relay are closed before the next starts); the relay's connection; per
  // agent it starts its stdin, stdout and exec-status pipe; a margin.
  const std::uint64_t direct = std::min<std::uint64_t>(job.subtree.size(), static_cast<std::uint64_t>(job.fanout));
  const std::uint64_t need = job.ranks.size() * 3 + direct * 3 + 32;
  const auto lim = shmem::util::raise_fd_limit(need);
  std::string advice =
      shmem::util::fd_limit_advice(lim, need, "oshrun on host " + host_, "3 per PE of this host, 3 per host it starts");
  if (!advice.empty()) say("warning: " + advice);

  sigset_t handled, original;
  sigemptyset(&handled);
  for (int s : {SIGCHLD, SIGTERM, SIGINT, SIGHUP}) sigaddset(&handled, s);
  ::sigprocmask(SIG_BLOCK, &handled, &original);
  sigfd_.reset(::signalfd(-1, &handled, SFD_CLOEXEC | SFD_NONBLOCK));
  if (!sigfd_) {
    say(std::string("signalfd: ") + std::strerror(errno));
    return kExitAgentFailed;
  }
  ::signal(SIGPIPE, SIG_IGN);

  send(std::string(kAgentHello));
  if (open_relay(job)) start_pes(job, original);
  start_agents(job, original);
  for (auto& e : job.env) std::memset(e.data(), 0, e.size());  // it held the secret

  for (;;) {
    reap();  // a PE that ended while we were starting the others
    if (finished()) return 0;
    auto now = Clock::now();
    if (kill_at_ && now >= *kill_at_) {
      for (auto& pe : pes_)
        if (!pe.exited) ::kill(pe.pid, SIGKILL);
      for (auto& l : links_) l->kill(SIGKILL);
      kill_at_.reset();
      give_up_at_ = now + kGiveUpDelay;
    }
    if (give_up_at_ && now >= *give_up_at_) return 0;
    if (end_pes_at_ && now >= *end_pes_at_) {
      end_pes_at_.reset();
      end_pes();
    }
    std::vector<pollfd> fds{
        {sigfd_.get(), POLLIN, 0}, {control_open_ ? 0 : -1, POLLIN, 0}, {relay_ ? relay_->ended_fd() : -1, POLLIN, 0}};
    std::vector<std::pair<LocalPe*, bool>> pe_fds;
    std::vector<AgentLink*> link_fds;
    for (auto& pe : pes_) {
      for (bool is_err : {false, true}) {
        int fd = is_err ? pe.err.get() : pe.out.get();
        if (fd < 0) continue;
        fds.push_back({fd, POLLIN, 0});
        pe_fds.emplace_back(&pe, is_err);
      }
    }
    for (auto& l : links_) {
      if (l->out_fd() < 0) continue;
      fds.push_back({l->out_fd(), POLLIN, 0});
      link_fds.push_back(l.get());
    }
    int timeout_ms = -1;
    if (auto d = kill_at_ ? kill_at_ : give_up_at_ ? give_up_at_ : end_pes_at_) {
      timeout_ms = static_cast<int>(
          std::max<long long>(std::chrono::ceil<std::chrono::milliseconds>(*d - Clock::now()).count(), 0));
    }
    if (::poll(fds.data(), fds.size(), timeout_ms) <= 0) continue;
    std::size_t k = 3;
    for (auto& [pe, is_err] : pe_fds)
      if (fds[k++].revents) read_pe(*pe, is_err, false);
    for (AgentLink* l : link_fds) {
      if (!fds[k++].revents) continue;
      std::vector<Frame> frames;
      l->read(frames, false);
      for (const auto& f : frames) send(encode_frame(f.type, f.rank, f.value, f.data));
    }
    if (fds[2].revents) on_relay_end();
    if (fds[1].revents) on_control();
    if (fds[0].revents) on_signals();
  }
}

}  // namespace

int host_agent_main(int argc, char** argv) {
  auto args = parse_agent_args(argc, argv);
  if (!args) {
    write_fully(2, "oshrun --host-agent: bad arguments (this mode is oshrun's own, for PEs on other hosts: "
                   "--host-agent --host H -- /absolute/program [args...])\n");
    return kExitAgentFailed;
  }
  HostAgent agent(args->host, std::move(args->command));
  return agent.run();
}

}  // namespace oshrun
