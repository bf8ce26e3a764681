#pragma once
// Ends this PE when the job fails, for jobs without a launcher that would (ip_port / unique-ID
// modes, torchrun- and mpirun-started jobs). A thread blocks on its own store connection in
// wait_failure(): when a PE is lost, calls shmem_global_exit, or the store itself goes away
// (the PE hosting it died), it reports why and exits this process, so no PE is left waiting in
// a barrier for a peer that is gone. stop() (finalize) ends the watch first.
#include <atomic>
#include <functional>
#include <memory>
#include <thread>

#include "bootstrap/store.hpp"

namespace shmem {
namespace bootstrap {
class HostRelay;
}

class JobWatcher {
 public:
  // Connects (anonymously) to the job's store and starts watching. Throws Error on failure.
  // `hosted`: the store server when this process hosts it (else nullptr); before this process
  // exits for a failure it lets the server finish telling the other PEs. `on_failed` (may be
  // empty) hears the cause first (LaunchSpec::on_job_failed).
  JobWatcher(const std::string& host, std::uint16_t port, const bootstrap::TlsConfig& tls, int my_pe,
             bootstrap::Millis connect_timeout, const bootstrap::StoreServer* hosted,
             std::function<void(const std::string&)> on_failed = {});
  // Watches on a channel of this host's relay (bootstrap/host_relay.hpp), which says why the
  // channel ended if it did, and which, held here, lingers for the host's others before this
  // process exits.
  JobWatcher(std::unique_ptr<bootstrap::StoreClient> conn, int my_pe, const bootstrap::StoreServer* hosted,
             std::function<void(const std::string&)> on_failed, bootstrap::HostRelay* relay);
  ~JobWatcher();
  JobWatcher(const JobWatcher&) = delete;
  JobWatcher& operator=(const JobWatcher&) = delete;

  void stop() noexcept;  // idempotent; after it, nothing the store does ends this process

 private:
  void run() noexcept;

  int me_;
  const bootstrap::StoreServer* hosted_;
  std::function<void(const std::string&)> on_failed_;
  bootstrap::HostRelay* relay_ = nullptr;
  std::atomic<bool> stopping_{false};
  std::unique_ptr<bootstrap::StoreClient> conn_;
  std::thread thread_;
};

}  // namespace shmem
