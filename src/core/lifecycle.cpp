#include <unistd.h>

#include <atomic>
#include <chrono>
#include <ctime>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "bootstrap/host_relay.hpp"
#include "bootstrap/store.hpp"
#include "base/error.hpp"
#include "base/log.hpp"
#include "core/coll_check.hpp"
#include "core/ops.hpp"
#include "core/gpu_heap.hpp"
#include "core/runtime.hpp"

namespace shmem {
namespace {

// How long a PE that exits with status 0 without shmem_finalize waits for the other PEs to
// reach finalize (explicitly or by exiting too) before it ends the job: the job then ends
// within about 2 s of that exit.
constexpr bootstrap::Millis kExitRendezvous{1500};
constexpr const char* kFinalizeKey = "shmem/finalize/";

std::string pe_list(const std::vector<int>& pes) {
  std::string s;
  for (int pe : pes) s += (s.empty() ? "" : ",") + std::to_string(pe);
  return s;
}

}  // namespace

// Finalize meets the other PEs on the store, never on the world team's barrier: a PE that
// finalizes (or exits) while the others are in a barrier of their own must not complete it.
bool Runtime::meet_to_finalize(bool at_exit) noexcept {
  const std::string mine = kFinalizeKey + std::to_string(me_);
  try {
    store_->set(mine, at_exit ? "exit" : "finalize");
    if (store_->add(std::string(kFinalizeKey) + "count", 1) == npes_) store_->set(std::string(kFinalizeKey) + "go", "1");
    if (!at_exit) {
      store_->get(std::string(kFinalizeKey) + "go", bootstrap::Millis(-1));
      return true;
    }
    // At exit: the others get a moment to arrive. Those that are late but on their way (their
    // key is set) get a little longer; those that have not arrived still run.
    for (int round = 0; round < 3; ++round) {
      try {
        store_->get(std::string(kFinalizeKey) + "go", kExitRendezvous);
        return true;
      } catch (const Error& e) {
        if (e.code() != Errc::kTimeout) throw;
      }
      std::vector<int> running;
      for (int pe = 0; pe < npes_; ++pe)
        if (!store_->try_get(kFinalizeKey + std::to_string(pe))) running.push_back(pe);
      if (running.empty()) continue;
      leave_job(1, "PE " + std::to_string(me_) + " returned from main (or called exit(0)) without shmem_finalize while PE" +
                       (running.size() > 1 ? "s " : " ") + pe_list(running) + (running.size() > 1 ? " still run" : " still runs"));
      return false;
    }
    leave_job(1, "PE " + std::to_string(me_) + " returned from main without shmem_finalize and the others did not complete "
                 "finalize in time");
    return false;
  } catch (const std::exception& e) {
    // The job failed meanwhile (another PE left or was lost): that failure ends this PE.
    if (watcher_) watcher_->stop();
    log::write(log::Level::kFatal, "init", "PE %d: %s: %s", me_, at_exit ? "implicit finalize at exit" : "shmem_finalize",
               e.what());
    std::fflush(nullptr);
    if (store_server_) store_server_->wait_idle(std::chrono::seconds(2));
    linger_for_host();
    _exit(1);
  }
}

void Runtime::leave_job(int status, const std::string& reason) noexcept {
  // Our own watcher would report the failure we are about to cause as if it came from elsewhere.
  if (watcher_) watcher_->stop();
  if (store_) {
    try {
      store_->leave(status, reason);
    } catch (const std::exception& e) {
      SHMEM_WARN("init", "%s; could not tell the other PEs: %s", reason.c_str(), e.what());
    }
  }
  // Hosting the store: let the other PEs hear it before this process (and the store) is gone.
  if (store_server_) store_server_->wait_idle(std::chrono::seconds(2));
  linger_for_host();  // relaying this host's store connection: the same for its PEs
}

void Runtime::finalize() noexcept {
  if (finalized_) return;
  finalized_ = true;
  core::quiet(&default_ctx_);
  close_transport();  // from here on, peers on other hosts that leave have not failed
  coll_check::publish_finalize(*this);  // a peer waiting in a collective this PE skipped can tell
  if (store_ && npes_ > 1) meet_to_finalize(false);
  finish_finalize();
}

void Runtime::leave_at_exit(int status, bool wait_for_all) noexcept {
  if (finalized_) return;
  finalized_ = true;
  if (status != 0) {
    if (store_ && npes_ > 1)
      leave_job(status, "PE " + std::to_string(me_) + " exited with status " + std::to_string(status) +
                            " before shmem_finalize");
    return;  // no finalize: the process goes on exiting with its status
  }
  core::quiet(&default_ctx_);
  close_transport();
  coll_check::publish_finalize(*this);
  if (store_ && npes_ > 1 && !meet_to_finalize(!wait_for_all)) {
    std::fflush(nullptr);
    _exit(1);
  }
  finish_finalize();
}

void Runtime::finish_finalize() noexcept {
  // Every PE is here, so no peer reads our GPU heap any more: unmap and free it.
  gpu_.reset();
  // From now on PEs leave, and the store's host may go before we do.
  if (watcher_) watcher_->stop();
  if (store_) {
    try {
      store_->goodbye();
    } catch (const std::exception& e) {
      SHMEM_WARN("init", "finalize: %s", e.what());
    }
  }
  if (store_server_) {
    // We host the store: keep it up until every PE has said goodbye (bounded).
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    for (int pe = 0; pe < npes_; ++pe) {
      while (!store_server_->rank_finalized(pe) && std::chrono::steady_clock::now() < deadline) {
        timespec ts{0, 1000 * 1000};
        nanosleep(&ts, nullptr);
      }
    }
  }
}

[[noreturn]] void Runtime::abort_job(int status) noexcept {
  std::fflush(nullptr);
  _exit(status == 0 ? 1 : status);
}

namespace core {

bool initialized() noexcept { return current_runtime() != nullptr; }

int query_thread() noexcept {
  Runtime* r = current_runtime();
  return r ? r->thread_level() : 0;
}

Runtime& rt(const char* func) noexcept {
  Runtime* r = current_runtime();
  if (__builtin_expect(r == nullptr, 0))
    fatal(func, "called before shmem_init (or after shmem_finalize): initialise the library first");
  return *r;
}

int my_pe() noexcept { return rt("shmem_my_pe").my_pe(); }

int n_pes() noexcept { return rt("shmem_n_pes").n_pes(); }

void fatal(const char* func, const char* fmt, ...) noexcept {
  char msg[1536];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  log::write(log::Level::kFatal, "api", "%s: %s", func, msg);
  std::fflush(nullptr);
  _exit(1);
}

void global_exit(int status) noexcept {
  Runtime* r = current_runtime();
  std::fflush(nullptr);
  if (r && r->store()) {
    try {
      r->store()->global_exit(status);
    } catch (const std::exception& e) {
      SHMEM_WARN("init", "shmem_global_exit: could not notify the other PEs: %s", e.what());
    }
    r->linger_for_host();
  }
  _exit(status);
}

void pcontrol(int) noexcept {}

const char* library_name() noexcept { return "shmem " SHMEM_VERSION_STRING; }

}  // namespace core
}  // namespace shmem
