#include "core/job_watcher.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "base/log.hpp"
#include "bootstrap/host_relay.hpp"

namespace shmem {

JobWatcher::JobWatcher(const std::string& host, std::uint16_t port, const bootstrap::TlsConfig& tls, int my_pe,
                       bootstrap::Millis connect_timeout, const bootstrap::StoreServer* hosted,
                       std::function<void(const std::string&)> on_failed)
    : me_(my_pe),
      hosted_(hosted),
      on_failed_(std::move(on_failed)),
      conn_(std::make_unique<bootstrap::StoreClient>(host, port, tls, -1, connect_timeout)) {
  thread_ = std::thread([this] { run(); });
}

JobWatcher::JobWatcher(std::unique_ptr<bootstrap::StoreClient> conn, int my_pe, const bootstrap::StoreServer* hosted,
                       std::function<void(const std::string&)> on_failed, bootstrap::HostRelay* relay)
    : me_(my_pe), hosted_(hosted), on_failed_(std::move(on_failed)), relay_(relay), conn_(std::move(conn)) {
  thread_ = std::thread([this] { run(); });
}

JobWatcher::~JobWatcher() { stop(); }

void JobWatcher::stop() noexcept {
  if (stopping_.exchange(true)) return;
  conn_->interrupt();
  if (thread_.joinable()) thread_.join();
}

void JobWatcher::run() noexcept {
  std::string why;
  int status = 1;
  try {
    why = conn_->wait_failure(&status);
  } catch (const std::exception& e) {
    // A silent link says so itself (StoreClient names SHMEM_HOST_TIMEOUT); a closed one may
    // mean that the PE hosting the store ended.
    const std::string what = e.what();
    // Through this host's relay: its owner knows why the store connection ended.
    const std::string relayed = relay_ && !stopping_.load() ? relay_->why_lost(bootstrap::Millis(2000)) : std::string();
    if (!relayed.empty())
      why = relayed;
    else
      why = what.starts_with("no reply from") ? what
                                              : "the bootstrap store went away (the PE hosting it ended?): " + what;
  }
  if (stopping_.load()) return;
  log::write(log::Level::kFatal, "init", "PE %d: the job failed (%s); ending this PE", me_, why.c_str());
  std::fflush(nullptr);
  if (on_failed_) on_failed_("PE " + std::to_string(me_) + " ended: the job failed (" + why + ")");
  // Hosting the store: the other ranks (also those still arriving) hear why first.
  if (hosted_) hosted_->wait_all_told(std::chrono::seconds(3));
  // Relaying this host's store connection: its other PEs hear it through us first.
  if (relay_) relay_->linger(bootstrap::Millis(3000));
  _exit(status);  // shmem_global_exit(n): n; a PE that exited with n before finalize: n; else 1
}

}  // namespace shmem
