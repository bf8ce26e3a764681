#include <unistd.h>

#include <atomic>
#include <chrono>
#include <ctime>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "bootstrap/store.hpp"
#include "base/error.hpp"
#include "base/log.hpp"
#include "core/ops.hpp"
#include "core/runtime.hpp"

namespace shmem {
void Runtime::finalize() noexcept {
  if (finalized_) return;
  finalized_ = true;
  core::quiet(&default_ctx_);
  barrier();
  close_transport();  // peers on other hosts may now leave
  // Every PE is here: from now on PEs leave, and the store's host may go before we do.
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
  }
  _exit(status);
}

void pcontrol(int) noexcept {}

const char* library_name() noexcept { return "shmem " SHMEM_VERSION_STRING; }

}  // namespace core
}  // namespace shmem
