#pragma once
// The launcher's event loop: forwards output, reaps PEs, reacts to failures and signals.
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "oshrun/agent_link.hpp"
#include "oshrun/events.hpp"
#include "oshrun/output.hpp"
#include "util/unique_fd.hpp"

namespace oshrun {

struct PeProcess {
  int rank = -1;
  pid_t pid = -1;
  shmem::util::UniqueFd out;  // non-blocking read ends; reset at EOF
  shmem::util::UniqueFd err;
  LineForwarder out_fwd;
  LineForwarder err_fwd;
  bool exited = false;
  int wait_status = 0;
  // A PE on another host: no pid or pipes here; its output, exit status and signals travel
  // through its host's agent (AgentLink). Empty for local PEs.
  std::string host;
  // Its agent (or one between) died before it reported this PE's end: why, and the status
  // the job ends with.
  std::string lost;
  int lost_code = 0;
};

// What the supervisor needs from the store (kept abstract so the loop does not own it).
// It does not put the store into the failed state when ending a job: the PEs get SIGTERM
// right away, and N copies of "store failed: ..." would bury the one message that matters.
struct StoreHooks {
  // True when `rank` said hello but not goodbye (connected, not finalized).
  std::function<bool(int rank)> unfinished;
};

class Supervisor {
 public:
  using Clock = std::chrono::steady_clock;

  // `signal_fd`: a signalfd for SIGCHLD/SIGINT/SIGTERM/SIGHUP (blocked in every thread).
  // `agents`: the host agents oshrun started itself (each reports the PEs below it).
  Supervisor(std::vector<PeProcess> pes, std::vector<std::unique_ptr<AgentLink>> agents, int signal_fd,
             StoreEventQueue& events, StoreHooks hooks);

  // Runs until every PE is gone (or, after a failure, at most ~1.5 s); returns the exit status.
  int run();

  // How long PEs get between the polite signal and SIGKILL, and how long after SIGKILL the
  // launcher still waits for them before giving up.
  static constexpr std::chrono::milliseconds kKillDelay{1000};
  static constexpr std::chrono::milliseconds kGiveUpDelay{500};
  // A PE whose store connection dropped gets this long to show its exit status, which
  // names the cause better than "connection lost".
  static constexpr std::chrono::milliseconds kLostGrace{250};
  // A remote PE's exit status comes back through its agent (ssh teardown, the network).
  static constexpr std::chrono::milliseconds kRemoteLostGrace{1000};
  // At the end, how long a PE that exited 0 may take to be seen as finalized by the store.
  static constexpr std::chrono::milliseconds kFinalizeGrace{500};

 private:
  bool all_exited() const;
  void poll_once(int timeout_ms);
  void read_pipe(PeProcess& pe, bool is_err, bool drain);
  void read_agent(AgentLink& agent, bool drain);
  void on_frame(const Frame& f);
  bool agents_done() const;
  void on_signalfd();
  void reap_children();
  void on_pe_exit(PeProcess& pe);
  void on_store_events();
  void on_timers();
  std::optional<Clock::time_point> next_deadline() const;

  void fail(const std::string& message, int exit_code);
  void stop_all(int sig);
  void signal_running(int sig, int except_rank = -1);
  void finish_outputs();
  std::string describe(const PeProcess& pe) const;

  std::vector<PeProcess> pes_;
  std::vector<std::unique_ptr<AgentLink>> agents_;
  int signal_fd_;
  StoreEventQueue& events_;
  StoreHooks hooks_;

  bool stopping_ = false;
  int exit_code_ = 0;
  std::optional<Clock::time_point> kill_at_;
  std::optional<Clock::time_point> give_up_at_;
  std::optional<Clock::time_point> finalize_wait_until_;
  std::optional<Clock::time_point> agents_wait_until_;  // every PE is done; agents are ending
  struct Lost {
    Clock::time_point deadline;
    std::string reason;     // the store's words, without what our message adds
    bool departed = false;  // the PE said why it left (exit before finalize): `reason` is whole
  };
  std::map<int, Lost> lost_;  // rank -> pending "lost" report
};

// "exited with status 7" / "killed by signal 11 (Segmentation fault)".
std::string describe_wait_status(int wait_status);
// The store's reason for a lost rank, without the parts our message already says.
std::string lost_reason_text(int rank, std::string reason);
// True when the store's reason is the PE's own account of leaving ("PE 2 exited with status 1
// before shmem_finalize"), which is reported as it stands.
bool is_departure(int rank, const std::string& reason);
// The launcher's exit status for a PE's wait status (0 for a clean exit).
int exit_code_for(int wait_status);

}  // namespace oshrun
