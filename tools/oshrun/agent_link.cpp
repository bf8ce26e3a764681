#include "oshrun/agent_link.hpp"

#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "base/error.hpp"
#include "oshrun/output.hpp"

namespace oshrun {
namespace {

using shmem::util::UniqueFd;

// The agent's stdin: the job (written now; the pipe is sized to hold it, so this never
// blocks), then control lines.
std::pair<UniqueFd, UniqueFd> control_pipe(std::string& block) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw shmem::Error(shmem::Errc::kInternal, std::string("pipe2: ") + std::strerror(errno));
  UniqueFd r(fds[0]), w(fds[1]);
  int cap = ::fcntl(w.get(), F_GETPIPE_SZ);
  if (cap >= 0 && static_cast<std::size_t>(cap) < block.size() + 4096)
    cap = ::fcntl(w.get(), F_SETPIPE_SZ, static_cast<int>(block.size() + 4096));
  if (cap < 0 || static_cast<std::size_t>(cap) < block.size())
    throw shmem::Error(shmem::Errc::kInvalidValue, "the environment for PEs on other hosts is too large (" +
                                                       std::to_string(block.size()) +
                                                       " bytes; it must fit a pipe: /proc/sys/fs/pipe-max-size)");
  ::fcntl(w.get(), F_SETFL, O_NONBLOCK);
  const bool ok = ::write(w.get(), block.data(), block.size()) == static_cast<ssize_t>(block.size());
  std::memset(block.data(), 0, block.size());  // it held the secret
  if (!ok)
    throw shmem::Error(shmem::Errc::kInternal, std::string("writing the job for an agent: ") + std::strerror(errno));
  return {std::move(r), std::move(w)};
}

std::string signal_name(int sig) {
  std::string s = "signal " + std::to_string(sig);
  if (const char* name = ::strsignal(sig)) s += std::string(" (") + name + ")";
  return s;
}

// "exited with status 255 (...)", "was killed by signal 9 (Killed)".
std::string agent_status_text(int st) {
  if (WIFSIGNALED(st)) return "was killed by " + signal_name(WTERMSIG(st));
  if (!WIFEXITED(st)) return "ended with wait status " + std::to_string(st);
  const int code = WEXITSTATUS(st);
  std::string s = "exited with status " + std::to_string(code);
  if (code == 255)
    s += " (it could not reach the host or start the PE there; its message, if any, is above)";
  else if (code == 127)
    s += " (no oshrun at the same path on that host? its message, if any, is above)";
  else if (code > 128 && code < 128 + NSIG)
    s += " (as a shell reports a command killed by " + signal_name(code - 128) + ")";
  else if (code == 0)
    s += " before reporting the PE's end";
  return s;
}

int agent_exit_code(int st) {
  if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
  if (WIFEXITED(st) && WEXITSTATUS(st) != 0) return WEXITSTATUS(st);
  return 1;
}

}  // namespace

AgentLink::AgentLink(const AgentStart& how, const TreeBranch& branch, const AgentJob& job) : host_(branch.host.host) {
  hosts_.push_back(branch.host);
  hosts_.insert(hosts_.end(), branch.subtree.begin(), branch.subtree.end());
  for (const auto& h : hosts_) pending_.insert(pending_.end(), h.ranks.begin(), h.ranks.end());
  std::sort(pending_.begin(), pending_.end());

  AgentJob mine = job;
  mine.ranks = branch.host.ranks;
  mine.subtree = branch.subtree;
  std::string block = encode_agent_job(mine);
  for (auto& e : mine.env) std::memset(e.data(), 0, e.size());
  auto [ctl_r, ctl_w] = control_pipe(block);

  std::vector<std::string> words = how.rsh;
  words.push_back(host_);
  words.push_back(agent_command_line(job.oshrun_path, host_, how.command));
  CStringArray argv(std::move(words));
  SpawnRequest req;
  req.path = how.rsh_path;
  req.argv = &argv;
  req.envp = how.env;
  req.stdin_fd = ctl_r.get();
  req.child_sigmask = how.child_sigmask;
  req.capture_stderr = false;    // the agent's own messages go straight to our stderr
  req.new_process_group = true;  // a terminal's ^C reaches the PEs once, through us
  SpawnedChild c = spawn_child(req);
  pid_ = c.pid;
  out_ = std::move(c.out);
  exec_status_ = std::move(c.exec_status);
  control_ = std::move(ctl_w);
}

int AgentLink::wait_exec() {
  if (!exec_status_) return 0;
  SpawnedChild c;
  c.pid = pid_;
  c.exec_status = std::move(exec_status_);
  return wait_exec_result(c);
}

void AgentLink::read(std::vector<Frame>& frames, bool drain) {
  char buf[65536];
  int reads_left = 64;  // bounded, as for a PE's pipe
  while (out_) {
    ssize_t r = ::read(out_.get(), buf, sizeof buf);
    if (r > 0) {
      reader_.feed(buf, static_cast<std::size_t>(r));
      if (std::string junk = reader_.take_junk(); !junk.empty()) write_fully(2, junk);
      while (auto f = reader_.next()) {
        note(*f);
        frames.push_back(std::move(*f));
      }
      if (reader_.corrupt()) {
        garbled_ = true;
        kill(SIGKILL);
        out_.reset();
        return;
      }
      if (!drain) return;
      if (--reads_left > 0) continue;
      r = 0;
    }
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 && errno == EAGAIN && !drain) return;
    out_.reset();
  }
}

void AgentLink::note(const Frame& f) {
  if (f.type != FrameType::kExit && f.type != FrameType::kLost) return;
  auto it = std::lower_bound(pending_.begin(), pending_.end(), f.rank);
  if (it != pending_.end() && *it == f.rank) pending_.erase(it);
}

std::vector<Frame> AgentLink::unreported_losses() {
  std::vector<Frame> out;
  const std::string what = garbled_ ? "sent output that is not oshrun's (the same oshrun must be at the same path "
                                      "on every host)"
                                    : agent_status_text(wait_status_);
  const int code = garbled_ ? 1 : agent_exit_code(wait_status_);
  // Its own host's PEs first: the first report is the one the job ends with.
  for (const auto& h : hosts_) {
    std::string reason = h.host == host_
                             ? "lost: the agent " + what
                             : "lost: the agent on host " + host_ + " (which started host " + h.host + ") " + what;
    for (int r : h.ranks)
      if (std::binary_search(pending_.begin(), pending_.end(), r))
        out.push_back(Frame{FrameType::kLost, r, code, reason});
  }
  pending_.clear();
  return out;
}

bool AgentLink::send_signal(int sig, int except_rank) {
  if (exited_ || !control_) return true;
  std::string line = "signal " + std::to_string(sig) + " " + std::to_string(except_rank) + "\n";
  if (::write(control_.get(), line.data(), line.size()) == static_cast<ssize_t>(line.size())) return true;
  // It stopped reading: ending it closes the far side's stdin, which ends the PEs there too.
  kill(SIGKILL);
  return false;
}

void AgentLink::kill(int sig) const {
  if (!exited_) ::kill(pid_, sig);
}

}  // namespace oshrun
