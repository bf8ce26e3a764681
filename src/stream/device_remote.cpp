// The library's side of the device API for PEs on other hosts (include/shmem/device/remote.hpp).
// Device code maps node-local PEs itself and calls these, out of line, only for a PE it cannot
// map; each checks its operands and calls the core operation of the state's runtime, whose
// target resolution takes the remote transport's route.
#include "shmem/device/remote.hpp"

#include <atomic>
#include <cstring>

#include "core/ops.hpp"
#include "core/runtime.hpp"
#include "shmem/device/common.hpp"
#include "stream/checks.hpp"
#include "stream/device_owner.hpp"

namespace shmem::stream {
namespace {

namespace dd = device::detail;

static_assert(dd::kRemoteFetch == static_cast<int>(AmoOp::kFetch) && dd::kRemoteSet == static_cast<int>(AmoOp::kSet) &&
              dd::kRemoteSwap == static_cast<int>(AmoOp::kSwap) &&
              dd::kRemoteCompareSwap == static_cast<int>(AmoOp::kCompareSwap) &&
              dd::kRemoteFetchAdd == static_cast<int>(AmoOp::kFetchAdd) && dd::kRemoteAdd == static_cast<int>(AmoOp::kAdd) &&
              dd::kRemoteFetchAnd == static_cast<int>(AmoOp::kFetchAnd) && dd::kRemoteAnd == static_cast<int>(AmoOp::kAnd) &&
              dd::kRemoteFetchOr == static_cast<int>(AmoOp::kFetchOr) && dd::kRemoteOr == static_cast<int>(AmoOp::kOr) &&
              dd::kRemoteFetchXor == static_cast<int>(AmoOp::kFetchXor) && dd::kRemoteXor == static_cast<int>(AmoOp::kXor),
              "remote.hpp's RemoteAmo numbers the operations as AmoOp does");

// [addr, addr + bytes) inside one symmetric segment, on a PE of another host.
bool far_operand(const Runtime& rt, const void* addr, std::size_t bytes, int pe) noexcept {
  return pe >= 0 && pe < rt.n_pes() && !rt.is_local(pe) && in_one_segment(rt, addr, bytes ? bytes : 1);
}

bool aligned(const void* p, std::size_t width) noexcept { return reinterpret_cast<std::uintptr_t>(p) % width == 0; }

std::uint64_t amo(Ctx* c, AmoOp op, std::size_t width, void* sym, std::uint64_t value, std::uint64_t cond,
                  int pe) noexcept {
  if (width == 4)
    return core::amo32(c, op, sym, static_cast<std::uint32_t>(value), static_cast<std::uint32_t>(cond), pe);
  return core::amo64(c, op, sym, value, cond, pe);
}

template <class F>
F from_bits(std::uint64_t bits) noexcept {
  F f;
  std::memcpy(&f, &bits, sizeof f);  // little-endian: the low bytes
  return f;
}
template <class F>
std::uint64_t to_bits(F f) noexcept {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &f, sizeof f);
  return bits;
}

// An add the transport has no atomic for (a 1/2-byte lane of the aligned 4-byte word around it,
// or a float/double), as compare-and-swap on that word: fetch, compute, swap if unchanged. Each
// retry means another update of the word succeeded in between (lock-free). Returns the old lane.
std::uint64_t add_by_cas(Ctx* c, int is_float, std::size_t width, void* sym, std::uint64_t value, int pe) noexcept {
  const auto a = reinterpret_cast<std::uintptr_t>(sym);
  const std::size_t word = width < 4 ? 4 : width;
  void* w = reinterpret_cast<void*>(a & ~std::uintptr_t{word - 1});
  const unsigned shift = static_cast<unsigned>(a & (word - 1)) * 8;
  const std::uint64_t lane = width == 8 ? ~std::uint64_t{0} : ((std::uint64_t{1} << (width * 8)) - 1) << shift;
  auto next = [&](std::uint64_t cur) -> std::uint64_t {
    if (is_float && width == 4) return to_bits(from_bits<float>(cur) + from_bits<float>(value));
    if (is_float) return to_bits(from_bits<double>(cur) + from_bits<double>(value));
    return (cur & ~lane) | ((((cur & lane) >> shift) + value) << shift & lane);
  };
  std::uint64_t seen = amo(c, AmoOp::kFetch, word, w, 0, 0, pe);
  for (;;) {
    const std::uint64_t got = amo(c, AmoOp::kCompareSwap, word, w, next(seen), seen, pe);
    if (got == seen) return (seen & lane) >> shift;
    seen = got;
  }
}

bool add_needs_cas(int op, int is_float, std::size_t width) noexcept {
  return (op == dd::kRemoteAdd || op == dd::kRemoteFetchAdd) && (is_float || width < 4);
}

}  // namespace
}  // namespace shmem::stream

namespace st = shmem::stream;
namespace core = shmem::core;
using shmem::AmoOp;
using shmem::Runtime;

extern "C" {

int shmemx_device_remote_rma(const shmem::device::State* s, int kind, void* sym, void* local, std::size_t elem,
                             std::size_t nelems, std::ptrdiff_t sym_stride, std::ptrdiff_t local_stride,
                             int pe) noexcept {
  Runtime& rt = st::owner(s);
  if (nelems == 0 || elem == 0) return 0;
  if (sym_stride < 1 || local_stride < 1) return 1;
  const std::size_t span = ((nelems - 1) * static_cast<std::size_t>(sym_stride) + 1) * elem;
  if (!st::far_operand(rt, sym, span, pe)) return 1;
  shmem::Ctx* c = rt.default_ctx();
  const bool strided = nelems > 1 && (sym_stride != 1 || local_stride != 1);
  const bool put = kind == shmem::device::detail::kRemotePut || kind == shmem::device::detail::kRemotePutNbi;
  const bool nbi = kind == shmem::device::detail::kRemotePutNbi || kind == shmem::device::detail::kRemoteGetNbi;
  if (strided && put) core::iput(c, sym, local, sym_stride, local_stride, nelems, elem, pe);
  else if (strided) core::iget(c, local, sym, local_stride, sym_stride, nelems, elem, pe);
  else if (put) (nbi ? core::put_nbi : core::put)(c, sym, local, elem * nelems, pe, "shmem::device::put");
  else (nbi ? core::get_nbi : core::get)(c, local, sym, elem * nelems, pe, "shmem::device::get");
  return 0;
}

int shmemx_device_remote_amo(const shmem::device::State* s, int op, int is_float, std::size_t width, void* sym,
                             std::uint64_t value, std::uint64_t cond, std::uint64_t* old, int pe) noexcept {
  Runtime& rt = st::owner(s);
  if ((width != 1 && width != 2 && width != 4 && width != 8) || !st::aligned(sym, width)) return 1;
  if (op < 0 || op > static_cast<int>(AmoOp::kXor)) return 1;
  const bool cas = st::add_needs_cas(op, is_float, width);
  if (!cas && width < 4) return 1;  // only adds exist for 1/2-byte words
  // The word a compare-and-swap works on must be symmetric too (the 4-byte word around a lane).
  const std::uintptr_t word = reinterpret_cast<std::uintptr_t>(sym) & ~std::uintptr_t{3};
  if (!st::far_operand(rt, width < 4 ? reinterpret_cast<void*>(word) : sym, width < 4 ? 4 : width, pe)) return 1;
  shmem::Ctx* c = rt.default_ctx();
  const std::uint64_t was =
      cas ? st::add_by_cas(c, is_float, width, sym, value, pe) : st::amo(c, static_cast<AmoOp>(op), width, sym, value, cond, pe);
  if (old) *old = was;
  return 0;
}

int shmemx_device_remote_put_signal(const shmem::device::State* s, void* dest, const void* src, std::size_t bytes,
                                    void* sig, std::size_t sig_width, std::uint64_t signal, int sig_op, int nbi,
                                    int pe) noexcept {
  Runtime& rt = st::owner(s);
  if ((sig_width != 4 && sig_width != 8) || !st::aligned(sig, sig_width) || !st::far_operand(rt, sig, sig_width, pe))
    return 1;
  if (bytes && !st::far_operand(rt, dest, bytes, pe)) return 1;
  shmem::Ctx* c = rt.default_ctx();
  if (sig_width == 8) {
    auto* w = static_cast<std::uint64_t*>(sig);
    if (bytes == 0) core::signal_op(c, w, signal, sig_op, pe);
    else (nbi ? core::put_signal_nbi : core::put_signal)(c, dest, src, bytes, w, signal, sig_op, pe, "shmem::device::put_signal");
    return 0;
  }
  if (bytes) {
    (nbi ? core::put_nbi : core::put)(c, dest, src, bytes, pe, "shmem::device::put_signal");
    core::fence(c);  // the data before the signal
  }
  core::amo32(c, sig_op == SHMEM_SIGNAL_ADD ? AmoOp::kAdd : AmoOp::kSet, sig, static_cast<std::uint32_t>(signal), 0, pe);
  return 0;
}

void shmemx_device_remote_order(const shmem::device::State* s, int quiet) noexcept {
  shmem::Ctx* c = st::owner(s).default_ctx();
  if (quiet) core::quiet(c);
  else core::fence(c);
}

// The device barrier of a team that spans hosts: arrivals are counted in the team's cell on its
// first member (one fetching remote add, or a local one); the last arriver resets the count
// (fetching: done at that PE before anyone is released), raises the generation in every
// member's own cell and completes those updates; the others wait on their own cell, locally.
// A team always takes this path or always the node-local one (device/sync.hpp), never both.
int shmemx_device_remote_sync(const shmem::device::State* s, int slot, const int* world_pes, int n) noexcept {
  namespace dd = shmem::device::detail;
  if (slot < 0 || slot >= dd::kSyncSlots || n < 1) return 1;
  if (n == 1) return 0;
  Runtime& rt = st::owner(s);
  shmem::Ctx* c = rt.default_ctx();
  dd::SyncCell& mine = dd::sync_cell(*s, s->my_pe, slot);  // also the cell's symmetric address
  auto member = [&](int i) { return world_pes ? world_pes[i] : i; };
  const std::uint64_t gen = std::atomic_ref<std::uint64_t>(mine.gen).load(std::memory_order_acquire);
  const std::uint64_t before = core::amo64(c, AmoOp::kFetchAdd, &mine.count, 1, 0, member(0));
  if (before == static_cast<std::uint64_t>(n - 1)) {
    core::amo64(c, AmoOp::kSwap, &mine.count, 0, 0, member(0));
    for (int i = 0; i < n; ++i) core::amo64(c, AmoOp::kAdd, &mine.gen, 1, 0, member(i));
    core::quiet(c);
    return 0;
  }
  core::wait_until(core::WaitKind::kU64, &mine.gen, SHMEM_CMP_NE, gen);
  return 0;
}

void shmemx_device_remote_progress(const shmem::device::State* s) noexcept { st::owner(s).wait_policy().progress(); }

}  // extern "C"
