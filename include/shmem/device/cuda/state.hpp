#pragma once
// What CUDA kernels need to reach symmetric GPU memory without calling into the library: the
// contract between the CUDA plugin (src/cuda, host side, which fills it) and the device headers
// of include/shmem/device/cuda (which read it from __constant__ memory). Plain data, no CUDA
// types, so host code compiled by g++ and device code compiled by nvcc share it.
//
// The GPU symmetric heap: every node-local PE owns `heap_size` bytes of GPU memory (the CUDA
// virtual-memory API, exported as POSIX file descriptors and mapped by every node-local PE).
// Each process reserves one virtual range and maps node-local PE with local index i at
// base + i * stride, so the peer's copy of a symmetric address is one add away:
//     peer = base + local_index[pe] * stride + (addr - my_heap)
// The first kGpuInternalBytes of every PE's GPU heap belong to the library (device barrier
// cells, stream-operation words); user allocations start after them.
#include <cstddef>
#include <cstdint>

namespace shmem::device::cuda {

inline constexpr std::uint32_t kGpuStateVersion = 2;  // 2: the team table

// The runtime-internal area at the start of every PE's GPU heap.
inline constexpr std::size_t kGpuInternalBytes = 64 * 1024;
inline constexpr std::size_t kGpuSyncOffset = 0;            // device barrier cells (SyncCell, 128 B each)
inline constexpr int kGpuSyncSlots = 128;                   // one per team slot, as on the CPU device
inline constexpr std::size_t kGpuStreamOffset = 16 * 1024;  // words of the on-stream host operations
inline constexpr std::size_t kGpuStreamBytes = 16 * 1024;

// The teams kernels may name (GpuState::teams, device memory): one entry per team slot of the
// library (slot i at entry i), filled by the host when a team is made while a GPU heap exists
// or when the heap is made, cleared when the team is destroyed. The world has entry 0 and its
// own fast path. A kernel finds a team by its handle (the shmem_team_t value).
inline constexpr int kGpuTeams = 128;
inline constexpr int kGpuTeamCells = 64;  // device barrier cells of kernels' teams: cell slot % 64
struct GpuTeam {
  std::uint64_t handle;  // the team's shmem_team_t value; 0: no team here
  std::int32_t n;        // members
  std::int32_t me;       // this PE's index in the team
  std::int32_t slot;     // the library's team slot (== the entry's index)
  std::int32_t pad_;
  const std::int32_t* members;  // device memory, n entries: member i as a world PE
};

// Where a kernel reports the first error of this PE (a bad PE, an address outside the GPU heap, a
// wait past SHMEM_WAIT_TIMEOUT, a PE on another host). Lives in pinned host memory mapped into
// the device, so the host reads it while (or after) a kernel fails. `code` is claimed with a
// compare-and-swap from 0: the first error wins; the fields after it are written by the winner,
// which then publishes `ready` = 1 with a system-scope release.
enum GpuErrorKind : std::uint32_t {
  kGpuErrNone = 0,
  kGpuErrBadPe = 1,           // pe out of range
  kGpuErrNotSymmetric = 2,    // addr (+bytes) not inside this PE's GPU heap
  kGpuErrFarPe = 3,           // pe is on another host: not reachable from a kernel (part 1)
  kGpuErrTimeout = 4,         // a wait exceeded SHMEM_WAIT_TIMEOUT (the kernel then traps)
  kGpuErrBadArgument = 5,     // cmp, sig_op, stride, alignment
  kGpuErrNotInitialized = 6,  // device API used with no GPU heap (state not set)
};
struct GpuStatus {
  std::uint32_t code;      // GpuErrorKind; 0 while no error
  std::uint32_t ready;     // 1 once the fields below are complete
  std::int32_t pe;         // the PE that reported (this PE)
  std::int32_t target_pe;  // the PE the operation addressed (or -1)
  std::uint64_t addr;      // the symmetric address involved (or 0)
  std::uint64_t bytes;     // its size
  std::uint64_t expected;  // waits: the value compared against (bit pattern)
  std::uint64_t seen;      // waits: the last value seen
  std::int32_t cmp;        // waits: SHMEM_CMP_*; arguments: the bad value
  std::uint32_t block;     // blockIdx.x of the reporter
  std::uint32_t thread;    // threadIdx.x of the reporter
  std::uint32_t pad_;
  char routine[64];  // NUL-terminated name of the device routine
};

struct GpuState {
  std::uint32_t version = 0;  // kGpuStateVersion once filled; 0: no GPU heap (device calls fail)
  std::int32_t my_pe = 0;
  std::int32_t n_pes = 0;
  std::int32_t device = -1;                   // this PE's CUDA device ordinal
  std::int32_t my_local = 0;                  // this PE's local index (its heap is base + my_local * stride)
  std::int32_t n_local = 0;                   // node-local PEs mapped in the range
  char* base = nullptr;                       // device address of the reserved range
  std::size_t stride = 0;                     // bytes between consecutive local PEs' heaps (granularity-aligned)
  std::size_t heap_size = 0;                  // bytes of each PE's GPU heap (including kGpuInternalBytes)
  char* my_heap = nullptr;                    // base + my_local * stride
  const std::int32_t* local_index = nullptr;  // device memory, n_pes entries: local index, -1 = another host
  GpuStatus* status = nullptr;                // device address of the mapped pinned GpuStatus
  std::uint64_t timeout_ns = 0;               // SHMEM_WAIT_TIMEOUT in ns (0 = never)
  const GpuTeam* teams = nullptr;             // device memory, kGpuTeams entries
};

}  // namespace shmem::device::cuda

extern "C" {
// Device code keeps its own copy of the GpuState in __constant__ memory (one per translation
// unit that includes the CUDA device headers); the header registers a sink per translation unit
// at load time, and the library calls every sink with the state whenever it changes (GPU heap
// created: filled; destroyed: version 0). A sink registered after the heap exists is called at
// once. `device` is the CUDA device the state belongs to (the sink makes it current first).
// Returns 0.
typedef void (*shmemx_cuda_state_sink_t)(const void* state, std::size_t bytes, int device);
__attribute__((visibility("default"))) int shmemx_cuda_state_sink_add(shmemx_cuda_state_sink_t sink) noexcept;
}
