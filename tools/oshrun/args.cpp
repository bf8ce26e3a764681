#include "oshrun/args.hpp"

#include <cerrno>
#include <cstdlib>
#include <string_view>

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

}  // namespace

const char* usage_text() {
  return "usage: oshrun -n N [options] [--] program [args...]\n"
         "\n"
         "Starts N processing elements (PEs) of `program` on this host, runs the bootstrap\n"
         "store they connect to, and forwards their output and signals.\n"
         "\n"
         "options:\n"
         "  -n N, -np N, --np N   number of PEs to start (required)\n"
         "  --tag-output          prefix every output line with \"[PE n] \"\n"
         "  -V, --version         print the version and exit\n"
         "  -h, --help            print this help and exit\n"
         "\n"
         "Each PE gets SHMEM_PE, SHMEM_NPES, SHMEM_STORE_ADDR, SHMEM_JOB_ID and\n"
         "SHMEM_JOB_SECRET. PE 0 reads oshrun's standard input; the others read /dev/null.\n"
         "SIGINT, SIGTERM and SIGHUP are forwarded to every PE, followed by SIGKILL after 1 s.\n"
         "When a PE fails (non-zero exit, signal, or store connection lost before\n"
         "shmem_finalize) oshrun names it once and ends the other PEs the same way.\n"
         "\n"
         "exit status: 0 when every PE exits 0; the status of the first PE that fails\n"
         "(128+signal when it was killed); 2 for bad usage; 127 when the program cannot\n"
         "be executed.\n";
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
  if (a.npes == 0) throw UsageError("missing -n N (the number of PEs)");
  if (a.command.empty()) throw UsageError("missing the program to run");
  return a;
}

}  // namespace oshrun
