#pragma once
// One host agent as its parent (oshrun, or an agent that starts hosts below it) sees it: the
// process `AGENT HOST COMMAND-LINE` with the job on its stdin (agent_protocol.hpp), the frames
// it sends back, and which of the PEs below it have been accounted for.
#include <signal.h>
#include <sys/types.h>

#include <string>
#include <vector>

#include "oshrun/agent_protocol.hpp"
#include "oshrun/spawn.hpp"
#include "util/unique_fd.hpp"

namespace oshrun {

// How agents are started (shared by every link of one parent).
struct AgentStart {
  std::vector<std::string> rsh;       // the agent's words (--rsh / SHMEM_RSH)
  std::string rsh_path;               // rsh[0] resolved
  std::vector<std::string> command;   // the PE program (absolute) and its arguments
  const CStringArray* env = nullptr;  // the agent process's environment
  sigset_t child_sigmask;
};

class AgentLink {
 public:
  // Starts the agent for `branch.host` (which starts `branch.subtree` in turn); `job` gives
  // the working directory, fan-out, environment and how to start further agents. The job is
  // in the agent's stdin pipe before it runs. Throws shmem::Error when it cannot be started.
  AgentLink(const AgentStart& how, const TreeBranch& branch, const AgentJob& job);

  // 0 once the agent has exec'ed, else the errno of its failed exec.
  int wait_exec();

  pid_t pid() const { return pid_; }
  const std::string& host() const { return host_; }
  int out_fd() const { return out_.get(); }  // -1 once its stdout ended
  bool done() const { return exited_ && !out_; }
  bool exited() const { return exited_; }

  // Reads the agent's stdout (once, or until it ends with `drain`) and appends the frames to
  // `frames`; a remote shell's greeting goes to stderr. An unreadable stream kills the agent.
  void read(std::vector<Frame>& frames, bool drain);
  // The agent was reaped.
  void on_exit(int wait_status) {
    exited_ = true;
    wait_status_ = wait_status;
  }
  // kLost frames for every PE below it that has neither exited nor been reported lost (its
  // agent, or one between, died): the reason names the agent and its status.
  std::vector<Frame> unreported_losses();

  // Sends "signal SIG EXCEPT" down; false (after killing the agent) when it cannot be written.
  bool send_signal(int sig, int except_rank);
  // Closes the agent's stdin: it ends its PEs and agents.
  void close_control() { control_.reset(); }
  void kill(int sig) const;

 private:
  void note(const Frame& f);

  std::string host_;
  std::vector<HostPlan> hosts_;  // [0]: its own host, then the hosts below it
  pid_t pid_ = -1;
  shmem::util::UniqueFd control_;
  shmem::util::UniqueFd out_;
  shmem::util::UniqueFd exec_status_;
  FrameReader reader_;
  std::vector<int> pending_;  // ranks below it not yet accounted for (sorted)
  bool exited_ = false;
  bool garbled_ = false;
  int wait_status_ = 0;
};

}  // namespace oshrun
