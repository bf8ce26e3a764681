#include "options.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <shmemx.h>

namespace moe {
namespace {

// Parses a whole decimal integer in [lo, hi]; on failure sets `error` naming the option.
bool parse_number(const char* text, char name, long lo, long hi, int& out, std::string& error) {
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || errno == ERANGE || v < lo || v > hi) {
    error = std::string("-") + name + " " + text + ": expected an integer in " + std::to_string(lo) + ".." +
            std::to_string(hi);
    return false;
  }
  out = static_cast<int>(v);
  return true;
}

}  // namespace

bool parse_options(int argc, char** argv, int npes, Options& opt, std::string& error) {
  opterr = 0;  // errors are reported by the caller, once
  optind = 1;
  int c;
  while ((c = getopt(argc, argv, ":t:d:e:k:i:g:")) != -1) {
    bool ok = true;
    switch (c) {
      case 't': ok = parse_number(optarg, 't', 1, 1 << 20, opt.tokens, error); break;
      case 'd': ok = parse_number(optarg, 'd', 1, 1 << 20, opt.hidden, error); break;
      case 'e': ok = parse_number(optarg, 'e', 1, kMaxExperts, opt.experts_per_pe, error); break;
      case 'k': ok = parse_number(optarg, 'k', 1, kMaxTopk, opt.topk, error); break;
      case 'i': ok = parse_number(optarg, 'i', 1, 1000000, opt.iterations, error); break;
      // a cooperative launch runs every block at once
      case 'g': ok = parse_number(optarg, 'g', 1, SHMEMX_MAX_COOPERATIVE_THREADS, opt.grid, error); break;
      case ':': error = std::string("-") + static_cast<char>(optopt) + " needs a value"; return false;
      default: error = std::string("unknown option -") + static_cast<char>(optopt); return false;
    }
    if (!ok) return false;
  }
  if (optind < argc) {
    error = std::string("unexpected argument '") + argv[optind] + "'";
    return false;
  }
  const long experts = static_cast<long>(npes) * opt.experts_per_pe;
  if (experts > kMaxExperts) {
    error = "-e " + std::to_string(opt.experts_per_pe) + ": " + std::to_string(npes) + " PEs would host " +
            std::to_string(experts) + " experts, more than " + std::to_string(kMaxExperts);
    return false;
  }
  if (opt.topk > experts) {
    error = "-k " + std::to_string(opt.topk) + ": more than the " + std::to_string(experts) +
            " experts there are (PEs x -e)";
    return false;
  }
  return true;
}

}  // namespace moe
