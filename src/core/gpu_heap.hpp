#pragma once
// The GPU symmetric heap of a Runtime (docs/cuda.md): every PE's heap is a CUDA allocation of
// its device, exported as a POSIX descriptor and mapped by every node-local PE into one range
// (local PE i at base + i * stride). The driver work is the plugin's (src/cuda); this class does
// what needs the PEs: the collective creation, the descriptor exchange, the allocator and the
// device state (shmem/device/cuda/state.hpp).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/heap_allocator.hpp"
#include "plugins/cuda_plugin_abi.h"
#include "shmem/device/cuda/state.hpp"

namespace shmem {
class Runtime;
}

namespace shmem::core {

using GpuState = device::cuda::GpuState;
using GpuStatus = device::cuda::GpuStatus;

class GpuHeap {
 public:
  // Collective over every PE of r: nullptr on every PE alike when any PE failed (the lowest
  // failing PE logs the reason, naming func).
  static std::unique_ptr<GpuHeap> create(Runtime& r, const char* func) noexcept;
  ~GpuHeap();
  GpuHeap(const GpuHeap&) = delete;
  GpuHeap& operator=(const GpuHeap&) = delete;

  // Whether addr lies in this PE's GPU heap.
  bool contains(const void* addr) const noexcept {
    return reinterpret_cast<std::uintptr_t>(addr) - reinterpret_cast<std::uintptr_t>(state_.my_heap) < state_.heap_size;
  }
  // addr (in this PE's GPU heap) as pe's copy mapped here; nullptr when pe is on another host.
  char* peer(const void* addr, int pe) const noexcept {
    const int li = local_index_[static_cast<std::size_t>(pe)];
    if (li < 0) return nullptr;
    return state_.base + static_cast<std::size_t>(li) * state_.stride +
           (static_cast<const char*>(addr) - state_.my_heap);
  }
  // Bytes from addr to the end of this PE's GPU heap (addr must be contained).
  std::size_t room(const void* addr) const noexcept {
    return state_.heap_size - static_cast<std::size_t>(static_cast<const char*>(addr) - state_.my_heap);
  }

  // The allocator over the user part (after kGpuInternalBytes); deterministic, so symmetric.
  void* alloc(std::size_t size, std::size_t alignment);
  bool release(void* p);
  std::size_t largest_free() const;
  std::size_t capacity() const noexcept { return alloc_.capacity(); }
  char* user_base() const noexcept { return state_.my_heap + device::cuda::kGpuInternalBytes; }

  const GpuState& state() const noexcept { return state_; }

  // The status record's first error, taken (record.code kGpuErrNone: none). Any kernel of this PE
  // may write the record at any time (other streams, the application's kernels), so a
  // synchronised stream does not make it quiet: a record a kernel has claimed but not completed
  // (`ready` not yet set) is waited for a moment; a complete one is copied and cleared for the next
  // error, fields first and `code` last, so that no kernel claims it while it is being cleared.
  // One that stays incomplete is returned as it is and left alone to its writer, and not waited
  // for again; once complete it is cleared by a later call, which does not return it again
  // (`repeat`). With context_lost (the CUDA context is lost: none of its kernels runs any more, so
  // none can complete the record) nothing is waited for and an incomplete record is cleared too
  // (`abandoned`). One thread at a time.
  struct TakenStatus {
    GpuStatus record{};
    bool complete = false;   // record's fields are those of the error
    bool repeat = false;     // returned before, while incomplete: logged now, not returned again
    bool abandoned = false;  // incomplete, and cleared: its writer ended with the context
  };
  TakenStatus take_status(bool context_lost = false) const;

  // Driver operations (complete on return); false with *error set.
  bool copy(void* dst, const void* src, std::size_t bytes, std::string* error) const;
  bool copy_2d(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch, std::size_t block,
               std::size_t count, std::string* error) const;
  bool fill(void* dst, unsigned char value, std::size_t bytes, std::string* error) const;
  // *lost (when not null): the failure lost the CUDA context (SHMEM_CUDA_CONTEXT_LOST).
  bool stream_sync(void* stream, std::string* error, bool* lost = nullptr) const;
  // Enqueues op on a user's CUDA stream (the plugin's stream kernels); false with *error set.
  bool stream_op(void* stream, const shmem_cuda_stream_op& op, std::string* error) const;
  // A host atomic (shmem_cuda_atomic_op) on the symmetric word addr of world PE pe, complete on
  // return; *old gets the previous value. False with *error set.
  bool atomic(void* addr, int pe, int width, int op, std::uint64_t value, std::uint64_t cond, std::uint64_t* old,
              std::string* error) const;
  // Whether a kernel of this PE's device can access the local buffer addr (the plugin's
  // kernel_access): *access a shmem_cuda_access (SHMEM_CUDA_ACCESS_OK or why not), *device the
  // device whose memory it is (-1: host memory). False with *error set when the driver could not tell.
  bool kernel_access(const void* addr, int* access, int* device, std::string* error) const;
  // A team's members (world PEs) as a device array for stream collectives and the device team
  // table: made once per membership, kept until the heap goes (nullptr with *error set on
  // failure). Keyed by the members, not the team slot, so a team in a reused slot gets its own
  // list; never freed at team_destroy, since kernels enqueued before it may still read the list.
  const int* team_members(const std::vector<int>& world_pes, std::string* error);
  // The device team table (GpuState::teams): entry `slot` names the team of public handle
  // `handle` (this PE its member `me` of world_pes), or is cleared. False with *error set.
  bool set_team(int slot, std::uint64_t handle, int me, const std::vector<int>& world_pes, std::string* error);
  bool clear_team(int slot, std::string* error);

 private:
  GpuHeap() : alloc_(0) {}
  bool open(const std::string& driver, int device, int local_rank, shmem_cuda_device_info* info, std::string* error);
  bool finish(Runtime& r, std::string* error);

  const shmem_cuda_plugin* p_ = nullptr;
  void* ctx_ = nullptr;
  void* heap_ = nullptr;
  void* index_dev_ = nullptr;
  void* teams_dev_ = nullptr;  // kGpuTeams GpuTeam entries
  GpuStatus* status_host_ = nullptr;
  bool claimed_ = false;          // holds the process's one GPU heap
  std::vector<int> local_index_;  // per world PE: local index, -1 on another host
  GpuState state_;
  mutable std::mutex mu_;  // the allocator and the team member arrays
  mutable std::mutex status_mu_;          // take_status
  mutable bool status_returned_ = false;  // under status_mu_: the incomplete record was returned (and waited for)
  HeapAllocator alloc_;
  std::vector<std::pair<std::vector<int>, void*>> team_members_;  // device copies, by membership
};

// Rounds bytes up to a multiple of granularity (a power of two or any positive number).
constexpr std::size_t gpu_round_up(std::size_t bytes, std::size_t granularity) noexcept {
  return (bytes + granularity - 1) / granularity * granularity;
}

// The device state sinks (shmemx_cuda_state_sink_add): process-wide, as device code is.
// Publishing calls every sink with the state and remembers it for sinks added later.
void add_gpu_sink(shmemx_cuda_state_sink_t sink) noexcept;
void publish_gpu_state(const GpuState& state) noexcept;

}  // namespace shmem::core
