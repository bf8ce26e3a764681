#pragma once
// How many CPUs this process may really use, for the one decision that needs it: do the PEs of
// this node outnumber their CPUs? The machine's CPU count is the wrong answer under `taskset`,
// in a cpuset, or in a container with a CPU quota; this takes the smallest of
//   - the affinity mask (sched_getaffinity), and
//   - the cgroup CPU bandwidth quota (cgroup v2 cpu.max, v1 cpu.cfs_quota_us / cfs_period_us)
//     of this process's cgroup and each of its ancestors, rounded down (1.5 CPUs of quota
//     cannot run 2 spinning PEs), at least 1.
// The cgroup files are found through /proc/self/cgroup and /proc/self/mountinfo, so any mount
// layout (unified, hybrid, v1 with cpu,cpuacct) works. `root` prefixes every path read (tests
// point it at a fake tree; empty in the library).
#include <sched.h>

#include <string>
#include <string_view>
#include <vector>

namespace shmem::cpus {

// A quota of quota_us per period_us as whole CPUs (floor, >= 1); 0 when unlimited (quota < 0)
// or the period is not positive.
int quota_cpus(long long quota_us, long long period_us) noexcept;
// The same from the text of a cgroup v2 cpu.max ("max 100000", "150000 100000"); 0 when
// unlimited or unreadable.
int parse_cpu_max(std::string_view text) noexcept;
// The tightest CPU quota over this process's cgroup and its ancestors; 0 when none applies.
// `where`, if given, gets the directory that sets it.
int cgroup_quota_cpus(const std::string& root = "", std::string* where = nullptr);
// CPUs in this thread's affinity mask (0 if it cannot be read).
int affinity_cpus() noexcept;
// min(affinity, quota), ignoring whichever is unknown; the online CPU count when both are.
int usable_cpus(const std::string& root = "");
// True when local_pes processes would have to share the CPUs this one may use (a job of one
// PE, before it knows its peers).
bool pes_outnumber_cpus(int local_pes);
// This process's share of the machine, as text for the other PEs under this kernel:
// "QUOTA CPULIST WHERE": the tightest cgroup quota in whole CPUs (0: none), the CPUs of the
// affinity mask as ranges ("0-3,8"), and the cgroup directory whose quota that is.
std::string share(const std::string& root = "");
// The CPUs that PEs with these shares may use together: the union of their affinity masks,
// and where every one of them is under a quota, at most the sum of the quotas of the distinct
// cgroups that set them. 0 when no share names a CPU.
int shared_cpus(const std::vector<std::string>& shares);
// True when the PEs with these shares (one per PE under this kernel) outnumber the CPUs they
// may use together. PEs bound one to a CPU each do not (each one's own mask has one CPU), and
// since every PE decides from the same shares, all decide alike: collectives pick their
// algorithm from this, and PEs that disagreed would wait for each other in different ones.
bool pes_outnumber_cpus(const std::vector<std::string>& shares);
// Moves this thread to one of the CPUs of its affinity mask outside `avoid` (the kernel picks
// which) and restores the mask: the thread's allowed CPUs end up as they were, only where it
// runs has changed. False (nothing changed) when no such CPU exists or the kernel refuses.
bool move_off(const cpu_set_t& avoid) noexcept;

}  // namespace shmem::cpus
