#pragma once
// What the PEs exchange at init, and where they meet, behind one interface with two backends:
// the bootstrap store (core/boot_data_store.hpp: every launch mode) and, when a PMIx launcher
// started the job (mpirun, srun --mpi=pmix), PMIx itself (core/boot_data_pmix.hpp: puts, fences
// that collect the data, gets served by the local PMIx server), so that the store carries O(1)
// bytes per PE there. Every call but fetch is collective over all the job's PEs. It is also the
// transport's exchange (transport::Exchange: publish, then fetch on first use of a peer).
#include <string>
#include <vector>

#include "core/boot_exchange.hpp"
#include "transport/transport.hpp"

namespace shmem::core {

class BootData : public transport::Exchange {
 public:
  // The job's first exchange: every PE's NodeKey in; this PE's host out (its entry, its index
  // and the number of hosts).
  virtual boot::HostSeen hosts(const boot::NodeKey& mine) = 0;
  // The whole host table (after hosts()). Over the store one read of O(hosts) bytes, which the
  // host leaders make and hand their PEs (core/runtime.cpp); table_at_hand(): every PE has it
  // already (PMIx: each built it from every key).
  virtual boot::HostTable host_table() = 0;
  virtual bool table_at_hand() const noexcept { return false; }
  // After the node-local exchange: true on every PE when every PE reached all the PEs its host
  // table entry named (mine: this PE did).
  virtual bool all_placed(bool mine) = 0;
  // Returns once every PE has called it with `tag` (each tag once).
  virtual void barrier(const std::string& tag) = 0;
  // Every PE's string, in PE order (each tag once).
  virtual std::vector<std::string> allgather(const std::string& tag, const std::string& mine) = 0;
};

}  // namespace shmem::core
