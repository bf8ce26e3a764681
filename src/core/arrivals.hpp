#pragma once
// The first rendezvous of a job over the bootstrap store (core/arrivals.cpp): a get that, while
// it waits, says which PEs have not arrived, and at the deadline names them in the terms of the
// way the job started (Runtime::arrival_terms).
#include <string>
#include <vector>

#include "bootstrap/store.hpp"

namespace shmem::core {

struct ArrivalWait {
  bootstrap::StoreClient* store = nullptr;
  int me = 0;
  int npes = 1;
  double timeout_s = 0;  // the whole wait
  std::string terms;     // "at tcp://10.0.0.1:29500 (every PE must ...)"
  std::string origin;    // bootstrap::LaunchSpec::origin, for the name of the deadline's knob

  // store->get(key) that reports PEs whose key under `prefix` is missing, while it waits and
  // when it gives up. With `counter` (a store counter every PE adds 1 to as it arrives) it
  // reports only how many are missing: O(1) store bytes per report instead of a look at every
  // PE's key (PE 0 names them).
  std::string await(const std::string& key, const std::string& prefix, const std::string& counter = {}) const;

 private:
  std::vector<int> not_arrived(const std::string& prefix) const;
};

}  // namespace shmem::core
