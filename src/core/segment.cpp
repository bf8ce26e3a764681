#include "core/segment.hpp"

#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "base/error.hpp"
#include "base/log.hpp"

namespace shmem {
namespace {

std::string errno_text() { return std::strerror(errno); }

std::size_t page_size() {
  static const std::size_t p = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return p;
}

struct WritableRange {
  std::uintptr_t lo = 0, hi = 0, relro_end = 0;
};

int find_main_data(dl_phdr_info* info, size_t, void* arg) {
  auto* out = static_cast<WritableRange*>(arg);
  // The first object reported is the main program.
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const auto& ph = info->dlpi_phdr[i];
    const std::uintptr_t start = info->dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_W) && out->lo == 0) {
      out->lo = start;
      out->hi = start + ph.p_memsz;
    } else if (ph.p_type == PT_GNU_RELRO) {
      out->relro_end = start + ph.p_memsz;
    }
  }
  return 1;  // stop after the main program
}

// Reads the program's data pages as they are, redzones that AddressSanitizer puts around
// globals included: not instrumented (SHMEM_SANITIZE=address).
__attribute__((no_sanitize("address", "hwaddress"))) bool page_is_zero(const char* p, std::size_t n) {
  const auto* w = reinterpret_cast<const std::uint64_t*>(p);
  for (std::size_t i = 0; i < n / 8; ++i)
    if (w[i]) return false;
  return true;
}

DataSegment do_remap() {
  DataSegment seg;
  WritableRange r;
  dl_iterate_phdr(find_main_data, &r);
  if (r.lo == 0) return seg;  // no writable segment: nothing to share
  const std::size_t ps = page_size();
  std::uintptr_t lo = r.lo;
  if (r.relro_end > lo && r.relro_end < r.hi) lo = r.relro_end;  // RELRO stays private, read-only
  lo = lo / ps * ps;
  const std::uintptr_t hi = (r.hi + ps - 1) / ps * ps;
  if (hi <= lo) return seg;
  const std::size_t len = hi - lo;
  int fd = memfd_create("shmem-static-data", MFD_CLOEXEC);
  if (fd < 0) throw Error(Errc::kInternal, "memfd_create for static data failed: " + errno_text());
  if (ftruncate(fd, static_cast<off_t>(len)) != 0) {
    ::close(fd);
    throw Error(Errc::kInternal, "ftruncate of the static-data segment failed: " + errno_text());
  }
  // Copy the current contents page by page; all-zero pages (most of .bss) stay sparse.
  char* base = reinterpret_cast<char*>(lo);
  for (std::size_t off = 0; off < len; off += ps) {
    if (page_is_zero(base + off, ps)) continue;
    // A raw system call: sanitizer interceptors would flag their own redzones in .bss.
    if (syscall(SYS_pwrite64, fd, base + off, ps, static_cast<off_t>(off)) != static_cast<long>(ps)) {
      ::close(fd);
      throw Error(Errc::kInternal, "copying static data failed: " + errno_text());
    }
  }
  // Nothing may write to the range between the copy above and this mapping: we are in
  // shmem_init, and the code here touches only the stack and this library's own data.
  void* m = mmap(base, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
  if (m == MAP_FAILED) {
    ::close(fd);
    throw Error(Errc::kInternal, "remapping static data failed: " + errno_text());
  }
  seg.base = base;
  seg.size = len;
  seg.fd = fd;
  SHMEM_DEBUG_LOG("heap", "static data %p..%p (%zu bytes) is symmetric", (void*)lo, (void*)hi, len);
  return seg;
}

// ---- fork ------------------------------------------------------------------------------------------
// The remapped data is shared memory, so a child forked (without exec) from this process would
// share the program's globals with it, each seeing the other's writes (a Python child reads the
// interpreter's state as the parent changes it after the fork, and aborts). So each fork gives the
// child a copy of its own, taken just before the fork: the prepare handler reads the segment's
// populated ranges (SEEK_DATA/SEEK_HOLE on the memfd: holes stay unallocated) into private
// anonymous memory; the child moves that copy over the shared mapping (mremap); the parent drops
// it. The copy is the forking thread's (thread_local), since two threads may fork at once. The
// copy is read range by range, not at one instant: what other threads write meanwhile may reach
// the child or not, as with any fork of a process with threads.
DataSegment g_forked;                   // the segment, for the handlers
std::atomic<bool> g_forked_set{false};  // g_forked is set (once, at the remap)
thread_local void* t_copy = nullptr;

void copy_for_fork() noexcept {
  t_copy = nullptr;  // the thread's slot exists before the child needs it
  if (!g_forked_set.load(std::memory_order_acquire)) return;
  const DataSegment& s = g_forked;
  void* copy = mmap(nullptr, s.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (copy == MAP_FAILED) {
    SHMEM_WARN("heap", "fork: no memory for the child's copy of the static data (%zu bytes): it shares the parent's",
               s.size);
    return;
  }
  const auto end = static_cast<off_t>(s.size);
  for (off_t off = 0; off < end;) {
    const off_t data = lseek(s.fd, off, SEEK_DATA);
    if (data < 0 || data >= end) break;  // ENXIO: no data after off
    off_t hole = lseek(s.fd, data, SEEK_HOLE);
    if (hole < 0 || hole > end) hole = end;
    // Raw system calls, as in do_remap: the kernel copies, not an intercepted memcpy. One read
    // returns at most about 2 GiB.
    for (off_t at = data; at < hole;) {
      const long got =
          syscall(SYS_pread64, s.fd, static_cast<char*>(copy) + at, static_cast<std::size_t>(hole - at), at);
      if (got <= 0) {
        munmap(copy, s.size);
        SHMEM_WARN("heap", "fork: copying the static data for the child failed (%s): it shares the parent's",
                   got < 0 ? errno_text().c_str() : "end of data");
        return;
      }
      at += got;
    }
    off = hole;
  }
  t_copy = copy;
}
void drop_fork_copy() noexcept {
  if (t_copy == nullptr) return;
  munmap(t_copy, g_forked.size);
  t_copy = nullptr;
}
// In the child, alone: system calls only. Should mremap fail, the child shares the parent's data
// (as before this handler existed): there is nothing to report it to.
void take_fork_copy() noexcept {
  if (t_copy == nullptr) return;
  if (mremap(t_copy, g_forked.size, g_forked.size, MREMAP_MAYMOVE | MREMAP_FIXED, g_forked.base) == MAP_FAILED)
    munmap(t_copy, g_forked.size);
  t_copy = nullptr;
}

// Registered when the library loads, before the program's own constructors and main: glibc runs
// prepare handlers newest first and child handlers oldest first, so the copy is taken after the
// program's prepare handlers ran, and the child has it before the program's child handlers write
// to their variables. Until the data is remapped the handlers do nothing.
__attribute__((constructor)) void register_fork_copy() {
  pthread_atfork(&copy_for_fork, &drop_fork_copy, &take_fork_copy);
}

}  // namespace

Segment Segment::create(const char* name, std::size_t size, std::size_t align, std::size_t align_offset) {
  Segment s;
  s.fd = util::UniqueFd(memfd_create(name, MFD_CLOEXEC));
  if (!s.fd) throw Error(Errc::kInternal, std::string("memfd_create failed: ") + errno_text());
  if (ftruncate(s.fd.get(), static_cast<off_t>(size)) != 0)
    throw Error(Errc::kOutOfMemory, "cannot size the symmetric heap to " + std::to_string(size) +
                                        " bytes (SHMEM_SYMMETRIC_SIZE): " + errno_text());
  // Reserve enough address space to place the mapping at the requested alignment, map the
  // segment over the aligned part, and give the rest of the reservation back.
  const std::size_t reserve = size + align;
  void* r = mmap(nullptr, reserve, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (r == MAP_FAILED)
    throw Error(Errc::kOutOfMemory, "cannot reserve address space for a symmetric heap of " + std::to_string(size) +
                                        " bytes (SHMEM_SYMMETRIC_SIZE): " + errno_text());
  const auto lo = reinterpret_cast<std::uintptr_t>(r);
  std::uintptr_t at = lo;
  if (align) at = ((lo + align_offset + align - 1) & ~(align - 1)) - align_offset;
  if (at < lo) at += align;
  void* m = mmap(reinterpret_cast<void*>(at), size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED | MAP_NORESERVE,
                 s.fd.get(), 0);
  if (m == MAP_FAILED) {
    munmap(r, reserve);
    throw Error(Errc::kOutOfMemory, "cannot map a symmetric heap of " + std::to_string(size) +
                                        " bytes (SHMEM_SYMMETRIC_SIZE): " + errno_text());
  }
  if (at > lo) munmap(r, at - lo);
  if (lo + reserve > at + size) munmap(reinterpret_cast<void*>(at + size), lo + reserve - at - size);
  s.map = util::MappedRegion(m, size);
  s.size = size;
  return s;
}

Segment Segment::attach(util::UniqueFd fd, std::size_t size) {
  Segment s;
  s.fd = std::move(fd);
  void* m = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, s.fd.get(), 0);
  if (m == MAP_FAILED) {
    const int e = errno;
    if (e != ENOMEM) throw Error(Errc::kInternal, "cannot map a peer's segment: " + errno_text());
    char gib[32];
    std::snprintf(gib, sizeof gib, "%.1f GiB", static_cast<double>(size) / (1u << 30));
    throw Error(Errc::kOutOfMemory,
                std::string("cannot map another PE's symmetric segment of ") + gib + ": " + std::strerror(e) +
                    ". Every PE maps the heap of every PE on its host, so (PEs per host) x SHMEM_SYMMETRIC_SIZE "
                    "must fit in one process's address space (128 TiB at most; ulimit -v lowers it): lower "
                    "SHMEM_SYMMETRIC_SIZE");
  }
  s.map = util::MappedRegion(m, size);
  s.size = size;
  s.fd.reset();  // the mapping keeps the memory: no descriptor per peer for the job's life
  return s;
}

const DataSegment& remap_data_segment() {
  // The executable's data segment exists once per process, so its remapping is process-wide
  // too: every Runtime (instance) in the process shares it.
  static std::once_flag once;
  static DataSegment seg;
  std::call_once(once, [] {
    seg = do_remap();
    if (seg.size == 0) return;
    g_forked = seg;
    g_forked_set.store(true, std::memory_order_release);
  });
  return seg;
}

}  // namespace shmem
