#pragma once
// A communication context (shmem_ctx_t is a pointer to one).
#include <cstdint>

namespace shmem {

class Runtime;
class Team;

// A communication context. PE numbers given with a team context are team-relative:
// `world` maps them (nullptr for world-team contexts, the common case).
struct Ctx {
  Runtime* rt = nullptr;
  Team* team = nullptr;
  const int* world = nullptr;  // team PE -> world PE, or nullptr for the world team
  int team_size = 0;
  long options = 0;
  // shmemx_pcntr_* (core/op_counters.hpp).
  struct Counted {
    std::uint64_t issued_write = 0, issued_read = 0, completed_write = 0, completed_read = 0;
  } counted;
};

}  // namespace shmem
