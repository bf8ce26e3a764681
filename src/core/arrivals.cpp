// The first rendezvous of a job: which PEs never arrived, in the terms of the way it started.
//
// Every PE's first store exchange (the "node" allgather) waits for all the others. A PE that was
// never started, or was started with another address, job size or unique ID, used to show as
// minutes of silence and then "timed out waiting for store key 'ag/node/2'". Here the wait says
// every few seconds which PEs are not there yet, and at the deadline names them with what each
// start-up mode asks of every PE (tcp://, unique ID, MPI, oshrun, torchrun-style variables).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"
#include "base/log.hpp"
#include "bootstrap/store.hpp"
#include "core/arrivals.hpp"
#include "core/runtime.hpp"

namespace shmem {
namespace {

using Clock = std::chrono::steady_clock;
using bootstrap::Millis;

// The first progress line comes early, later ones less often.
constexpr Millis kFirstReport{5000};
constexpr Millis kReportEvery{15000};
// A PE that only counts the arrivals cannot name the missing PEs; PE 0, whose error names them,
// reaches the same deadline at about the same moment. Such a PE waits this much longer, so that
// PE 0's error ends the job even when PE 0 started a little later (else this PE's leaving could
// come first, and PE 0 would report it as a lost PE instead of naming the missing ones).
constexpr Millis kNamingGrace{2000};

std::string pe_list(const std::vector<int>& pes) {
  std::string s;
  for (std::size_t i = 0; i < pes.size(); ++i) {
    if (i == 8 && pes.size() > 10) return s + " and " + std::to_string(pes.size() - i) + " more";
    s += (s.empty() ? "" : ",") + std::to_string(pes[i]);
  }
  return s;
}

std::string seconds(Millis ms) { return std::to_string((ms.count() + 500) / 1000) + " s"; }

// The setting behind a deadline: aclshmem.h's modes take it from their attribute unless
// SHMEM_BOOTSTRAP_TIMEOUT is set (src/api/acl_init.cpp).
std::string timeout_knob(std::string_view mode, const char* attr) {
  if (mode == "tcp" || mode == "uniqueid" || mode == "mpi")
    return std::string("SHMEM_BOOTSTRAP_TIMEOUT, else attr->option_attr.") + attr;
  return "SHMEM_BOOTSTRAP_TIMEOUT";
}

}  // namespace

std::string Runtime::arrival_terms() const {
  const std::string where = launch_store_host_ + ":" + std::to_string(launch_store_port_);
  const std::string n = std::to_string(npes_);
  const std::string mode = origin_;
  if (mode == "tcp")
    return "at tcp://" + where + " (every PE must call aclshmemx_init_attr with ip_port tcp://" + where +
           ", its own my_pe and n_pes=" + n + ")";
  if (mode == "uniqueid")
    return "through the unique ID (store " + where +
           "; every PE must call aclshmemx_init_attr with "
           "ACLSHMEMX_INIT_WITH_UNIQUEID, the ID PE 0's aclshmemx_get_uniqueid made, its own my_pe and n_pes=" +
           n + ")";
  if (mode == "mpi")
    return "through MPI (store " + where +
           "; every rank of the communicator must call aclshmemx_init_attr with "
           "ACLSHMEMX_INIT_WITH_MPI)";
  if (mode == "torchrun")
    return "at MASTER_ADDR:MASTER_PORT " + where +
           " (every rank must be started with the same MASTER_ADDR, "
           "MASTER_PORT and WORLD_SIZE=" +
           n + ", and its own RANK)";
  if (mode == "oshrun") return "at oshrun's store " + where + " (started by oshrun: see its messages)";
  return "at the bootstrap store " + where + " (started by " + mode + ")";
}

std::string Runtime::unreachable_hint() const {
  const std::string_view mode = origin_;
  if (mode == "oshrun" || mode == "singleton" || mode == "mpirun" || mode == "pmix") return {};
  // Refused here cannot tell a PE 0 that has not started yet from one that has ended (and the
  // job with it): only the deadline ends the wait (docs/launchers.md, "A PE that comes late").
  return "PE 0 hosts the store " + arrival_terms() +
         "; is it running? Nobody listening there means that PE 0 has not started yet, or that it has ended "
         "and the job with it. The deadline is " +
         timeout_knob(mode, "shm_init_timeout");
}

std::string Runtime::gone_hint() const {
  const std::string_view mode = origin_;
  const std::string who = "PE " + std::to_string(me_);
  if (me_ == 0) return {};  // it hosts the store itself
  if (mode == "uniqueid" || mode == "mpi")
    return "PE 0 started the store there when it made the unique ID, and has ended: the job ended (or failed) "
           "before " +
           who +
           " arrived; the PEs of a job must all join while PE 0 runs, and each job needs a unique ID "
           "of its own";
  if (mode.starts_with("torchrun (agent store)"))
    return "rank 0 started the store there and published it in torchrun's agent store (MASTER_ADDR:MASTER_PORT), "
           "and has ended: the job ended (or failed) before rank " +
           std::to_string(me_) + " arrived";
  return {};
}

namespace core {

// PEs whose key under `prefix` is not in the store yet.
std::vector<int> ArrivalWait::not_arrived(const std::string& prefix) const {
  std::vector<int> missing;
  for (int pe = 0; pe < npes; ++pe)
    if (pe != me && !store->try_get(prefix + std::to_string(pe))) missing.push_back(pe);
  return missing;
}

std::string ArrivalWait::await(const std::string& key, const std::string& prefix, const std::string& counter) const {
  const Millis total = std::chrono::duration_cast<Millis>(std::chrono::duration<double>(timeout_s));
  const Millis limit = total + (counter.empty() ? Millis{0} : std::min(kNamingGrace, total));
  const Clock::time_point start = Clock::now();
  Millis slice = kFirstReport;
  for (;;) {
    const Millis waited = std::chrono::duration_cast<Millis>(Clock::now() - start);
    try {
      return store->get(key, std::max(Millis{1}, std::min(slice, (waited < total ? total : limit) - waited)));
    } catch (const Error& e) {
      if (e.code() != Errc::kTimeout) throw;
    }
    const Millis now_waited = std::chrono::duration_cast<Millis>(Clock::now() - start);
    std::string who;
    bool none_missing = false;
    if (counter.empty()) {
      const std::vector<int> missing = not_arrived(prefix);
      none_missing = missing.empty();
      who = missing.size() == 1 ? "PE " + pe_list(missing) : "PEs " + pe_list(missing);
    } else {  // one round trip, whatever the job's size; PE 0 names them
      const std::int64_t missing = npes - store->add(counter, 0);
      none_missing = missing <= 0;
      who = std::to_string(missing) + (missing == 1 ? " PE (PE 0 names it)" : " PEs (PE 0 names them)");
    }
    if (now_waited >= limit) {
      throw Error(Errc::kTimeout, (none_missing ? std::string("the other PEs") : who) + " never arrived " + terms +
                                      " within " + seconds(total) + " (" +
                                      timeout_knob(origin, "control_operation_timeout") + ")");
    }
    if (now_waited >= total) continue;  // the grace: no progress line
    if (!none_missing)
      SHMEM_WARN("init", "PE %d: waiting for %s of %d to arrive %s: %s of %s", me, who.c_str(), npes, terms.c_str(),
                 seconds(now_waited).c_str(), seconds(total).c_str());
    slice = kReportEvery;
  }
}

}  // namespace core
}  // namespace shmem
