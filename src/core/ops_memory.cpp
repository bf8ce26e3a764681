#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/access.hpp"
#include "core/coll_check.hpp"
#include "core/gpu_heap.hpp"
#include "base/error.hpp"
#include "base/log.hpp"
#include "core/ops.hpp"
#include "core/runtime.hpp"
#include "core/team.hpp"

namespace shmem::core {
namespace {

// No heap can be larger than the address space (x86-64 and AArch64 user space: 2^47 bytes).
constexpr std::size_t kImpossibleSize = std::size_t{1} << 47;

// Whether every PE passed this size and alignment: two Team::all_equal rounds (across hosts
// only the host leaders talk), O(1) words per PE whatever the job size.
bool sizes_agree(Runtime& r, std::size_t size, std::size_t alignment) noexcept {
  const bool same_size = r.world_team()->all_equal(size);  // both rounds run on every PE
  const bool same_alignment = r.world_team()->all_equal(alignment);
  return same_size && same_alignment;
}

// Checks that make an allocation fail on every PE alike (each PE returns NULL after the
// collective's barrier): an impossible size, and with SHMEM_DEBUG=1 sizes or alignments that
// differ between PEs (found by reductions; only then does every PE gather every size, to name
// one that differs). True when the allocation may go on.
bool allocation_ok(Runtime& r, const char* func, std::size_t size, std::size_t alignment) noexcept {
  bool ok = true;
  const std::uint64_t mine[2] = {size, alignment};
  if (r.checks() && r.n_pes() > 1 && !sizes_agree(r, size, alignment)) {
    std::vector<std::uint64_t> all(2 * static_cast<std::size_t>(r.n_pes()));
    r.world_team()->allgather_words(mine, 2, all.data());
    for (int pe = 0; pe < r.n_pes() && ok; ++pe)
      if (all[2 * pe] != size || all[2 * pe + 1] != alignment) {
        SHMEM_ERROR("heap", "%s: PE %d asked for %zu bytes (alignment %zu) but PE %d for %llu bytes (alignment %llu): "
                    "every PE must pass the same size to a symmetric allocation (SHMEM_DEBUG=1 check)",
                    func, r.my_pe(), size, alignment, pe, static_cast<unsigned long long>(all[2 * pe]),
                    static_cast<unsigned long long>(all[2 * pe + 1]));
        ok = false;
      }
    fatal(func, "symmetric allocation sizes differ between PEs (see above)");
  }
  if (size >= kImpossibleSize) {
    SHMEM_ERROR("heap", "%s(%zu bytes): the request is impossible: no symmetric heap can be that large (more than "
                "the 128 TiB address space); was the size computed from a negative number?", func, size);
    r.barrier();
    return false;
  }
  return ok;
}

}  // namespace

void* malloc(std::size_t size, const char* func) noexcept {
  Runtime& r = rt(func);
  const coll_check::Scope call(func, coll_check::Kind::kSize, *r.world_team(), size);
  if (!allocation_ok(r, func, size, HeapAllocator::kMinAlign)) return nullptr;
  return r.heap_alloc(size, HeapAllocator::kMinAlign, func);
}

void* calloc(std::size_t count, std::size_t size, const char* func) noexcept {
  Runtime& r = rt(func);
  const coll_check::Scope call(func, coll_check::Kind::kSize, *r.world_team(), count * size);
  if (count != 0 && size > SIZE_MAX / count) {
    SHMEM_ERROR("heap", "%s(%zu, %zu): the size overflows", func, count, size);
    r.barrier();
    return nullptr;
  }
  if (!allocation_ok(r, func, count * size, HeapAllocator::kMinAlign)) return nullptr;
  void* p = r.heap_alloc(count * size, HeapAllocator::kMinAlign, func);
  if (p) std::memset(p, 0, count * size);
  r.barrier();  // every PE's copy is zeroed before anyone writes into it
  return p;
}

void* align(std::size_t alignment, std::size_t size, const char* func) noexcept {
  Runtime& r = rt(func);
  const coll_check::Scope call(func, coll_check::Kind::kSize, *r.world_team(), size);
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    SHMEM_ERROR("heap", "%s(%zu, %zu): alignment must be a power of two", func, alignment, size);
    r.barrier();
    return nullptr;
  }
  if (!allocation_ok(r, func, size, alignment)) return nullptr;
  return r.heap_alloc(size, alignment, func);
}

void* realloc(void* p, std::size_t size, const char* func) noexcept {
  Runtime& r = rt(func);
  const coll_check::Scope call(func, coll_check::Kind::kSize, *r.world_team(), size);
  return r.heap_realloc(p, size, func);
}

void free(void* p, const char* func) noexcept {
  if (!p) return;
  Runtime& r = rt(func);
  const coll_check::Scope call(func, coll_check::Kind::kNoArgs, r);
  r.heap_free(p, func);
}

bool addr_accessible(const void* addr, int pe) noexcept {
  Runtime& r = rt("shmem_addr_accessible");
  if (static_cast<unsigned>(pe) >= static_cast<unsigned>(r.n_pes())) return false;
  return r.translate(addr, pe) != nullptr || (r.route(pe).remote && r.is_symmetric(addr, 1));
}

bool pe_accessible(int pe) noexcept {
  Runtime& r = rt("shmem_pe_accessible");
  return static_cast<unsigned>(pe) < static_cast<unsigned>(r.n_pes());
}

void check_pe(const char* func, int pe) noexcept { detail::check_pe_fast(rt(func), pe, func); }

void check_pe(const char* func, const Ctx* ctx, int pe) noexcept {
  if (ctx->world != nullptr && static_cast<unsigned>(pe) >= static_cast<unsigned>(ctx->team_size))
    detail::bad_team_pe(*ctx, pe, func);
  if (ctx->world == nullptr) check_pe(func, pe);
}

void check_symmetric(const char* func, const char* arg, const void* addr, std::size_t bytes) noexcept {
  Runtime& r = rt(func);
  if (r.is_symmetric(addr, bytes)) return;
  if (r.gpu() && r.gpu()->contains(addr)) return gpu_check_range(r, addr, bytes, func, arg);
  transport::Seg seg;
  std::uint64_t off;
  if (!r.symmetric_offset(addr, &seg, &off))
    detail::bad_target(r, addr, r.my_pe(), func, arg);  // not in any symmetric region at all
  const char* region;
  if (bytes > r.room_after(addr, &region)) detail::past_end(r, addr, bytes, func, arg);
  fatal(func, "%s=%s with %zu bytes is not inside one symmetric object (freed, or smaller than that?): pass "
        "shmem_malloc'd memory or a global/static variable; checked because SHMEM_DEBUG=1",
        arg, r.describe(addr).c_str(), bytes);
}

void check_symmetric_range(const char* func, const char* arg, const void* addr, std::size_t bytes) noexcept {
  Runtime& r = rt(func);
  const char* region;
  const std::size_t room = r.room_after(addr, &region);
  if (__builtin_expect(room != 0 && bytes <= room, 1)) return;
  if (r.gpu() && r.gpu()->contains(addr)) return gpu_check_range(r, addr, bytes, func, arg);
  if (room == 0) detail::bad_target(r, addr, r.my_pe(), func, arg);
  detail::past_end(r, addr, bytes, func, arg);
}

void check_local(const char* func, const char* arg, const void* addr, std::size_t bytes) noexcept {
  if (addr == nullptr && bytes > 0)
    fatal(func, "%s is NULL but %zu bytes are to be transferred (checked because SHMEM_DEBUG=1)", arg, bytes);
}

}  // namespace shmem::core

namespace shmem::detail {

void bad_pe(const Runtime& r, int pe, const char* func) noexcept {
  core::fatal(func, "pe=%d is out of range: this job has PEs 0..%d (%d PEs)", pe, r.n_pes() - 1, r.n_pes());
}

void bad_target(const Runtime& r, const void* addr, int pe, const char* func, const char* arg) noexcept {
  if (r.gpu() && r.gpu()->contains(addr)) core::gpu_unsupported(r, addr, func, arg);
  if (!r.route(pe).local() && r.is_symmetric(addr, 1))
    core::fatal(func, "pe=%d runs on host '%s' and this PE (%d) on '%s': this operation reaches node-local PEs only",
                pe, r.host_of(pe).c_str(), r.my_pe(), r.host_of(r.my_pe()).c_str());
  core::fatal(func, "%s=%p is not symmetric (neither in the symmetric heap nor in the program's static data): use "
              "memory from shmem_malloc or a global/static variable", arg, addr);
}

void past_end(const Runtime& r, const void* addr, std::size_t bytes, const char* func, const char* arg) noexcept {
  const char* region = "";
  const std::size_t room = r.room_after(addr, &region);
  std::string enlarge;
  if (std::strcmp(region, "symmetric heap") == 0)
    enlarge = ", or enlarge the heap (SHMEM_SYMMETRIC_SIZE=" + std::to_string(r.config().symmetric_size) + ")";
  core::fatal(func,
              "%s=%s with %zu bytes runs past the end of the %s: only %zu bytes lie between %s and its end. "
              "Pass the size of the symmetric object (SHMEM_DEBUG=1 also checks that the range stays inside one "
              "object)%s",
              arg, r.describe(addr).c_str(), bytes, region, room, arg, enlarge.c_str());
}

Target remote_target(const Runtime& r, const void* addr, int pe, const char* func, const char* arg,
                     bool gpu_ok) noexcept {
  Target t{nullptr, pe, transport::Seg::kHeap, 0, nullptr};
  if (r.route(pe).remote && r.symmetric_offset(addr, &t.seg, &t.off)) return t;
  if (gpu_ok && r.gpu() && r.gpu()->contains(addr)) {
    t.gpu = core::gpu_target(r, addr, pe, func, arg);
    return t;
  }
  bad_target(r, addr, pe, func, arg);
}

}  // namespace shmem::detail
