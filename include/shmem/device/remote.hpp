#pragma once
// The library's side of device-API operations whose target PE is on another host: out of line,
// so that the inlined node-local path of every device call stays as it was (a device call
// reaches these only after its target() found no mapping, and only in a job with PEs on other
// hosts). Internal: kernel code calls the device API (rma.hpp, amo.hpp, signal.hpp, sync.hpp),
// never these; their signatures may change with any version, together with the headers.
// Implemented by src/stream/device_remote.cpp over the core operations of the state's runtime.
//
// Every operand is checked: a `sym` range must lie inside one symmetric segment and `pe` must
// be a PE of another host; atomic and signal words must be aligned to their width. A call that
// fails a check does nothing and returns nonzero (the device header then reports the error as
// for a node-local operand); otherwise 0.
#include <cstddef>
#include <cstdint>

#include "shmem/device/state.hpp"

namespace shmem::device::detail {

// shmemx_device_remote_rma's kind.
enum RemoteRma : int { kRemotePut = 0, kRemoteGet = 1, kRemotePutNbi = 2, kRemoteGetNbi = 3 };

// shmemx_device_remote_amo's op: the library's AmoOp numbering (asserted there).
enum RemoteAmo : int {
  kRemoteFetch = 0, kRemoteSet = 1, kRemoteSwap = 2, kRemoteCompareSwap = 3,
  kRemoteFetchAdd = 6, kRemoteAdd = 7, kRemoteFetchAnd = 8, kRemoteAnd = 9,
  kRemoteFetchOr = 10, kRemoteOr = 11, kRemoteFetchXor = 12, kRemoteXor = 13,
};

}  // namespace shmem::device::detail

#define SHMEM_DEVICE_REMOTE_API __attribute__((visibility("default")))

extern "C" {
// nelems elements of `elem` bytes between symmetric `sym` on `pe` and private `local`; strides
// in elements (1 and 1: one contiguous transfer). The _nbi kinds complete at quiet.
SHMEM_DEVICE_REMOTE_API int shmemx_device_remote_rma(const shmem::device::State* s, int kind, void* sym, void* local,
                                                     std::size_t elem, std::size_t nelems, std::ptrdiff_t sym_stride,
                                                     std::ptrdiff_t local_stride, int pe) noexcept;
// An atomic on the `width`-byte word at `sym` (1, 2, 4 or 8 bytes; is_float: float or double).
// Operands and the old value travel as bit patterns in the low `width` bytes; fetching ops store
// the old value to *old. 4- and 8-byte integer operations (and fetch, set, swap and compare_swap
// on float/double) are the transport's atomics; adds on 1/2-byte words and on float/double are a
// compare-and-swap loop on the transport's atomics (lock-free: a retry means another caller's
// update succeeded).
SHMEM_DEVICE_REMOTE_API int shmemx_device_remote_amo(const shmem::device::State* s, int op, int is_float,
                                                     std::size_t width, void* sym, std::uint64_t value,
                                                     std::uint64_t cond, std::uint64_t* old, int pe) noexcept;
// bytes from `src` to symmetric `dest` on `pe` (none when bytes == 0), then the `sig_width`-byte
// signal (4: Ascend SHMEM's int32_t, 8: OpenSHMEM's uint64_t) set or added (sig_op), ordered after
// the data. nbi: the data completes at quiet.
SHMEM_DEVICE_REMOTE_API int shmemx_device_remote_put_signal(const shmem::device::State* s, void* dest,
                                                            const void* src, std::size_t bytes, void* sig,
                                                            std::size_t sig_width, std::uint64_t signal, int sig_op,
                                                            int nbi, int pe) noexcept;
// quiet (1) or fence (0) of this PE's operations on other hosts.
SHMEM_DEVICE_REMOTE_API void shmemx_device_remote_order(const shmem::device::State* s, int quiet) noexcept;
// The device barrier (sync) of a team with members on several hosts, on device sync cell `slot`:
// world_pes[0 .. n) are its members (nullptr: the world, 0 .. n). One caller per member PE.
SHMEM_DEVICE_REMOTE_API int shmemx_device_remote_sync(const shmem::device::State* s, int slot, const int* world_pes,
                                                      int n) noexcept;
// Drives the transport once (device waits call it while they wait, as the library's do).
SHMEM_DEVICE_REMOTE_API void shmemx_device_remote_progress(const shmem::device::State* s) noexcept;
}
