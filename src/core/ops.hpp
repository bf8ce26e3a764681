#pragma once
// The internal operations behind every public API surface (shmem.h, shmemx.h, later aclshmem.h,
// the C++ and Python APIs). The C shims in src/api/ are thin: optional argument checks, then
// one call here. Data-path functions are noexcept and never allocate or throw. Set-up
// functions (init, malloc, ...) throw shmem::Error; the shim turns that into a return code or
// a fatal message.
#include <cstddef>
#include <cstdint>

#include "transport/amo_op.hpp"

namespace shmem {

class Runtime;
struct Ctx;  // a communication context; the default context always exists

namespace core {

// ---- lifecycle ------------------------------------------------------------------------------
// Thread levels use the spec's numbering: SINGLE=0, FUNNELED=1, SERIALIZED=2, MULTIPLE=3.
// init is idempotent per process (a second call is a no-op, as the spec allows).
// Throws Error on failure.
void init(int requested_thread_level, int* provided_thread_level);
void finalize() noexcept;  // harmless without init; collective otherwise
// shmemx_finalize_at_exit: the implicit finalize at exit (status 0) waits for every PE.
void finalize_at_exit_request() noexcept;
bool initialized() noexcept;
int query_thread() noexcept;
[[noreturn]] void global_exit(int status) noexcept;

// Aborts with "<func> called before shmem_init" unless initialised; returns the runtime.
Runtime& rt(const char* func) noexcept;
int my_pe() noexcept;  // fatal before init, like every other call
int n_pes() noexcept;

// A fatal error that ends the whole job with a clear message (never returns).
[[noreturn]] void fatal(const char* func, const char* fmt, ...) noexcept
    __attribute__((format(printf, 2, 3)));

// ---- contexts -------------------------------------------------------------------------------
// A public shmem_ctx_t value maps to its Ctx inline (core/hot.hpp, hot::ctx; nullptr means
// SHMEM_CTX_DEFAULT).

// ---- argument checks (SHMEM_DEBUG=1 or the SHMEM_CHECKED build option) --------------------
// Whether they are on: core/hot.hpp, hot::checks.
// Each aborts with a message naming `func`, the argument and the knob, when invalid. The ctx
// form numbers `pe` within the context's team (a team context's PEs are team PEs).
void check_pe(const char* func, int pe) noexcept;
void check_pe(const char* func, const Ctx* ctx, int pe) noexcept;
void check_symmetric(const char* func, const char* arg, const void* addr, std::size_t bytes) noexcept;
// Only that [addr, addr + bytes) lies in one symmetric region (heap or static data): a few
// compares, no allocator lookup.
void check_symmetric_range(const char* func, const char* arg, const void* addr, std::size_t bytes) noexcept;
void check_local(const char* func, const char* arg, const void* addr, std::size_t bytes) noexcept;

// ---- GPU symmetric memory (CUDA backend; core/gpu_heap.hpp, core/gpu_rma.cpp) ---------------
// Collective like malloc; the first call creates the GPU heap (every PE alike). nullptr on every
// PE for size 0, when the heap cannot be created or is exhausted (logged once, naming func).
void* gpu_alloc(std::size_t alignment, std::size_t size, bool zero, const char* func) noexcept;
void gpu_free(void* p, const char* func) noexcept;
// addr (in this PE's GPU heap) as pe's copy mapped here; ends the job when pe has none.
char* gpu_target(const Runtime& r, const void* addr, int pe, const char* func, const char* arg) noexcept;
// Ends the job: `arg` is GPU memory, which `func` cannot use from the host (yet).
[[noreturn]] void gpu_unsupported(const Runtime& r, const void* addr, const char* func, const char* arg) noexcept;
// A host atomic on the GPU word `sym` (this PE's symmetric address) of node-local world PE `pe`:
// the plugin's one-thread kernel, complete on return. Returns the previous value (zero-extended;
// 0 for the non-fetching operations' callers to ignore). Ends the job naming func on failure.
std::uint64_t gpu_amo(const Runtime& r, AmoOp op, void* sym, int pe, std::size_t width, std::uint64_t value,
                      std::uint64_t cond, const char* func) noexcept;
// Copies `bytes` of this PE's own GPU memory at `addr` into `out` (how the host reads a word it
// waits on). Ends the job naming func on failure.
void gpu_read(const Runtime& r, const volatile void* addr, void* out, std::size_t bytes, const char* func) noexcept;
// Ends the job unless [addr, addr + bytes) lies within this PE's GPU heap (addr must be in it).
void gpu_check_range(const Runtime& r, const void* addr, std::size_t bytes, const char* func, const char* arg) noexcept;
// Transfers between local memory and pe's GPU heap (peer: from gpu_target; sym: the symmetric
// address), through the driver; complete on return. The strided form moves `count` blocks of
// `block` bytes, the symmetric side advancing sym_pitch and the local side local_pitch bytes.
void gpu_transfer(const Runtime& r, bool is_put, const void* sym, char* peer, void* local, std::size_t bytes,
                  const char* func) noexcept;
void gpu_transfer_2d(const Runtime& r, bool is_put, const void* sym, char* peer, std::ptrdiff_t sym_pitch, void* local,
                     std::ptrdiff_t local_pitch, std::size_t block, std::size_t count, const char* func) noexcept;

// ---- symmetric memory -----------------------------------------------------------------------
// Collective; return nullptr for size 0 or when the heap is exhausted (logged, naming
// SHMEM_SYMMETRIC_SIZE). All end with a barrier as the spec requires. `func` is the public
// routine the messages name (shmalloc, aclshmem_malloc, ...).
void* malloc(std::size_t size, const char* func = "shmem_malloc") noexcept;
void* calloc(std::size_t count, std::size_t size, const char* func = "shmem_calloc") noexcept;
void* align(std::size_t alignment, std::size_t size, const char* func = "shmem_align") noexcept;
void* realloc(void* ptr, std::size_t size, const char* func = "shmem_realloc") noexcept;
void free(void* ptr, const char* func = "shmem_free") noexcept;
// shmem_ptr is inline: core/hot.hpp, hot::ptr.
bool addr_accessible(const void* addr, int pe) noexcept;
bool pe_accessible(int pe) noexcept;

// ---- the public routine's name -----------------------------------------------------------------
// Every data-path operation takes the public routine's name last (the shims pass __func__): it
// only reaches the error path, so a bad PE or address from shmem_long_p is reported as
// "shmem_long_p: pe=..." and not under an internal name. The defaults serve callers inside the
// library that have no public name of their own.

// ---- RMA (byte based; typed families multiply by sizeof) -------------------------------------
void put(Ctx* ctx, void* dest, const void* src, std::size_t bytes, int pe, const char* func = "shmem_put") noexcept;
void get(Ctx* ctx, void* dest, const void* src, std::size_t bytes, int pe, const char* func = "shmem_get") noexcept;
void put_nbi(Ctx* ctx, void* dest, const void* src, std::size_t bytes, int pe,
             const char* func = "shmem_put_nbi") noexcept;
void get_nbi(Ctx* ctx, void* dest, const void* src, std::size_t bytes, int pe,
             const char* func = "shmem_get_nbi") noexcept;
// Strides are in elements of `elem_size` bytes, as in the spec.
void iput(Ctx* ctx, void* dest, const void* src, std::ptrdiff_t dst_stride, std::ptrdiff_t src_stride,
          std::size_t nelems, std::size_t elem_size, int pe, const char* func = "shmem_iput") noexcept;
void iget(Ctx* ctx, void* dest, const void* src, std::ptrdiff_t dst_stride, std::ptrdiff_t src_stride,
          std::size_t nelems, std::size_t elem_size, int pe, const char* func = "shmem_iget") noexcept;
// 1.6 blocked strided: nblocks blocks of bsize elements; strides in elements between block starts.
void ibput(Ctx* ctx, void* dest, const void* src, std::ptrdiff_t dst_stride, std::ptrdiff_t src_stride,
           std::size_t bsize, std::size_t nblocks, std::size_t elem_size, int pe,
           const char* func = "shmem_ibput") noexcept;
void ibget(Ctx* ctx, void* dest, const void* src, std::ptrdiff_t dst_stride, std::ptrdiff_t src_stride,
           std::size_t bsize, std::size_t nblocks, std::size_t elem_size, int pe,
           const char* func = "shmem_ibget") noexcept;

// ---- atomics --------------------------------------------------------------------------------
using shmem::AmoOp;  // transport/amo_op.hpp: one enum for every layer
// One entry point per operand width; typed shims reinterpret their values (bit-cast for
// float/double, which the spec allows only for fetch/set/swap/compare_swap). `value` is the
// operand (add amount, new value, swap value); `cond` is compare_swap's comparand. Returns the
// old value for fetching ops (0 otherwise). `op` at run time: for the library's own callers.
std::uint32_t amo32(Ctx* ctx, AmoOp op, void* dest, std::uint32_t value, std::uint32_t cond, int pe,
                    const char* func = "shmem_atomic") noexcept;
std::uint64_t amo64(Ctx* ctx, AmoOp op, void* dest, std::uint64_t value, std::uint64_t cond, int pe,
                    const char* func = "shmem_atomic") noexcept;
// The same with the operation fixed at compile time, one instance per AmoOp (ops_amo.cpp): what
// the public AMO routines call. The node-local path of an instance is the one CPU atomic, with
// no dispatch on `op`, and its six arguments all travel in registers, so the public routine
// ends in a tail call (a seventh argument goes on the stack: that cost the 64-bit fetch-add a
// nanosecond, docs/performance.md).
template <AmoOp Op>
std::uint32_t amo32(Ctx* ctx, void* dest, std::uint32_t value, std::uint32_t cond, int pe, const char* func) noexcept;
template <AmoOp Op>
std::uint64_t amo64(Ctx* ctx, void* dest, std::uint64_t value, std::uint64_t cond, int pe, const char* func) noexcept;
// Nonblocking fetching forms: the old value is stored to *fetch (complete at quiet).
void amo32_nbi(Ctx* ctx, AmoOp op, std::uint32_t* fetch, void* dest, std::uint32_t value, std::uint32_t cond, int pe,
               const char* func = "shmem_atomic_nbi") noexcept;
void amo64_nbi(Ctx* ctx, AmoOp op, std::uint64_t* fetch, void* dest, std::uint64_t value, std::uint64_t cond, int pe,
               const char* func = "shmem_atomic_nbi") noexcept;

// ---- signals (sig_op: 0 = SHMEM_SIGNAL_SET, 1 = SHMEM_SIGNAL_ADD) ---------------------------
void put_signal(Ctx* ctx, void* dest, const void* src, std::size_t bytes, std::uint64_t* sig_addr,
                std::uint64_t signal, int sig_op, int pe, const char* func = "shmem_put_signal") noexcept;
void put_signal_nbi(Ctx* ctx, void* dest, const void* src, std::size_t bytes, std::uint64_t* sig_addr,
                    std::uint64_t signal, int sig_op, int pe, const char* func = "shmem_put_signal_nbi") noexcept;
void signal_op(Ctx* ctx, std::uint64_t* sig_addr, std::uint64_t signal, int sig_op, int pe,
               const char* func = "shmem_signal_op") noexcept;
std::uint64_t signal_fetch(const std::uint64_t* sig_addr) noexcept;
// Returns the value that satisfied the comparison.
std::uint64_t signal_wait_until(std::uint64_t* sig_addr, int cmp, std::uint64_t value,
                                const char* func = "shmem_signal_wait_until") noexcept;

// ---- ordering and synchronisation -----------------------------------------------------------
void quiet(Ctx* ctx) noexcept;
void fence(Ctx* ctx) noexcept;
void barrier_all() noexcept;  // quiet + sync
void sync_all() noexcept;

// ---- point-to-point wait / test -------------------------------------------------------------
// cmp uses the spec's numbering: SHMEM_CMP_EQ=0, NE=1, GT=2, GE=3, LT=4, LE=5.
// Kind describes how to compare the ivar words.
enum class WaitKind : int { kI16, kI32, kI64, kU16, kU32, kU64 };
// Blocks until *ivar satisfies (cmp, value); values are passed widened to 64 bits.
void wait_until(WaitKind kind, volatile void* ivar, int cmp, std::uint64_t value,
                const char* func = "shmem_wait_until") noexcept;
bool test(WaitKind kind, volatile void* ivar, int cmp, std::uint64_t value, const char* func = "shmem_test") noexcept;
// Vector forms. `ivars` points to nelems elements of the kind's width. `status` may be null
// (all included); status[i] != 0 excludes element i. `values` null means every element is
// compared against `value`, else against values[i] (the *_vector forms).
void wait_until_all(WaitKind kind, volatile void* ivars, std::size_t nelems, const int* status, int cmp,
                    std::uint64_t value, const void* values, const char* func = "shmem_wait_until_all") noexcept;
std::size_t wait_until_any(WaitKind kind, volatile void* ivars, std::size_t nelems, const int* status, int cmp,
                           std::uint64_t value, const void* values,
                           const char* func = "shmem_wait_until_any") noexcept;  // SIZE_MAX if none eligible
std::size_t wait_until_some(WaitKind kind, volatile void* ivars, std::size_t nelems, std::size_t* indices,
                            const int* status, int cmp, std::uint64_t value, const void* values,
                            const char* func = "shmem_wait_until_some") noexcept;
bool test_all(WaitKind kind, volatile void* ivars, std::size_t nelems, const int* status, int cmp,
              std::uint64_t value, const void* values, const char* func = "shmem_test_all") noexcept;
std::size_t test_any(WaitKind kind, volatile void* ivars, std::size_t nelems, const int* status, int cmp,
                     std::uint64_t value, const void* values,
                     const char* func = "shmem_test_any") noexcept;  // SIZE_MAX if none
std::size_t test_some(WaitKind kind, volatile void* ivars, std::size_t nelems, std::size_t* indices,
                      const int* status, int cmp, std::uint64_t value, const void* values,
                      const char* func = "shmem_test_some") noexcept;

// ---- distributed locks (the lock is a symmetric `long` initialised to 0) ---------------------
void set_lock(long* lock) noexcept;
void clear_lock(long* lock) noexcept;
int test_lock(long* lock) noexcept;  // 0 = acquired, 1 = already held

// ---- information ----------------------------------------------------------------------------
void pcontrol(int level) noexcept;
const char* library_name() noexcept;  // "shmem <version>"

}  // namespace core
}  // namespace shmem
