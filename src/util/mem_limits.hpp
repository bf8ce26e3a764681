#pragma once
// What bounds this process's memory and files on this host (for shmem-info --check): the host's
// memory (/proc/meminfo), the cgroup's memory limit (v2 memory.max up the hierarchy, or v1
// memory.limit_in_bytes), a filesystem's size and free space, and the open-file limit.
#include <cstdint>
#include <optional>
#include <string>

namespace shmem::util {

struct HostMemory {
  std::uint64_t total = 0;      // MemTotal, bytes (0 when /proc/meminfo cannot be read)
  std::uint64_t available = 0;  // MemAvailable, bytes
};
HostMemory host_memory();

struct CgroupLimit {
  std::uint64_t bytes = 0;  // the smallest limit on the way up to the root
  std::string file;         // the file that sets it (to name in a message)
};
// std::nullopt: no limit (or no cgroup memory controller to read).
std::optional<CgroupLimit> cgroup_memory_limit();

struct FsSpace {
  std::uint64_t size = 0;
  std::uint64_t available = 0;  // for an unprivileged writer
};
std::optional<FsSpace> fs_space(const std::string& path);

struct FileLimit {
  std::uint64_t soft = 0;
  std::uint64_t hard = 0;  // UINT64_MAX: unlimited
};
FileLimit open_file_limit();

// "1.5 GiB", "512 MiB", "64 KiB", "100 B".
std::string format_bytes(std::uint64_t bytes);

}  // namespace shmem::util
