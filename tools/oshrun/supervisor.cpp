#include "oshrun/supervisor.hpp"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace oshrun {

std::string describe_wait_status(int st) {
  if (WIFEXITED(st)) return "exited with status " + std::to_string(WEXITSTATUS(st));
  if (WIFSIGNALED(st)) {
    int sig = WTERMSIG(st);
    std::string s = "killed by signal " + std::to_string(sig);
    if (const char* name = ::strsignal(sig)) s += std::string(" (") + name + ")";
    if (WCOREDUMP(st)) s += ", core dumped";
    return s;
  }
  return "ended with wait status " + std::to_string(st);
}

std::string lost_reason_text(int rank, std::string reason) {
  // The store words its reason for its own log ("PE 3 lost: connection closed before
  // shmem_finalize"); our message already names the PE and the finalize part.
  const std::string lead = "PE " + std::to_string(rank) + " lost: ";
  if (reason.starts_with(lead)) reason.erase(0, lead.size());
  const std::string tail = " before shmem_finalize";
  if (reason.size() > tail.size() && reason.ends_with(tail)) reason.resize(reason.size() - tail.size());
  return reason.empty() ? "connection closed" : reason;
}

bool is_departure(int rank, const std::string& reason) {
  const std::string self = "PE " + std::to_string(rank) + " ";
  return reason.starts_with(self) && !reason.starts_with(self + "lost: ");
}

int exit_code_for(int st) {
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
  return 1;
}

Supervisor::Supervisor(std::vector<PeProcess> pes, std::vector<std::unique_ptr<AgentLink>> agents, int signal_fd,
                       StoreEventQueue& events, StoreHooks hooks)
    : pes_(std::move(pes)),
      agents_(std::move(agents)),
      signal_fd_(signal_fd),
      events_(events),
      hooks_(std::move(hooks)) {}

std::string Supervisor::describe(const PeProcess& pe) const {
  if (!pe.host.empty()) return "PE " + std::to_string(pe.rank) + " (host " + pe.host + ")";
  return "PE " + std::to_string(pe.rank) + " (pid " + std::to_string(pe.pid) + ")";
}

bool Supervisor::all_exited() const {
  return std::all_of(pes_.begin(), pes_.end(), [](const PeProcess& p) { return p.exited; });
}

bool Supervisor::agents_done() const {
  return std::all_of(agents_.begin(), agents_.end(), [](const auto& a) { return a->done(); });
}

int Supervisor::run() {
  for (;;) {
    on_timers();
    if (all_exited()) {
      if (stopping_) break;
      // Every PE exited 0. One that said hello but never goodbye skipped shmem_finalize;
      // the store may still be processing a goodbye sent just before exit, so allow a moment.
      auto it = std::find_if(pes_.begin(), pes_.end(),
                             [&](const PeProcess& p) { return hooks_.unfinished(p.rank); });
      if (it == pes_.end()) {
        // The agents end once they reported their PEs; a moment for them to go.
        if (agents_done()) break;
        if (!agents_wait_until_) agents_wait_until_ = Clock::now() + kGiveUpDelay;
        if (Clock::now() >= *agents_wait_until_) break;
      } else {
        if (!finalize_wait_until_) finalize_wait_until_ = Clock::now() + kFinalizeGrace;
        if (Clock::now() >= *finalize_wait_until_) {
          fail(describe(*it) + " lost before shmem_finalize: exited with status 0 without finalizing", 1);
          break;
        }
      }
    }
    if (give_up_at_ && Clock::now() >= *give_up_at_) break;
    int timeout_ms = -1;
    if (auto d = next_deadline()) {
      auto left = std::chrono::ceil<std::chrono::milliseconds>(*d - Clock::now()).count();
      timeout_ms = static_cast<int>(std::clamp<long long>(left, 0, 60'000));
    }
    poll_once(timeout_ms);
  }
  finish_outputs();
  return exit_code_;
}

std::optional<Supervisor::Clock::time_point> Supervisor::next_deadline() const {
  std::optional<Clock::time_point> d;
  auto consider = [&](const std::optional<Clock::time_point>& t) {
    if (t && (!d || *t < *d)) d = t;
  };
  consider(kill_at_);
  consider(give_up_at_);
  consider(agents_wait_until_);
  if (all_exited()) {
    // Waiting for a goodbye to land: re-check the store every few milliseconds.
    if (finalize_wait_until_) consider(Clock::now() + std::chrono::milliseconds(5));
  }
  for (const auto& [rank, lost] : lost_) consider(lost.deadline);
  return d;
}

void Supervisor::poll_once(int timeout_ms) {
  std::vector<pollfd> fds;
  std::vector<std::pair<std::size_t, bool>> owners;  // (pe index, is_err) per pipe entry
  fds.push_back({signal_fd_, POLLIN, 0});
  fds.push_back({events_.fd(), POLLIN, 0});
  for (std::size_t i = 0; i < pes_.size(); ++i) {
    if (pes_[i].out) {
      fds.push_back({pes_[i].out.get(), POLLIN, 0});
      owners.emplace_back(i, false);
    }
    if (pes_[i].err) {
      fds.push_back({pes_[i].err.get(), POLLIN, 0});
      owners.emplace_back(i, true);
    }
  }
  std::vector<AgentLink*> agent_owners;
  for (auto& a : agents_) {
    if (a->out_fd() < 0) continue;
    fds.push_back({a->out_fd(), POLLIN, 0});
    agent_owners.push_back(a.get());
  }
  int n = ::poll(fds.data(), fds.size(), timeout_ms);
  if (n <= 0) return;  // timeout or EINTR: timers are checked by the caller
  // Output first: a PE's last lines should appear before the message about its exit.
  for (std::size_t k = 0; k < owners.size(); ++k)
    if (fds[k + 2].revents) read_pipe(pes_[owners[k].first], owners[k].second, false);
  for (std::size_t k = 0; k < agent_owners.size(); ++k)
    if (fds[k + 2 + owners.size()].revents) read_agent(*agent_owners[k], false);
  if (fds[1].revents) on_store_events();
  if (fds[0].revents) on_signalfd();
}

void Supervisor::read_pipe(PeProcess& pe, bool is_err, bool drain) {
  auto& fd = is_err ? pe.err : pe.out;
  auto& fwd = is_err ? pe.err_fwd : pe.out_fwd;
  char buf[65536];
  // Draining reads what the PE left in the pipe (at most the pipe's capacity); the bound
  // stops a background process of the PE that keeps writing from holding us here.
  int reads_left = 64;
  while (fd) {
    ssize_t r = ::read(fd.get(), buf, sizeof buf);
    if (r > 0) {
      fwd.feed(buf, static_cast<std::size_t>(r));
      if (!drain) return;  // one read per wake-up keeps a chatty PE from starving the rest
      if (--reads_left > 0) continue;
      r = 0;  // treat as the end
    }
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 && errno == EAGAIN && !drain) return;
    // EOF, an error, or (draining after exit) nothing more: a background process of the PE
    // may still hold the pipe, but the PE itself is done and we do not wait for it.
    fwd.finish();
    fd.reset();
  }
}

void Supervisor::read_agent(AgentLink& agent, bool drain) {
  std::vector<Frame> frames;
  agent.read(frames, drain);
  for (const auto& f : frames) on_frame(f);
}

void Supervisor::on_frame(const Frame& f) {
  if (f.rank < 0 || f.rank >= static_cast<int>(pes_.size())) return;
  PeProcess& pe = pes_[static_cast<std::size_t>(f.rank)];
  if (pe.host.empty() || pe.exited) return;
  switch (f.type) {
    case FrameType::kStdout: pe.out_fwd.feed(f.data.data(), f.data.size()); break;
    case FrameType::kStderr: pe.err_fwd.feed(f.data.data(), f.data.size()); break;
    case FrameType::kStdoutEnd: pe.out_fwd.finish(); break;
    case FrameType::kStderrEnd: pe.err_fwd.finish(); break;
    case FrameType::kExit:
    case FrameType::kLost:
      // What the store heard from this PE before it ended (shmem_global_exit, a departure)
      // comes first, as for a local PE, whose SIGCHLD is handled after the store's events.
      on_store_events();
      if (pe.exited) break;
      pe.exited = true;
      pe.wait_status = f.type == FrameType::kExit ? f.value : 0;
      if (f.type == FrameType::kLost) {
        pe.lost = f.data;
        pe.lost_code = f.value ? f.value : 1;
      }
      pe.out_fwd.finish();
      pe.err_fwd.finish();
      on_pe_exit(pe);
      break;
  }
}

void Supervisor::on_signalfd() {
  signalfd_siginfo si;
  bool child = false;
  for (;;) {
    ssize_t r = ::read(signal_fd_, &si, sizeof si);
    if (r != static_cast<ssize_t>(sizeof si)) break;
    int sig = static_cast<int>(si.ssi_signo);
    if (sig == SIGCHLD) {
      child = true;
    } else if (!stopping_) {
      exit_code_ = 128 + sig;
      const char* name = ::strsignal(sig);
      std::string note = "oshrun: received signal " + std::to_string(sig) + " (" +
                         (name ? name : "?") + "), stopping the PEs\n";
      write_fully(2, note);
      stop_all(sig);
    } else {
      // A second interrupt while stopping: do not make the user wait for the grace period.
      signal_running(SIGKILL);
      kill_at_.reset();
    }
  }
  if (child) reap_children();
}

void Supervisor::reap_children() {
  for (;;) {
    int st = 0;
    pid_t pid = ::waitpid(-1, &st, WNOHANG);
    if (pid <= 0) return;
    auto agent = std::find_if(agents_.begin(), agents_.end(), [&](const auto& a) { return a->pid() == pid; });
    if (agent != agents_.end()) {
      // What it sent before it ended, then the PEs below it it never reported.
      (*agent)->on_exit(st);
      read_agent(**agent, true);
      for (const auto& f : (*agent)->unreported_losses()) on_frame(f);
      continue;
    }
    auto it = std::find_if(pes_.begin(), pes_.end(),
                           [&](const PeProcess& p) { return !p.host.empty() ? false : p.pid == pid; });
    if (it == pes_.end() || it->exited) continue;
    it->exited = true;
    it->wait_status = st;
    // Its writes are complete, so whatever it wrote is in the pipes now.
    read_pipe(*it, false, true);
    read_pipe(*it, true, true);
    on_pe_exit(*it);
  }
}

void Supervisor::on_pe_exit(PeProcess& pe) {
  auto lost = lost_.find(pe.rank);
  std::string lost_reason;
  bool departed = false;
  if (lost != lost_.end()) {
    lost_reason = lost->second.reason;
    departed = lost->second.departed;
    lost_.erase(lost);
  }
  if (stopping_) return;
  if (!pe.lost.empty()) {  // its agent (or one between) died before reporting its end
    fail(describe(pe) + " " + pe.lost, pe.lost_code);
    return;
  }
  int st = pe.wait_status;
  if (departed) {  // it said why it left before exiting
    fail(lost_reason, exit_code_for(st) ? exit_code_for(st) : 1);
    return;
  }
  if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
    if (!lost_reason.empty())
      fail(describe(pe) + " lost before shmem_finalize: " + lost_reason, 1);
    return;
  }
  if (lost_reason.empty() && !lost_.empty()) {
    // Another PE's connection dropped first; the store has failed the job, so this exit is
    // most likely a consequence. Name the root cause once its grace period settles it.
    return;
  }
  // An exit status before goodbye.
  const bool unfinished = WIFEXITED(st) && hooks_.unfinished && hooks_.unfinished(pe.rank);
  fail(describe(pe) + " " + describe_wait_status(st) + (unfinished ? " before shmem_finalize" : ""), exit_code_for(st));
}

void Supervisor::on_store_events() {
  for (auto& ev : events_.drain()) {
    if (stopping_) continue;
    if (ev.rank < 0 || ev.rank >= static_cast<int>(pes_.size())) continue;
    PeProcess& pe = pes_[static_cast<std::size_t>(ev.rank)];
    if (ev.kind == StoreEvent::Kind::kGlobalExit) {
      // shmem_global_exit: the job ends now with the caller's status; no failure report.
      stopping_ = true;
      exit_code_ = ev.status & 0xff;
      lost_.clear();
      signal_running(SIGKILL, ev.rank);
      kill_at_ = Clock::now() + kKillDelay;  // the caller normally exits by itself
      give_up_at_ = *kill_at_ + kGiveUpDelay;
      continue;
    }
    const bool departed = is_departure(ev.rank, ev.reason);
    std::string reason = departed ? ev.reason : lost_reason_text(ev.rank, ev.reason);
    if (pe.exited) {
      if (departed)
        fail(reason, exit_code_for(pe.wait_status) ? exit_code_for(pe.wait_status) : 1);
      else if (WIFEXITED(pe.wait_status) && WEXITSTATUS(pe.wait_status) == 0)
        fail(describe(pe) + " lost before shmem_finalize: " + reason, 1);
      continue;
    }
    // A PE that said why it leaves exits right after; give it time to show its status.
    lost_.emplace(ev.rank, Lost{Clock::now() + (departed ? kKillDelay : pe.host.empty() ? kLostGrace : kRemoteLostGrace),
                                reason, departed});
  }
}

void Supervisor::on_timers() {
  auto now = Clock::now();
  for (auto it = lost_.begin(); it != lost_.end();) {
    if (!stopping_ && now >= it->second.deadline) {
      PeProcess& pe = pes_[static_cast<std::size_t>(it->first)];
      std::string reason = it->second.reason;
      const bool departed = it->second.departed;
      it = lost_.erase(it);
      fail(departed ? reason : describe(pe) + " lost before shmem_finalize: " + reason, 1);
    } else {
      ++it;
    }
  }
  if (kill_at_ && now >= *kill_at_) {
    signal_running(SIGKILL);
    kill_at_.reset();
  }
}

void Supervisor::fail(const std::string& message, int exit_code) {
  if (stopping_) return;
  write_fully(2, "oshrun: " + message + "\n");
  exit_code_ = exit_code ? exit_code : 1;
  stop_all(SIGTERM);
}

void Supervisor::stop_all(int sig) {
  stopping_ = true;
  lost_.clear();
  signal_running(sig);
  kill_at_ = Clock::now() + kKillDelay;
  give_up_at_ = *kill_at_ + kGiveUpDelay;
}

void Supervisor::signal_running(int sig, int except_rank) {
  // Unreaped PEs keep their pid (zombies at worst), so these pids cannot have been reused.
  for (auto& pe : pes_)
    if (pe.host.empty() && !pe.exited && pe.rank != except_rank) ::kill(pe.pid, sig);
  // Remote PEs: one line per agent, which signals its PEs and passes it on to the agents it
  // started. Should the line not fit (it stopped reading), the link kills the agent, which
  // closes the far side's stdin and ends the PEs there as well.
  for (auto& a : agents_) a->send_signal(sig, except_rank);
}

void Supervisor::finish_outputs() {
  for (auto& pe : pes_) {
    read_pipe(pe, false, true);
    read_pipe(pe, true, true);
    pe.out_fwd.finish();
    pe.err_fwd.finish();
  }
}

}  // namespace oshrun
