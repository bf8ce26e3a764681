#pragma once
// The wire protocol between oshrun and its host agents (docs/launchers.md, "Several hosts").
//
// oshrun starts one agent per remote host, `AGENT HOST '<oshrun>' --host-agent --host HOST --
// '<program>' '<arg>'...` (AGENT = --rsh / SHMEM_RSH, called as ssh is), and beyond the fan-out
// the agents start further hosts the same way. Downstream, on the agent's stdin:
//     "SHMEM-AGENT 1 <n>\n" and n bytes: the job (AgentJob: working directory, this host's
//     ranks, the hosts this agent starts, the PEs' environment with the secret)
//     then control lines: "signal SIG EXCEPT\n" (send SIG to every PE below, except rank
//     EXCEPT; -1: none)
// End of stdin means the launcher (or the connection) is gone: the agent ends its PEs
// (SIGTERM, then SIGKILL after 1 s) and closes its own agents' stdin, which do the same.
// Upstream, on the agent's stdout: the line "SHMEM-AGENT-UP 1\n", then frames (Frame) for
// every PE below it: output, end of output, exit status, "lost" (its agent died).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace oshrun {

inline constexpr std::string_view kHostAgentOption = "--host-agent";
inline constexpr std::string_view kAgentHello = "SHMEM-AGENT-UP 1\n";
// Hosts an agent (or oshrun) starts itself; the others are started through them.
inline constexpr int kDefaultFanout = 32;

// One host's PEs.
struct HostPlan {
  std::string host;
  std::vector<int> ranks;
};

// What an agent is told on its stdin.
struct AgentJob {
  std::string cwd;
  int fanout = kDefaultFanout;
  std::vector<std::string> rsh;  // the agent's words, for the hosts this one starts
  std::string oshrun_path;
  std::vector<int> ranks;         // this host's PEs
  std::vector<HostPlan> subtree;  // hosts this agent starts (directly or through others)
  std::vector<std::string> env;   // every PE's environment, without SHMEM_PE
};

// "SHMEM-AGENT 1 <n>\n" + payload.
std::string encode_agent_job(const AgentJob& job);
// Reads the job from `fd` (blocking). Throws std::runtime_error saying what is wrong.
AgentJob read_agent_job(int fd);

// The tree: the first min(fanout, n) hosts are started directly, each with an equal share (in
// order) of the rest to start below it.
struct TreeBranch {
  HostPlan host;
  std::vector<HostPlan> subtree;
};
std::vector<TreeBranch> split_tree(const std::vector<HostPlan>& hosts, int fanout);

// The one command-line argument handed to the agent (the remote shell runs it).
std::string agent_command_line(const std::string& oshrun_path, const std::string& host,
                               const std::vector<std::string>& command);

// Upstream frames: a 13-byte header (type, rank, value, length; big-endian) and `data`.
enum class FrameType : char {
  kStdout = 'O',  // data: bytes the PE wrote
  kStderr = 'E',
  kStdoutEnd = 'o',  // the PE's stream closed (a last partial line is complete now)
  kStderrEnd = 'e',
  kExit = 'X',  // value: the PE's wait status
  kLost = 'L',  // value: the job's exit status; data: why ("lost: the agent ...")
};
struct Frame {
  FrameType type = FrameType::kExit;
  int rank = -1;
  int value = 0;
  std::string data;
};
std::string encode_frame(FrameType type, int rank, int value, std::string_view data = {});

// Splits an agent's stdout into frames. Bytes before the hello line (a remote shell's
// greeting) come out as `junk`, to be shown on stderr.
class FrameReader {
 public:
  void feed(const char* data, std::size_t n);
  std::optional<Frame> next();
  std::string take_junk();
  bool corrupt() const { return corrupt_; }

 private:
  std::string buf_;
  std::size_t pos_ = 0;
  bool up_ = false;
  bool corrupt_ = false;
  std::string junk_;
};

}  // namespace oshrun
