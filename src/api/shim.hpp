#pragma once
// Private helpers shared by the C shims in src/api/. Every public function is a thin call into
// one of these: resolve the context, run the checked-mode argument checks (naming the public
// function via __func__ and the argument), then one call into shmem::core, which gets the same
// name for its own error path (bad PE, address not symmetric, misaligned atomic), so every
// message names the routine the program called. All helpers are noexcept and allocation-free;
// the typed families are instantiated from the type tables.
#include <shmem.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "core/hot.hpp"
#include "core/ops.hpp"

namespace shmem::api {

// ---- contexts ---------------------------------------------------------------------------------
// SHMEM_CTX_DEFAULT is the null handle, which core::hot::ctx maps to the default context.
inline Ctx* ctx_of(const char* func, shmem_ctx_t handle) noexcept {
  if (handle == SHMEM_CTX_INVALID) [[unlikely]]
    core::fatal(func, "ctx is SHMEM_CTX_INVALID (a context that failed to be created or was reset)");
  return core::hot::ctx(static_cast<void*>(handle), func);
}

// ---- argument checks (checked mode only) -------------------------------------------------------
inline bool checking() noexcept { return core::hot::checks(); }

using detail::blocked_extent;  // core/access.hpp
using detail::strided_extent;

// The public comparison constants are the core's numbering; keep that explicit.
static_assert(SHMEM_CMP_EQ == 0 && SHMEM_CMP_NE == 1 && SHMEM_CMP_GT == 2 && SHMEM_CMP_GE == 3 &&
              SHMEM_CMP_LT == 4 && SHMEM_CMP_LE == 5);
inline void check_cmp(const char* func, int cmp) noexcept {
  if (cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE)
    core::fatal(func, "cmp=%d is not one of SHMEM_CMP_EQ..SHMEM_CMP_LE (%d..%d)", cmp, SHMEM_CMP_EQ,
                SHMEM_CMP_LE);
}

// Public sig_op -> core sig_op (0 = set, 1 = add). Always validated: a wrong op would silently
// corrupt the peer's signal word.
inline int core_sig_op(const char* func, int sig_op) noexcept {
  switch (sig_op) {
    case SHMEM_SIGNAL_SET:
      return 0;
    case SHMEM_SIGNAL_ADD:
      return 1;
    default:
      core::fatal(func, "sig_op=%d is neither SHMEM_SIGNAL_SET (%d) nor SHMEM_SIGNAL_ADD (%d)", sig_op,
                  SHMEM_SIGNAL_SET, SHMEM_SIGNAL_ADD);
  }
}

// Zero-length operands are never accessed, and the spec allows them to be null (Undefined
// Behavior table: "len is 0, pointer is null: supported"), so they are not checked.
inline void check_symmetric(const char* func, const char* arg, const void* addr, std::size_t bytes) noexcept {
  if (bytes != 0) core::check_symmetric(func, arg, addr, bytes);
}
inline void check_local(const char* func, const char* arg, const void* addr, std::size_t bytes) noexcept {
  if (bytes != 0) core::check_local(func, arg, addr, bytes);
}

// ---- RMA ----------------------------------------------------------------------------------------
// Remote operand `rarg`, local operand `larg`; `bytes` is the extent of each.
inline void check_operands(const char* func, const char* rarg, const void* raddr, std::size_t rbytes,
                           const char* larg, const void* laddr, std::size_t lbytes) noexcept {
  check_symmetric(func, rarg, raddr, rbytes);
  if (larg != nullptr) check_local(func, larg, laddr, lbytes);
}
// `pe` a world PE.
inline void check_rma(const char* func, int pe, const char* rarg, const void* raddr, std::size_t rbytes,
                      const char* larg, const void* laddr, std::size_t lbytes) noexcept {
  core::check_pe(func, pe);
  check_operands(func, rarg, raddr, rbytes, larg, laddr, lbytes);
}
// `pe` numbered in the context's team.
inline void check_rma(const char* func, const Ctx* ctx, int pe, const char* rarg, const void* raddr,
                      std::size_t rbytes, const char* larg, const void* laddr, std::size_t lbytes) noexcept {
  core::check_pe(func, ctx, pe);
  check_operands(func, rarg, raddr, rbytes, larg, laddr, lbytes);
}

inline void put(const char* f, shmem_ctx_t h, void* dest, const void* src, std::size_t bytes,
                int pe) noexcept {
  Ctx* ctx = ctx_of(f, h);
  if (checking()) check_rma(f, ctx, pe, "dest", dest, bytes, "source", src, bytes);
  core::put(ctx, dest, src, bytes, pe, f);
}
inline void get(const char* f, shmem_ctx_t h, void* dest, const void* src, std::size_t bytes,
                int pe) noexcept {
  Ctx* ctx = ctx_of(f, h);
  if (checking()) check_rma(f, ctx, pe, "source", src, bytes, "dest", dest, bytes);
  core::get(ctx, dest, src, bytes, pe, f);
}
inline void put_nbi(const char* f, shmem_ctx_t h, void* dest, const void* src, std::size_t bytes,
                    int pe) noexcept {
  Ctx* ctx = ctx_of(f, h);
  if (checking()) check_rma(f, ctx, pe, "dest", dest, bytes, "source", src, bytes);
  core::put_nbi(ctx, dest, src, bytes, pe, f);
}
inline void get_nbi(const char* f, shmem_ctx_t h, void* dest, const void* src, std::size_t bytes,
                    int pe) noexcept {
  Ctx* ctx = ctx_of(f, h);
  if (checking()) check_rma(f, ctx, pe, "source", src, bytes, "dest", dest, bytes);
  core::get_nbi(ctx, dest, src, bytes, pe, f);
}
template <class T>
inline void p(const char* f, shmem_ctx_t h, T* dest, T value, int pe) noexcept {
  Ctx* ctx = ctx_of(f, h);
  if (checking()) check_rma(f, ctx, pe, "dest", dest, sizeof(T), nullptr, nullptr, 0);
  core::hot::p(ctx, dest, value, pe, f);
}
template <class T>
inline T g(const char* f, shmem_ctx_t h, const T* source, int pe) noexcept {
  Ctx* ctx = ctx_of(f, h);
  if (checking()) check_rma(f, ctx, pe, "source", source, sizeof(T), nullptr, nullptr, 0);
  return core::hot::g(ctx, source, pe, f);
}
inline void iput(const char* f, shmem_ctx_t h, void* dest, const void* src, std::ptrdiff_t dst,
                 std::ptrdiff_t sst, std::size_t nelems, std::size_t elem, int pe) noexcept {
  Ctx* ctx = ctx_of(f, h);
  if (checking())
    check_rma(f, ctx, pe, "dest", dest, strided_extent(nelems, dst, elem), "source", src,
              strided_extent(nelems, sst, elem));
  core::iput(ctx, dest, src, dst, sst, nelems, elem, pe, f);
}
inline void iget(const char* f, shmem_ctx_t h, void* dest, const void* src, std::ptrdiff_t dst,
                 std::ptrdiff_t sst, std::size_t nelems, std::size_t elem, int pe) noexcept {
  Ctx* ctx = ctx_of(f, h);
  if (checking())
    check_rma(f, ctx, pe, "source", src, strided_extent(nelems, sst, elem), "dest", dest,
              strided_extent(nelems, dst, elem));
  core::iget(ctx, dest, src, dst, sst, nelems, elem, pe, f);
}
inline void ibput(const char* f, shmem_ctx_t h, void* dest, const void* src, std::ptrdiff_t dst,
                  std::ptrdiff_t sst, std::size_t bsize, std::size_t nblocks, std::size_t elem,
                  int pe) noexcept {
  Ctx* ctx = ctx_of(f, h);
  if (checking())
    check_rma(f, ctx, pe, "dest", dest, blocked_extent(bsize, nblocks, dst, elem), "source", src,
              blocked_extent(bsize, nblocks, sst, elem));
  core::ibput(ctx, dest, src, dst, sst, bsize, nblocks, elem, pe, f);
}
inline void ibget(const char* f, shmem_ctx_t h, void* dest, const void* src, std::ptrdiff_t dst,
                  std::ptrdiff_t sst, std::size_t bsize, std::size_t nblocks, std::size_t elem,
                  int pe) noexcept {
  Ctx* ctx = ctx_of(f, h);
  if (checking())
    check_rma(f, ctx, pe, "source", src, blocked_extent(bsize, nblocks, sst, elem), "dest", dest,
              blocked_extent(bsize, nblocks, dst, elem));
  core::ibget(ctx, dest, src, dst, sst, bsize, nblocks, elem, pe, f);
}

// ---- signals ------------------------------------------------------------------------------------
// shmem_[ctx_]signal_{add,set} and their shmemx_ aliases.
inline void signal_update(const char* f, shmem_ctx_t h, std::uint64_t* sig_addr, std::uint64_t signal, int sig_op,
                          int pe) noexcept {
  Ctx* ctx = ctx_of(f, h);
  if (checking()) check_rma(f, ctx, pe, "sig_addr", sig_addr, sizeof(std::uint64_t), nullptr, nullptr, 0);
  core::signal_op(ctx, sig_addr, signal, core_sig_op(f, sig_op), pe, f);
}

inline void put_signal(const char* f, shmem_ctx_t h, void* dest, const void* src, std::size_t bytes,
                       std::uint64_t* sig_addr, std::uint64_t signal, int sig_op, int pe, bool nbi) noexcept {
  Ctx* ctx = ctx_of(f, h);
  const int op = core_sig_op(f, sig_op);
  if (checking()) {
    check_rma(f, ctx, pe, "dest", dest, bytes, "source", src, bytes);
    check_symmetric(f, "sig_addr", sig_addr, sizeof(std::uint64_t));
  }
  if (nbi)
    core::put_signal_nbi(ctx, dest, src, bytes, sig_addr, signal, op, pe, f);
  else
    core::put_signal(ctx, dest, src, bytes, sig_addr, signal, op, pe, f);
}

// ---- atomics --------------------------------------------------------------------------------------
// AMO operands travel as 32- or 64-bit words: integers by two's complement conversion, float and
// double by bit copy (std::bit_cast, i.e. memcpy semantics).
template <class T>
using AmoWord = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;

// The unused operand of ops without one (inc, fetch, ...). A variable template because multi-word
// type names such as `long long` cannot be written `T{}`.
template <class T>
inline constexpr T kNoOperand{};

template <class T>
inline AmoWord<T> to_word(T v) noexcept {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "the spec's AMO types are 32 or 64 bits wide");
  return std::bit_cast<AmoWord<T>>(v);
}

// Blocking forms: the operation is a template argument, so each public routine calls the core's
// instance for it (no dispatch on op, all arguments in registers: see core/ops.hpp).
template <core::AmoOp Op, class T>
inline T amo(const char* f, shmem_ctx_t h, const T* dest, T value, T cond, int pe) noexcept {
  Ctx* ctx = ctx_of(f, h);
  if (checking()) check_rma(f, ctx, pe, "dest", dest, sizeof(T), nullptr, nullptr, 0);
  void* d = const_cast<T*>(dest);  // atomic_fetch takes const; the core never writes for kFetch
  if constexpr (sizeof(T) == 4)
    return std::bit_cast<T>(core::amo32<Op>(ctx, d, to_word(value), to_word(cond), pe, f));
  else
    return std::bit_cast<T>(core::amo64<Op>(ctx, d, to_word(value), to_word(cond), pe, f));
}

// Nonblocking fetching forms: the core stores the old word into *fetch by the next quiet. `fetch`
// has the width of T, so it is passed as a pointer to the word type. For float, double and
// long long that word type is not T's own (un)signed variant, so the core must store through it
// with memcpy semantics, never as a typed store the optimiser could reorder around T accesses.
template <class T>
inline void amo_nbi(const char* f, shmem_ctx_t h, core::AmoOp op, T* fetch, const T* dest, T value, T cond,
                    int pe) noexcept {
  Ctx* ctx = ctx_of(f, h);
  if (checking()) check_rma(f, ctx, pe, "dest", dest, sizeof(T), "fetch", fetch, sizeof(T));
  void* d = const_cast<T*>(dest);
  auto* out = reinterpret_cast<AmoWord<T>*>(fetch);
  if constexpr (sizeof(T) == 4)
    core::amo32_nbi(ctx, op, out, d, to_word(value), to_word(cond), pe, f);
  else
    core::amo64_nbi(ctx, op, out, d, to_word(value), to_word(cond), pe, f);
}

// Forms without a comparand (value only) and without any operand (inc, fetch).
template <core::AmoOp Op, class T>
inline T amo(const char* f, shmem_ctx_t h, const T* dest, T value, int pe) noexcept {
  return amo<Op, T>(f, h, dest, value, kNoOperand<T>, pe);
}
template <core::AmoOp Op, class T>
inline T amo(const char* f, shmem_ctx_t h, const T* dest, int pe) noexcept {
  return amo<Op, T>(f, h, dest, kNoOperand<T>, kNoOperand<T>, pe);
}
template <class T>
inline void amo_nbi(const char* f, shmem_ctx_t h, core::AmoOp op, T* fetch, const T* dest, T value,
                    int pe) noexcept {
  amo_nbi<T>(f, h, op, fetch, dest, value, kNoOperand<T>, pe);
}
template <class T>
inline void amo_nbi(const char* f, shmem_ctx_t h, core::AmoOp op, T* fetch, const T* dest, int pe) noexcept {
  amo_nbi<T>(f, h, op, fetch, dest, kNoOperand<T>, kNoOperand<T>, pe);
}

// ---- point-to-point synchronization ----------------------------------------------------------------
template <class T>
constexpr core::WaitKind wait_kind() noexcept {
  static_assert(std::is_integral_v<T> && (sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8),
                "point-to-point synchronization types are 16, 32 or 64-bit integers");
  if constexpr (std::is_signed_v<T>)
    return sizeof(T) == 2   ? core::WaitKind::kI16
           : sizeof(T) == 4 ? core::WaitKind::kI32
                            : core::WaitKind::kI64;
  else
    return sizeof(T) == 2   ? core::WaitKind::kU16
           : sizeof(T) == 4 ? core::WaitKind::kU32
                            : core::WaitKind::kU64;
}
// Comparison values are widened to 64 bits: sign-extended for signed types, zero-extended else.
template <class T>
constexpr std::uint64_t widen(T v) noexcept {
  if constexpr (std::is_signed_v<T>)
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
  else
    return static_cast<std::uint64_t>(v);
}

inline void check_wait(const char* f, int cmp, const char* arg, const volatile void* ivars,
                       std::size_t bytes) noexcept {
  check_cmp(f, cmp);
  check_symmetric(f, arg, const_cast<const void*>(ivars), bytes);
}
// Multi-element forms: ivars symmetric; status, cmp_values and indices local when given.
template <class T>
inline void check_multi(const char* f, const T* ivars, std::size_t nelems, const int* status, int cmp,
                        const T* values, const std::size_t* indices) noexcept {
  check_wait(f, cmp, "ivars", ivars, nelems * sizeof(T));
  if (status != nullptr) check_local(f, "status", status, nelems * sizeof(int));
  if (values != nullptr) check_local(f, "cmp_values", values, nelems * sizeof(T));
  if (indices != nullptr) check_local(f, "indices", indices, nelems * sizeof(std::size_t));
}

}  // namespace shmem::api
