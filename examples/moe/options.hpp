#pragma once
// moe's command line: -t tokens -d hidden -e experts_per_pe -k topk -i iterations -g grid.
#include <string>

namespace moe {

struct Options {
  int tokens = 128;          // tokens per PE
  int hidden = 256;          // floats per token
  int experts_per_pe = 2;    // experts hosted by every PE (E = npes x experts_per_pe)
  int topk = 2;              // experts per token
  int iterations = 5;        // timed dispatch/experts/combine rounds, after one untimed warm-up
  int grid = 8;              // kernel blocks per PE
};

inline constexpr const char* kUsage =
    "usage: moe [-t tokens=128] [-d hidden=256] [-e experts_per_pe=2] [-k topk=2] [-i iterations=5] [-g grid=8]";

// The most global experts and experts per token: with these every value the example computes is
// an integer or a multiple of 1/64 below 2^17, so every float operation is exact (see README).
inline constexpr int kMaxExperts = 4096;
inline constexpr int kMaxTopk = 16;

// Fills `opt` from argv and checks it against the job size. Returns false, with `error` naming
// the argument at fault, on a bad option or value.
bool parse_options(int argc, char** argv, int npes, Options& opt, std::string& error);

}  // namespace moe
