#pragma once
// The collectives' private bookkeeping that lives on the Runtime (one per job membership).
#include <cstdint>
#include <vector>

namespace shmem {

// This PE's private side of the rings: per world PE, the last sequence number sent to it, its
// consumed word as last read, and the last one taken from it. usable (agreed at init): every PE
// runs below SHMEM_THREAD_MULTIPLE, so each PE makes its collective calls one at a time, the
// job is on one host, and every PE allows rings (SHMEM_COLL_RINGS; by default only where PEs do
// not outnumber CPUs).
struct RingBook {
  std::vector<std::uint64_t> sent, credit, taken;
  bool usable = false;
};

}  // namespace shmem
