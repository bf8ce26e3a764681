#pragma once
// What in-kernel (device) code needs to address symmetric memory without calling into the
// library: this PE's number, the job size, and where every node-local PE's heap and static
// data are mapped in this process. Read-only after init; shared by every kernel thread.
#include "shmem/device/cxx20.hpp"  // first: refuses C++ before 20 in words
#include <cstddef>
#include <cstdint>

namespace shmem::device {

struct State {
  int my_pe = 0;
  int n_pes = 1;
  std::uintptr_t heap_lo = 0;  // this PE's heap base (symmetric addresses are relative to it)
  std::size_t heap_size = 0;
  std::uintptr_t data_lo = 0;  // this PE's static-data segment
  std::size_t data_size = 0;
  char* const* heap = nullptr;  // heap[pe]: PE pe's heap as mapped here (nullptr if not local)
  char* const* data = nullptr;  // data[pe]: PE pe's static data as mapped here
  // Some PE is on another host (heap[pe] == nullptr): operations on such PEs go through the
  // library (remote.hpp), and device waits drive its transport.
  bool remote = false;
  const void* runtime = nullptr;  // the library's runtime behind this state (opaque here)
};

}  // namespace shmem::device

extern "C" {
// The current instance's device state (nullptr before init). Stable until finalize.
__attribute__((visibility("default"))) const shmem::device::State* shmemx_device_state(void) noexcept;
}
