// The exported entry point through which header-only device code finds the runtime.
#include "core/runtime.hpp"
#include "shmem/device/state.hpp"

extern "C" const shmem::device::State* shmemx_device_state(void) noexcept {
  shmem::Runtime* r = shmem::current_runtime();
  return r ? &r->device_state() : nullptr;
}
