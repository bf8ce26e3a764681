#pragma once
// The runtime behind a device state (State::runtime, opaque to device code): for the library's
// out-of-line side of the device API (device_remote.cpp, device_wait.cpp).
#include "core/runtime.hpp"
#include "shmem/device/state.hpp"

namespace shmem::stream {

inline Runtime& owner(const device::State* s) noexcept { return *static_cast<Runtime*>(const_cast<void*>(s->runtime)); }

}  // namespace shmem::stream
