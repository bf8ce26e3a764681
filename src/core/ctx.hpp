#pragma once
// A communication context (shmem_ctx_t is a pointer to one).
#include <cstdint>

namespace shmem {

class Runtime;
class Team;

// A communication context. PE numbers given with a team context are team-relative:
// `world` maps them (nullptr for world-team contexts, the common case). Aligned so that the
// data path's words and its counters share one cache line.
struct alignas(64) Ctx {
  Runtime* rt = nullptr;
  Team* team = nullptr;
  const int* world = nullptr;  // team PE -> world PE, or nullptr for the world team
  int team_size = 0;
  long options = 0;
  // shmemx_pcntr_* (core/op_counters.hpp): operations complete on return, then those complete at
  // the next quiet, and how many of those a quiet has seen.
  struct Counted {
    std::uint64_t write_now = 0, read_now = 0;
    std::uint64_t write_later = 0, read_later = 0, write_later_done = 0, read_later_done = 0;
  } counted;
};

}  // namespace shmem
