#include "options.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <shmemx.h>

namespace kv_shuffle {
namespace {

// Parses a whole decimal integer in [lo, hi]; on failure sets `error` naming the option.
bool parse_number(const char* text, char name, unsigned long long lo, unsigned long long hi, unsigned long long& out,
                  std::string& error) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (text[0] == '-' || end == text || *end != '\0' || errno == ERANGE || v < lo || v > hi) {
    error = std::string("-") + name + " " + text + ": expected an integer in " + std::to_string(lo) + ".." +
            std::to_string(hi);
    return false;
  }
  out = v;
  return true;
}

}  // namespace

bool parse_options(int argc, char** argv, Options& opt, std::string& error) {
  opterr = 0;  // errors are reported by the caller, once
  optind = 1;
  int c;
  unsigned long long v = 0;
  while ((c = getopt(argc, argv, ":b:s:i:g:r:")) != -1) {
    switch (c) {
      case 'b':
        if (!parse_number(optarg, 'b', 1, 1u << 20, v, error)) return false;
        opt.nblocks = static_cast<int>(v);
        break;
      case 's':
        if (!parse_number(optarg, 's', 1, 1u << 28, v, error)) return false;
        opt.block_floats = static_cast<std::size_t>(v);
        break;
      case 'i':
        if (!parse_number(optarg, 'i', 1, 1000000, v, error)) return false;
        opt.iterations = static_cast<int>(v);
        break;
      case 'g':  // a cooperative launch runs every block at once
        if (!parse_number(optarg, 'g', 1, SHMEMX_MAX_COOPERATIVE_THREADS, v, error)) return false;
        opt.grid = static_cast<int>(v);
        break;
      case 'r':
        if (!parse_number(optarg, 'r', 0, ~0ull, v, error)) return false;
        opt.seed = v;
        break;
      case ':':
        error = std::string("-") + static_cast<char>(optopt) + " needs a value";
        return false;
      default:
        error = std::string("unknown option -") + static_cast<char>(optopt);
        return false;
    }
  }
  if (optind < argc) {
    error = std::string("unexpected argument '") + argv[optind] + "'";
    return false;
  }
  return true;
}

}  // namespace kv_shuffle
