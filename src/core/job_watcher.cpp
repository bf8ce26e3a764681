#include "core/job_watcher.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "base/log.hpp"

namespace shmem {
namespace {

// "PE 3 called shmem_global_exit(7)" -> 7; any other failure ends the PE with status 1.
int exit_status_of(const std::string& why) {
  static constexpr const char kGlobalExit[] = "shmem_global_exit(";
  const auto at = why.find(kGlobalExit);
  if (at == std::string::npos) return 1;
  const int status = std::atoi(why.c_str() + at + sizeof kGlobalExit - 1);
  return status;
}

}  // namespace

JobWatcher::JobWatcher(const std::string& host, std::uint16_t port, const bootstrap::TlsConfig& tls, int my_pe,
                       bootstrap::Millis connect_timeout, const bootstrap::StoreServer* hosted)
    : me_(my_pe), hosted_(hosted), conn_(std::make_unique<bootstrap::StoreClient>(host, port, tls, -1, connect_timeout)) {
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
  try {
    why = conn_->wait_failure();
  } catch (const std::exception& e) {
    why = std::string("the bootstrap store went away (the PE hosting it ended?): ") + e.what();
  }
  if (stopping_.load()) return;
  log::write(log::Level::kFatal, "init", "PE %d: the job failed (%s); ending this PE", me_, why.c_str());
  std::fflush(nullptr);
  if (hosted_) hosted_->wait_idle(std::chrono::seconds(2));  // the others' replies are written
  _exit(exit_status_of(why));
}

}  // namespace shmem
