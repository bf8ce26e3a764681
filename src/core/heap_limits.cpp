#include "core/heap_limits.hpp"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "base/log.hpp"

namespace shmem::core {
namespace {

std::string gib(std::uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
  return buf;
}

// cgroup v2's memory.max of this process's cgroup (0: none, or not readable).
std::uint64_t cgroup_limit() {
  std::ifstream cg("/proc/self/cgroup");
  std::string line, path;
  while (std::getline(cg, line))
    if (line.rfind("0::", 0) == 0) path = line.substr(3);
  if (path.empty()) return 0;
  std::ifstream f("/sys/fs/cgroup" + path + "/memory.max");
  std::string v;
  if (!(f >> v) || v == "max") return 0;
  try {
    return std::stoull(v);
  } catch (...) {
    return 0;
  }
}

}  // namespace

void warn_if_heap_exceeds_memory(std::uint64_t heap_bytes, int me) noexcept {
  try {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    const std::uint64_t ram =
        pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
    const std::uint64_t cg = cgroup_limit();
    if (ram && heap_bytes > ram)
      SHMEM_WARN("init",
                 "PE %d: SHMEM_SYMMETRIC_SIZE (%s) is larger than this machine's memory (%s): the heap is "
                 "sparse, but a PE that touches more than the memory is killed; lower SHMEM_SYMMETRIC_SIZE",
                 me, gib(heap_bytes).c_str(), gib(ram).c_str());
    else if (cg && heap_bytes > cg)
      SHMEM_WARN("init",
                 "PE %d: SHMEM_SYMMETRIC_SIZE (%s) is larger than the memory limit of this process's cgroup "
                 "(%s, memory.max): the heap is sparse, but a PE that touches more than the limit is killed; "
                 "lower SHMEM_SYMMETRIC_SIZE or raise the limit",
                 me, gib(heap_bytes).c_str(), gib(cg).c_str());
  } catch (...) {  // reading /proc or /sys failed: nothing to say
  }
}

}  // namespace shmem::core
