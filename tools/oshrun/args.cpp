#include "oshrun/args.hpp"

#include <cerrno>
#include <cstdlib>
#include <string_view>

#include "oshrun/job.hpp"

namespace oshrun {
namespace {

int parse_count(std::string_view opt, std::string_view text) {
  std::string s(text);
  char* end = nullptr;
  errno = 0;
  long v = s.empty() ? 0 : std::strtol(s.c_str(), &end, 10);
  if (s.empty() || errno != 0 || *end != '\0' || v < 1 || v > kMaxPes)
    throw UsageError("invalid PE count '" + s + "' for " + std::string(opt) +
                     ": expected an integer from 1 to " + std::to_string(kMaxPes));
  return static_cast<int>(v);
}

// -x NAME[=VALUE] -> "NAME=VALUE"; NAME alone exports the launcher's own value.
std::string parse_export(std::string_view text) {
  std::string_view name = text.substr(0, text.find('='));
  bool valid = !name.empty() && !(name[0] >= '0' && name[0] <= '9');
  for (char c : name)
    valid = valid && (c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'));
  if (!valid)
    throw UsageError("invalid -x '" + std::string(text) +
                     "': expected NAME or NAME=VALUE with NAME made of letters, digits and '_'");
  if (is_job_variable(name))
    throw UsageError("-x " + std::string(name) + ": oshrun sets " + std::string(name) +
                     " itself for every PE");
  if (name.size() < text.size()) return std::string(text);
  const char* value = std::getenv(std::string(name).c_str());
  if (!value)
    throw UsageError("-x " + std::string(name) + ": " + std::string(name) +
                     " is not set in oshrun's environment (use -x NAME=VALUE)");
  return std::string(name) + "=" + value;
}

}  // namespace

const char* usage_text() {
  return "usage: oshrun -n N [options] [--] program [args...]\n"
         "       oshrun [-n N] --hosts H1[:n1],H2[:n2],... [options] [--] program [args...]\n"
         "\n"
         "Starts N processing elements (PEs) of `program` on this host (or on the hosts\n"
         "listed), runs the bootstrap store they connect to, and forwards their output and\n"
         "signals.\n"
         "\n"
         "options:\n"
         "  -n N, -np N, --np N   number of PEs to start (required without a host list)\n"
         "  --hosts LIST          hosts and slots, e.g. node1:4,node2:4 (a host without\n"
         "                        :n has 1 slot); also --host, -H\n"
         "  --hostfile FILE       one host[:slots] a line; '#' starts a comment\n"
         "                        PEs fill the hosts in order, each up to its slots; -n may\n"
         "                        be smaller than the slots (default: all of them), never larger\n"
         "  --rsh AGENT           how PEs on other hosts are started, called as ssh is:\n"
         "                        AGENT HOST COMMAND-LINE (default: SHMEM_RSH, else ssh)\n"
         "  --fanout K            start at most K host agents directly; the other hosts\n"
         "                        are started through them, as a tree (default 32)\n"
         "  -x NAME[=VALUE]       set NAME for every PE (NAME alone: oshrun's own value);\n"
         "                        PEs on other hosts get oshrun's environment either way\n"
         "  --tag-output          prefix every output line with \"[PE n] \"\n"
         "  -V, --version         print the version and exit\n"
         "  -h, --help            print this help and exit\n"
         "\n"
         "Each PE gets SHMEM_PE, SHMEM_NPES, SHMEM_STORE_ADDR, SHMEM_JOB_ID,\n"
         "SHMEM_JOB_SECRET and SHMEM_STORE_FD (its end of a socketpair to the store, from\n"
         "oshrun or, on another host, from that host's agent). PE 0 reads oshrun's\n"
         "standard input when it runs on this host; the others read /dev/null.\n"
         "Each other host gets one agent, started as\n"
         "  AGENT HOST 'oshrun' --host-agent --host HOST -- '/abs/program' 'args'...\n"
         "(same paths and working directory there), which starts and watches that host's\n"
         "PEs and forwards their output and exit status; the environment and the secret\n"
         "travel on the agent's stdin, never on a command line. With such a PE the store listens on\n"
         "SHMEM_BOOTSTRAP_ADDR, else SHMEM_BOOTSTRAP_IFACE's address, else the first up,\n"
         "non-loopback IPv4 address (docs/launchers.md, \"Several hosts\").\n"
         "SIGINT, SIGTERM and SIGHUP are forwarded to every PE, followed by SIGKILL after 1 s.\n"
         "When a PE fails (non-zero exit, signal, or store connection lost before\n"
         "shmem_finalize) oshrun names it once and ends the other PEs the same way.\n"
         "\n"
         "exit status: 0 when every PE exits 0; the status of the first PE that fails\n"
         "(128+signal when it was killed); 2 for bad usage; 127 when the program (or the\n"
         "agent) cannot be executed; 255 when an agent failed (ssh's convention).\n";
}

Args parse_args(int argc, const char* const* argv) {
  Args a;
  int i = 1;
  auto take_value = [&](std::string_view opt) -> std::string_view {
    if (i + 1 >= argc) throw UsageError("option " + std::string(opt) + " needs a value");
    return argv[++i];
  };
  for (; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg.empty() || arg[0] != '-') break;
    if (arg == "-n" || arg == "-np" || arg == "--np" || arg == "--n") {
      a.npes = parse_count(arg, take_value(arg));
    } else if (arg.starts_with("--np=") || arg.starts_with("-np=") || arg.starts_with("-n=")) {
      auto eq = arg.find('=');
      a.npes = parse_count(arg.substr(0, eq), arg.substr(eq + 1));
    } else if (arg.size() > 2 && arg.starts_with("-n") && arg[2] >= '0' && arg[2] <= '9') {
      a.npes = parse_count("-n", arg.substr(2));
    } else if (arg == "--hosts" || arg == "--host" || arg == "-H") {
      a.hosts = take_value(arg);
      if (a.hosts.empty()) throw UsageError("--hosts: empty host list (expected H1[:n1],H2[:n2],...)");
    } else if (arg.starts_with("--hosts=") || arg.starts_with("--host=")) {
      a.hosts = arg.substr(arg.find('=') + 1);
      if (a.hosts.empty()) throw UsageError("--hosts: empty host list (expected H1[:n1],H2[:n2],...)");
    } else if (arg == "--hostfile") {
      a.hostfile = take_value(arg);
      if (a.hostfile.empty()) throw UsageError("--hostfile needs a file name");
    } else if (arg.starts_with("--hostfile=")) {
      a.hostfile = arg.substr(arg.find('=') + 1);
      if (a.hostfile.empty()) throw UsageError("--hostfile needs a file name");
    } else if (arg == "--rsh") {
      a.rsh = take_value(arg);
      if (a.rsh.find_first_not_of(" \t") == std::string::npos)
        throw UsageError("option --rsh needs an agent program");
    } else if (arg.starts_with("--rsh=")) {
      a.rsh = arg.substr(arg.find('=') + 1);
      if (a.rsh.find_first_not_of(" \t") == std::string::npos)
        throw UsageError("option --rsh needs an agent program");
    } else if (arg == "--fanout" || arg.starts_with("--fanout=")) {
      std::string_view v = arg == "--fanout" ? take_value(arg) : arg.substr(arg.find('=') + 1);
      std::string t(v);
      char* end = nullptr;
      errno = 0;
      long k = t.empty() ? 0 : std::strtol(t.c_str(), &end, 10);
      if (t.empty() || errno != 0 || *end != '\0' || k < 1 || k > 1024)
        throw UsageError("invalid fan-out '" + t + "' for --fanout: expected an integer from 1 to 1024");
      a.fanout = static_cast<int>(k);
    } else if (arg == "-x") {
      a.exports.push_back(parse_export(take_value(arg)));
    } else if (arg == "--tag-output") {
      a.tag_output = true;
    } else if (arg == "-h" || arg == "--help") {
      a.help = true;
      return a;
    } else if (arg == "-V" || arg == "--version") {
      a.version = true;
      return a;
    } else {
      throw UsageError("unknown option '" + std::string(arg) + "'");
    }
  }
  for (; i < argc; ++i) a.command.emplace_back(argv[i]);
  if (!a.hosts.empty() && !a.hostfile.empty())
    throw UsageError("--hosts and --hostfile both given: use one of them");
  if (a.npes == 0 && a.hosts.empty() && a.hostfile.empty())
    throw UsageError("missing -n N (the number of PEs)");
  if (a.command.empty()) throw UsageError("missing the program to run");
  return a;
}

}  // namespace oshrun
