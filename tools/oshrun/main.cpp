// oshrun / shmemrun: starts N PEs of a program on this host (or on several hosts, through an
// ssh-compatible agent) around an in-process bootstrap store, forwards their output and
// signals, and ends the job as soon as one PE fails. `oshrun --host-agent` is the agent that
// runs one host's PEs for it (host_agent.hpp, agent_protocol.hpp).
#include <fcntl.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bootstrap/store.hpp"
#include "base/config.hpp"
#include "base/error.hpp"
#include "oshrun/agent_link.hpp"
#include "oshrun/agent_protocol.hpp"
#include "oshrun/args.hpp"
#include "oshrun/events.hpp"
#include "oshrun/host_agent.hpp"
#include "oshrun/hosts.hpp"
#include "oshrun/job.hpp"
#include "oshrun/output.hpp"
#include "oshrun/remote.hpp"
#include "oshrun/spawn.hpp"
#include "oshrun/store_addr.hpp"
#include "oshrun/supervisor.hpp"
#include "util/fd_limit.hpp"
#include "util/ifaddr.hpp"
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

// oshrun's descriptors: per local PE its output pipes (and an exec-status pipe while
// starting), its store socketpair (both ends until it starts), per host agent it
// starts itself its stdin and stdout (and the exec-status pipe), per remote host one store
// connection (its agent relays its PEs'), plus a margin. Raised before the store starts,
// which sizes its admission limits from the limit.
void ensure_fd_limit(int local_pes, int agents, int remote_hosts) {
  const std::uint64_t need = static_cast<std::uint64_t>(local_pes) * 5 + static_cast<std::uint64_t>(agents) * 3 +
                             static_cast<std::uint64_t>(remote_hosts) + 32;
  const shmem::util::FdLimit l = shmem::util::raise_fd_limit(need);
  const std::string advice = shmem::util::fd_limit_advice(
      l, need, "oshrun", "5 per PE on this host, 3 per host agent it starts, 1 per remote host");
  if (!advice.empty()) say("warning: " + advice);
}

// A local PE's connection to the store, made here: the store serves one end of a socketpair as
// that PE's (StoreServer::adopt), the PE gets the other in SHMEM_STORE_FD. Throws.
UniqueFd store_socketpair(shmem::bootstrap::StoreServer& store, int rank) {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    throw shmem::Error(shmem::Errc::kInternal,
                       "socketpair for PE " + std::to_string(rank) + "'s store connection: " + std::strerror(errno));
  UniqueFd pe_end(sv[1]);
  store.adopt(UniqueFd(sv[0]), rank);
  return pe_end;
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

// Where each rank runs: "" for this host, else the host name as listed.
struct Placement {
  int npes = 0;
  std::vector<std::string> host_of_rank;
  bool multi_host = false;
};

Placement plan(const Args& args) {
  Placement p;
  if (args.hosts.empty() && args.hostfile.empty()) {
    p.npes = args.npes;
    p.host_of_rank.assign(static_cast<std::size_t>(p.npes), "");
    return p;
  }
  std::vector<HostSlots> hosts = args.hostfile.empty() ? parse_host_list(args.hosts)
                                                        : read_hostfile(args.hostfile);
  auto placement = place_ranks(hosts, args.npes, args.hostfile.empty() ? "--hosts" : "--hostfile");
  std::vector<shmem::util::InterfaceAddress> addrs;
  try {
    addrs = shmem::util::ipv4_interfaces();
  } catch (const std::exception&) {
    // Without the address list, only names identify this host.
  }
  const std::string me = this_hostname();
  p.npes = static_cast<int>(placement.size());
  for (std::size_t idx : placement) {
    const std::string& h = hosts[idx].host;
    bool local = is_local_host(h, me, addrs);
    p.host_of_rank.push_back(local ? "" : h);
    p.multi_host = p.multi_host || !local;
  }
  return p;
}

std::string working_directory() {
  char buf[4096];
  if (!::getcwd(buf, sizeof buf))
    throw shmem::Error(shmem::Errc::kInternal, std::string("getcwd: ") + std::strerror(errno));
  return buf;
}

std::string absolute_path(const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  return working_directory() + "/" + path;
}

std::string self_executable() {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) throw shmem::Error(shmem::Errc::kInternal, std::string("readlink /proc/self/exe: ") + std::strerror(errno));
  return std::string(buf, static_cast<std::size_t>(n));
}

// The remote hosts in the order listed, each with its ranks (a host listed twice gets one
// agent for both groups).
std::vector<HostPlan> remote_hosts(const Placement& place) {
  std::vector<HostPlan> hosts;
  for (int r = 0; r < place.npes; ++r) {
    const std::string& h = place.host_of_rank[static_cast<std::size_t>(r)];
    if (h.empty()) continue;
    auto it = std::find_if(hosts.begin(), hosts.end(), [&](const HostPlan& p) { return p.host == h; });
    if (it == hosts.end()) it = hosts.insert(hosts.end(), HostPlan{h, {}});
    it->ranks.push_back(r);
  }
  return hosts;
}

int launch(const Args& args, const Placement& place) {
  int exec_err = 0;
  std::string path = resolve_program(args.command[0], &exec_err);
  if (path.empty()) {
    say("cannot execute '" + args.command[0] + "': " + std::strerror(exec_err));
    return kExitCannotExec;
  }
  const int npes = place.npes;
  const std::vector<HostPlan> remote = remote_hosts(place);
  const std::vector<TreeBranch> tree = split_tree(remote, args.fanout);

  AgentStart how;
  AgentJob agent_job;
  std::unique_ptr<CStringArray> agent_env;
  if (place.multi_host) {
    std::string setting = args.rsh.empty() ? shmem::config_raw("SHMEM_RSH") : args.rsh;
    const char* knob = args.rsh.empty() ? "SHMEM_RSH" : "--rsh";
    how.rsh = split_agent(setting);
    if (how.rsh.empty()) {
      say(std::string(knob) + " is empty: it names the agent that starts PEs on other hosts (e.g. ssh)");
      return kExitUsage;
    }
    int e = 0;
    how.rsh_path = resolve_program(how.rsh[0], &e);
    if (how.rsh_path.empty()) {
      say("cannot start the agent for PEs on other hosts: '" + how.rsh[0] + "' (" + knob + "=" + setting +
          "): " + std::strerror(e));
      return kExitCannotExec;
    }
    how.command = args.command;
    how.command[0] = absolute_path(path);
    agent_env = std::make_unique<CStringArray>(agent_environment(environ));
    how.env = agent_env.get();
    agent_job.cwd = working_directory();
    agent_job.fanout = args.fanout;
    agent_job.rsh = how.rsh;
    agent_job.oshrun_path = self_executable();
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
  how.child_sigmask = original;
  // A reader of our output going away must not kill the launcher (and orphan the job).
  ::signal(SIGPIPE, SIG_IGN);

  JobIdentity job;
  StoreEventQueue events;  // outlives the server, whose threads push into it
  std::unique_ptr<shmem::bootstrap::StoreServer> store;
  std::string bind_host;
  try {
    bind_host = store_bind_address(place.multi_host);
  } catch (const std::exception& e) {
    say(std::string("cannot choose where the bootstrap store listens: ") + e.what());
    return kExitLaunchFailed;
  }
  int local_pes = 0;
  for (const auto& h : place.host_of_rank) local_pes += h.empty() ? 1 : 0;
  ensure_fd_limit(local_pes, static_cast<int>(tree.size()), static_cast<int>(remote.size()));
  try {
    job = make_job_identity();
    shmem::bootstrap::StoreServer::Options opts;
    opts.bind_host = bind_host;
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
    std::string where = place.multi_host ? " on " + bind_host + " (SHMEM_BOOTSTRAP_ADDR / SHMEM_BOOTSTRAP_IFACE)" : "";
    say("cannot start the bootstrap store" + where + ": " + e.what());
    return kExitLaunchFailed;
  }
  const std::string store_addr = bind_host + ":" + std::to_string(store->port());

  UniqueFd dev_null(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  CStringArray argv(args.command);
  std::vector<CStringArray> envs;  // local PEs: what they exec with
  std::vector<UniqueFd> store_ends(static_cast<std::size_t>(npes));  // local PEs' ends, until started
  envs.reserve(static_cast<std::size_t>(npes));
  try {
    for (int r = 0; r < npes; ++r) {
      const auto ur = static_cast<std::size_t>(r);
      std::vector<std::string> env;
      if (place.host_of_rank[ur].empty()) {
        env = pe_environment(environ, r, npes, store_addr, job, args.exports);
        if (npes > 1) {
          store_ends[ur] = store_socketpair(*store, r);
          env.push_back("SHMEM_STORE_FD=" + std::to_string(store_ends[ur].get()));
        }
      }
      envs.emplace_back(std::move(env));
    }
  } catch (const std::exception& e) {
    say(std::string("cannot prepare the PEs' store connections: ") + e.what());
    return kExitLaunchFailed;
  }
  if (!remote.empty()) {
    // Every remote PE's environment but SHMEM_PE, which its agent adds.
    for (auto& e : pe_environment(environ, 0, npes, store_addr, job, args.exports))
      if (!e.starts_with("SHMEM_PE=")) agent_job.env.push_back(std::move(e));
  }

  // PEs print to a terminal as to one (line by line, so a crash loses no whole line), as under
  // Open MPI's launcher; on pipes the library line-buffers their stdout (core/stdio.cpp).
  const bool pe_pty = ::isatty(1) == 1;
  std::vector<SpawnedChild> children(static_cast<std::size_t>(npes));
  std::vector<std::unique_ptr<AgentLink>> agents;
  auto abandon = [&]() {
    for (auto& a : agents) a->kill(SIGKILL);
    std::vector<SpawnedChild> started;
    for (auto& c : children)
      if (c.pid > 0) started.push_back(std::move(c));
    for (auto& a : agents) started.push_back(SpawnedChild{a->pid(), {}, {}, {}});
    kill_and_reap(started);
  };
  int started = 0;
  try {
    for (int r = 0; r < npes; ++r, ++started) {
      const auto ur = static_cast<std::size_t>(r);
      if (!place.host_of_rank[ur].empty()) continue;
      SpawnRequest req;
      req.child_sigmask = original;
      req.path = path;
      req.argv = &argv;
      req.envp = &envs[ur];
      req.stdin_fd = r == 0 ? -1 : dev_null.get();  // only PE 0 reads our stdin
      req.stdout_pty = pe_pty;
      req.inherit_fd = store_ends[ur] ? store_ends[ur].get() : -1;
      children[ur] = spawn_child(req);
      store_ends[ur].reset();  // the PE holds it now
    }
    for (const TreeBranch& b : tree) {
      started = b.host.ranks.front();
      agents.push_back(std::make_unique<AgentLink>(how, b, agent_job));
    }
  } catch (const std::exception& e) {
    say(std::string("cannot start PE ") + std::to_string(started) + ": " + e.what());
    abandon();
    return kExitLaunchFailed;
  }
  for (auto& e : agent_job.env) std::memset(e.data(), 0, e.size());  // it held the secret
  int agent_err = 0;
  for (int r = 0; r < npes; ++r) {
    auto& c = children[static_cast<std::size_t>(r)];
    if (c.pid <= 0) continue;
    if (int e = wait_exec_result(c)) exec_err = exec_err ? exec_err : e;
  }
  for (auto& a : agents)
    if (int e = a->wait_exec()) agent_err = agent_err ? agent_err : e;
  if (exec_err || agent_err) {
    int err = exec_err ? exec_err : agent_err;
    std::string name = exec_err ? args.command[0] : how.rsh_path;
    std::string why = std::strerror(err);
    // The file exists (we checked), so ENOENT from execve means its #! interpreter does not.
    if (err == ENOENT) why += " (the interpreter named on its #! line?)";
    say(std::string("cannot execute ") + (exec_err ? "" : "the agent for PEs on other hosts ") + "'" + name +
        "': " + why);
    abandon();
    return kExitCannotExec;
  }

  // Lines stay whole per PE; a last partial line gets a newline when another PE's output
  // could follow it on the same line.
  const bool terminate_partial = args.tag_output || npes > 1;
  std::vector<PeProcess> pes;
  pes.reserve(children.size());
  for (std::size_t r = 0; r < children.size(); ++r) {
    std::string prefix = args.tag_output ? "[PE " + std::to_string(r) + "] " : "";
    PeProcess pe{static_cast<int>(r),
                 children[r].pid,
                 std::move(children[r].out),
                 std::move(children[r].err),
                 LineForwarder(1, prefix, terminate_partial),
                 LineForwarder(2, prefix, terminate_partial),
                 false,
                 0,
                 place.host_of_rank[r],
                 {},
                 0};
    pes.push_back(std::move(pe));
  }
  auto* srv = store.get();
  StoreHooks hooks;
  hooks.unfinished = [srv](int rank) { return srv->rank_connected(rank) && !srv->rank_finalized(rank); };
  Supervisor sup(std::move(pes), std::move(agents), sigfd.get(), events, std::move(hooks));
  int code = sup.run();
  store.reset();
  return code;
}

}  // namespace
}  // namespace oshrun

int main(int argc, char** argv) {
  using namespace oshrun;
  ensure_std_fds();
  if (argc > 1 && std::string_view(argv[1]) == kHostAgentOption) return host_agent_main(argc, argv);
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
  Placement place;
  try {
    place = plan(args);
  } catch (const UsageError& e) {
    std::string msg = std::string("oshrun: ") + e.what() + "\nTry 'oshrun --help' for more information.\n";
    write_fully(2, msg);
    return kExitUsage;
  }
  try {
    return launch(args, place);
  } catch (const std::exception& e) {
    say(e.what());
    return kExitLaunchFailed;
  }
}
