#include "util/mem_limits.hpp"

#include <sys/resource.h>
#include <sys/statvfs.h>

#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>

namespace shmem::util {
namespace {

// The first line of `path`, or "" when it cannot be read.
std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// A limit file's value: nullopt for "max", an unreadable file or a value that means "none".
std::optional<std::uint64_t> limit_value(const std::string& path) {
  const std::string v = first_line(path);
  if (v.empty() || v == "max") return std::nullopt;
  try {
    const unsigned long long n = std::stoull(v);
    // cgroup v1 reports "no limit" as a huge page-aligned number.
    if (n >= (std::uint64_t{1} << 62)) return std::nullopt;
    return n;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

HostMemory host_memory() {
  HostMemory m;
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  std::string unit;
  while (in >> key >> kib) {
    std::getline(in, unit);
    if (key == "MemTotal:")
      m.total = kib * 1024;
    else if (key == "MemAvailable:")
      m.available = kib * 1024;
  }
  return m;
}

std::optional<CgroupLimit> cgroup_memory_limit() {
  std::optional<CgroupLimit> best;
  auto consider = [&best](const std::string& file) {
    if (auto v = limit_value(file); v && (!best || *v < best->bytes)) best = CgroupLimit{*v, file};
  };
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    // v2: "0::/path"; v1: "N:memory:/path" (or "N:cpu,memory:/path").
    const auto a = line.find(':');
    const auto b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1);
    std::string path = line.substr(b + 1);
    std::string base, file;
    if (controllers.empty()) {
      base = "/sys/fs/cgroup";
      file = "memory.max";
    } else if (("," + controllers + ",").find(",memory,") != std::string::npos) {
      base = "/sys/fs/cgroup/memory";
      file = "memory.limit_in_bytes";
    } else {
      continue;
    }
    // Every ancestor limits too; inside a container namespace the path may be "/" only.
    for (;;) {
      consider(base + (path == "/" ? "" : path) + "/" + file);
      if (path.empty() || path == "/") break;
      path = path.substr(0, path.rfind('/'));
      if (path.empty()) path = "/";
    }
  }
  return best;
}

std::optional<FsSpace> fs_space(const std::string& path) {
  struct statvfs st {};
  if (::statvfs(path.c_str(), &st) != 0) return std::nullopt;
  return FsSpace{static_cast<std::uint64_t>(st.f_blocks) * st.f_frsize,
                 static_cast<std::uint64_t>(st.f_bavail) * st.f_frsize};
}

FileLimit open_file_limit() {
  struct rlimit rl {};
  ::getrlimit(RLIMIT_NOFILE, &rl);
  auto conv = [](rlim_t v) {
    return v == RLIM_INFINITY ? std::numeric_limits<std::uint64_t>::max() : static_cast<std::uint64_t>(v);
  };
  return FileLimit{conv(rl.rlim_cur), conv(rl.rlim_max)};
}

std::string format_bytes(std::uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  if (u == 0 || v >= 100 || v == static_cast<double>(static_cast<std::uint64_t>(v)))
    std::snprintf(buf, sizeof buf, "%.0f %s", v, kUnits[u]);
  else
    std::snprintf(buf, sizeof buf, "%.1f %s", v, kUnits[u]);
  return buf;
}

}  // namespace shmem::util
