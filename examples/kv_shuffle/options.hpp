#pragma once
// kv_shuffle's command line: -b nblocks -s block_floats -i iterations -g grid -r seed.
#include <cstddef>
#include <cstdint>
#include <string>

namespace kv_shuffle {

struct Options {
  int nblocks = 64;                 // KV-cache blocks per PE
  std::size_t block_floats = 4096;  // floats per block (16 KiB)
  int iterations = 5;               // timed shuffles, after one untimed warm-up
  int grid = 8;                     // kernel blocks per PE
  std::uint64_t seed = 2024;        // shuffle-table seed (the same on every PE)
};

inline constexpr const char* kUsage =
    "usage: kv_shuffle [-b nblocks=64] [-s block_floats=4096] [-i iterations=5] [-g grid=8] [-r seed=2024]";

// Fills `opt` from argv. Returns false, with `error` naming the argument at fault, on a bad
// option or value.
bool parse_options(int argc, char** argv, Options& opt, std::string& error);

}  // namespace kv_shuffle
