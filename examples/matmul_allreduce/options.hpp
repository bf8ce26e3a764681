#pragma once
// Command line: matmul_allreduce [-M 1024] [-K 2048] [-N 8192] [-i 5] [-g 4] [-t 32] [-c 0] [-k auto]
#include <cstddef>
#include <string>

#include "problem.hpp"

namespace mc2 {

struct Options {
  Shape shape{1024, 2048, 8192};
  int iterations = 5;          // timed iterations (one more, untimed, warms up first)
  int grid = 4;                // blocks per kernel launch
  std::size_t tile_rows = 32;  // rows of C per tile
  std::size_t check_rows = 0;  // rows of C checked; 0: all of them when M·N·K <= 2^26, else 16
  std::string gemm = "auto";   // GEMM kernel variant (gemm_select)
};

struct ParsedOptions {
  Options options;
  bool help = false;  // -h: print usage() and stop
  std::string error;  // not empty: the argument at fault and why
};

ParsedOptions parse_options(int argc, char** argv);
std::string usage(const char* program);

}  // namespace mc2
