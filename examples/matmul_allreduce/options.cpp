#include "options.hpp"

#include <charconv>
#include <cstring>
#include <limits>

namespace mc2 {
namespace {

// A whole decimal number in [lo, hi], or an error message naming the option.
template <class T>
bool parse_number(const char* flag, const char* text, T lo, T hi, T& out, std::string& error) {
  T v{};
  const char* end = text + std::strlen(text);
  const auto [ptr, ec] = std::from_chars(text, end, v);
  if (ec != std::errc{} || ptr != end || *text == '\0' || v < lo || v > hi) {
    error = std::string(flag) + " expects a whole number from " + std::to_string(lo) + " to " + std::to_string(hi) +
            ", got '" + text + "'";
    return false;
  }
  out = v;
  return true;
}

}  // namespace

ParsedOptions parse_options(int argc, char** argv) {
  ParsedOptions r;
  Options& o = r.options;
  constexpr std::size_t kMaxDim = std::size_t{1} << 20;  // keeps M·N, M·K, K·N and 2·M·N·K far from overflow
  for (int i = 1; i < argc; ++i) {
    const char* flag = argv[i];
    if (std::strcmp(flag, "-h") == 0 || std::strcmp(flag, "--help") == 0) {
      r.help = true;
      return r;
    }
    if (i + 1 >= argc) {
      r.error = std::string("option '") + flag + "' is unknown or lacks its value";
      return r;
    }
    const char* v = argv[++i];
    bool ok = false;
    if (std::strcmp(flag, "-M") == 0) ok = parse_number(flag, v, std::size_t{1}, kMaxDim, o.shape.m, r.error);
    else if (std::strcmp(flag, "-K") == 0) ok = parse_number(flag, v, std::size_t{1}, kMaxDim, o.shape.k, r.error);
    else if (std::strcmp(flag, "-N") == 0) ok = parse_number(flag, v, std::size_t{1}, kMaxDim, o.shape.n, r.error);
    else if (std::strcmp(flag, "-i") == 0) ok = parse_number(flag, v, 1, 1000000, o.iterations, r.error);
    else if (std::strcmp(flag, "-g") == 0) ok = parse_number(flag, v, 1, 1024, o.grid, r.error);
    else if (std::strcmp(flag, "-t") == 0) ok = parse_number(flag, v, std::size_t{1}, kMaxDim, o.tile_rows, r.error);
    else if (std::strcmp(flag, "-c") == 0) ok = parse_number(flag, v, std::size_t{0}, kMaxDim, o.check_rows, r.error);
    else if (std::strcmp(flag, "-k") == 0) {
      o.gemm = v;
      ok = true;
    } else r.error = std::string("unknown option '") + flag + "'";
    if (!ok) return r;
  }
  return r;
}

std::string usage(const char* program) {
  return std::string("usage: ") + program +
         " [-M rows] [-K depth] [-N cols] [-i iterations] [-g blocks] [-t tile_rows] [-c check_rows]"
         " [-k kernel]\n"
         "  C = A·B with A M x K and B K x N (defaults 1024 x 2048 x 8192), K split across the PEs;\n"
         "  -i timed iterations (5; one untimed warm-up runs first), -g blocks per kernel (4),\n"
         "  -t rows of C per tile (32), -c rows of C checked on every PE (0: all when M·N·K <= 2^26, else 16),\n"
         "  -k GEMM kernel: auto (the best this CPU supports), avx512, avx2 or generic\n";
}

}  // namespace mc2
