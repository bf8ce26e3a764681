#pragma once
// Command-line parsing for oshrun.
#include <stdexcept>
#include <string>
#include <vector>

namespace oshrun {

struct Args {
  int npes = 0;  // 0 with a host list: one PE per slot
  bool tag_output = false;
  std::string hosts;      // --hosts H1[:n1],H2[:n2],...
  std::string hostfile;   // --hostfile FILE
  std::string rsh;        // --rsh AGENT ("" = SHMEM_RSH, default ssh)
  int fanout = 32;        // --fanout K: hosts oshrun (and each agent) starts itself
  std::vector<std::string> exports;  // -x NAME=VALUE, resolved (NAME alone takes our value)
  bool help = false;
  bool version = false;
  std::vector<std::string> command;  // program and its arguments
};

// Thrown for bad usage; the launcher prints the message and exits 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses argv[1..]. Options stop at the first non-option word or at "--".
Args parse_args(int argc, const char* const* argv);

// Upper bound on -n: each PE costs three pipes and a process; beyond this it is a typo.
inline constexpr int kMaxPes = 4096;

const char* usage_text();

}  // namespace oshrun
