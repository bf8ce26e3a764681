// CPU count from the affinity mask and the cgroup CPU quota (see cpus.hpp).
#include "core/cpus.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>
#include <vector>

namespace shmem::cpus {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return {};
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool to_ll(std::string_view s, long long& out) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.remove_suffix(1);
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  for (;;) {
    const std::size_t next = s.find(sep, pos);
    out.push_back(s.substr(pos, next == std::string_view::npos ? std::string_view::npos : next - pos));
    if (next == std::string_view::npos) return out;
    pos = next + 1;
  }
}

bool has_word(std::string_view list, std::string_view word) {
  for (std::string_view w : split(list, ','))
    if (w == word) return true;
  return false;
}

// One cgroup hierarchy of this process: where it is mounted, and our directory in it.
struct Hierarchy {
  bool v2 = false;
  std::string dir;   // our cgroup's directory (root-prefixed)
  std::string base;  // the mount point (root-prefixed); the walk up stops there
};

// Finds the hierarchy holding the cpu controller (v1) or the unified one (v2), preferring v1's
// cpu controller when both are mounted (hybrid layouts account the quota there).
std::vector<Hierarchy> cpu_hierarchies(const std::string& root) {
  // /proc/self/cgroup: "hier:controllers:path"; v2 is "0::path".
  std::string v1_path, v2_path;
  bool have_v1 = false, have_v2 = false;
  const std::string cgroup = read_file(root + "/proc/self/cgroup");
  for (std::string_view line : split(cgroup, '\n')) {
    const std::size_t a = line.find(':');
    const std::size_t b = a == std::string_view::npos ? a : line.find(':', a + 1);
    if (b == std::string_view::npos) continue;
    const std::string_view ctrl = line.substr(a + 1, b - a - 1);
    const std::string_view path = line.substr(b + 1);
    if (line.substr(0, a) == "0" && ctrl.empty()) {
      have_v2 = true;
      v2_path = std::string(path);
    } else if (has_word(ctrl, "cpu")) {
      have_v1 = true;
      v1_path = std::string(path);
    }
  }
  // /proc/self/mountinfo: "id parent maj:min root mountpoint opts [optional...] - fstype src superopts".
  std::vector<Hierarchy> out;
  const std::string mountinfo = read_file(root + "/proc/self/mountinfo");
  for (std::string_view line : split(mountinfo, '\n')) {
    const std::size_t dash = line.find(" - ");
    if (dash == std::string_view::npos) continue;
    const std::vector<std::string_view> pre = split(line.substr(0, dash), ' ');
    const std::vector<std::string_view> post = split(line.substr(dash + 3), ' ');
    if (pre.size() < 5 || post.size() < 3) continue;
    const std::string_view mroot = pre[3], mpoint = pre[4], fstype = post[0], super = post[2];
    const bool v2 = fstype == "cgroup2";
    if (!(v2 && have_v2) && !(fstype == "cgroup" && have_v1 && has_word(super, "cpu"))) continue;
    std::string rel = v2 ? v2_path : v1_path;
    if (mroot != "/" && rel.compare(0, mroot.size(), mroot) == 0) rel.erase(0, mroot.size());
    Hierarchy h;
    h.v2 = v2;
    h.base = root + std::string(mpoint);
    h.dir = h.base + (rel.empty() || rel[0] == '/' ? "" : "/") + rel;
    out.push_back(std::move(h));
  }
  return out;
}

int quota_in(const Hierarchy& h, const std::string& dir) {
  if (h.v2) return parse_cpu_max(read_file(dir + "/cpu.max"));
  long long quota = 0, period = 0;
  if (!to_ll(read_file(dir + "/cpu.cfs_quota_us"), quota) || !to_ll(read_file(dir + "/cpu.cfs_period_us"), period))
    return 0;
  return quota_cpus(quota, period);
}

}  // namespace

int quota_cpus(long long quota_us, long long period_us) noexcept {
  if (quota_us < 0 || period_us <= 0) return 0;
  const long long n = quota_us / period_us;
  return n < 1 ? 1 : (n > (1 << 20) ? (1 << 20) : static_cast<int>(n));
}

int parse_cpu_max(std::string_view text) noexcept {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  const std::size_t sp = text.find(' ');
  if (sp == std::string_view::npos) return 0;
  const std::string_view q = text.substr(0, sp);
  if (q == "max") return 0;
  long long quota = 0, period = 0;
  if (!to_ll(q, quota) || !to_ll(text.substr(sp + 1), period)) return 0;
  return quota_cpus(quota, period);
}

int cgroup_quota_cpus(const std::string& root, std::string* where) {
  int best = 0;
  for (const Hierarchy& h : cpu_hierarchies(root)) {
    std::string dir = h.dir;
    while (!dir.empty() && dir.back() == '/') dir.pop_back();
    for (;;) {
      const int q = quota_in(h, dir);
      if (q > 0 && (best == 0 || q < best)) {
        best = q;
        if (where != nullptr) *where = dir;
      }
      if (dir.size() <= h.base.size()) break;
      const std::size_t slash = dir.rfind('/');
      if (slash == std::string::npos || slash < h.base.size()) break;
      dir.erase(slash);
      if (dir.size() < h.base.size()) break;
    }
  }
  return best;
}

int affinity_cpus() noexcept {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
  return CPU_COUNT(&set);
}

int usable_cpus(const std::string& root) {
  const int aff = affinity_cpus();
  const int quota = cgroup_quota_cpus(root);
  int n = aff;
  if (quota > 0 && (n == 0 || quota < n)) n = quota;
  if (n == 0) {
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    n = online > 0 ? static_cast<int>(online) : 1;
  }
  return n;
}

bool pes_outnumber_cpus(int local_pes) { return local_pes > usable_cpus(); }

std::string share(const std::string& root) {
  std::string where;
  const int quota = cgroup_quota_cpus(root, &where);
  cpu_set_t set;
  CPU_ZERO(&set);
  std::string list;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (!CPU_ISSET(c, &set)) continue;
      int last = c;
      while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) ++last;
      if (!list.empty()) list += ',';
      list += std::to_string(c);
      if (last != c) list += '-' + std::to_string(last);
      c = last;
    }
  }
  return std::to_string(quota) + ' ' + (list.empty() ? "-" : list) + ' ' + where;
}

int shared_cpus(const std::vector<std::string>& shares) {
  cpu_set_t all;
  CPU_ZERO(&all);
  bool every_quota = !shares.empty();
  long long quota_sum = 0;
  std::vector<std::string_view> seen;  // cgroups whose quota is counted
  for (const std::string& sh : shares) {
    const std::vector<std::string_view> f = split(sh, ' ');
    long long quota = 0;
    if (f.size() < 2 || !to_ll(f[0], quota)) {
      every_quota = false;
      continue;
    }
    for (std::string_view range : split(f[1], ',')) {
      const std::size_t dash = range.find('-');
      long long lo = 0, hi = 0;
      if (!to_ll(range.substr(0, dash), lo)) continue;
      hi = lo;
      if (dash != std::string_view::npos && !to_ll(range.substr(dash + 1), hi)) continue;
      for (long long c = lo; c <= hi && c < CPU_SETSIZE; ++c)
        if (c >= 0) CPU_SET(static_cast<int>(c), &all);
    }
    const std::string_view where = f.size() > 2 ? std::string_view(sh).substr(f[0].size() + f[1].size() + 2) : "";
    if (quota <= 0) {
      every_quota = false;
    } else if (std::find(seen.begin(), seen.end(), where) == seen.end()) {
      seen.push_back(where);
      quota_sum += quota;
    }
  }
  const int n = CPU_COUNT(&all);
  if (every_quota && quota_sum < n) return static_cast<int>(quota_sum);
  return n;
}

bool pes_outnumber_cpus(const std::vector<std::string>& shares) {
  const int n = shared_cpus(shares);
  if (n == 0) return pes_outnumber_cpus(static_cast<int>(shares.size()));  // no masks: this process's view
  return static_cast<int>(shares.size()) > n;
}

bool move_off(const cpu_set_t& avoid) noexcept {
  cpu_set_t mask, target;
  if (sched_getaffinity(0, sizeof mask, &mask) != 0) return false;
  CPU_ZERO(&target);
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &mask) && !CPU_ISSET(c, &avoid)) CPU_SET(c, &target);
  if (CPU_COUNT(&target) == 0) return false;
  // The kernel moves a thread off a CPU its new mask excludes before sched_setaffinity returns.
  if (sched_setaffinity(0, sizeof target, &target) != 0) return false;
  (void)sched_setaffinity(0, sizeof mask, &mask);  // allowed before, so allowed now
  return true;
}

}  // namespace shmem::cpus
