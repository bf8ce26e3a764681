// Streams: the queue and its thread, the registry of streams, and the C API that creates,
// destroys, synchronises and queries them.
#include "stream/stream.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <new>
#include <unordered_set>
#include <vector>

#include "base/log.hpp"
#include "core/deadlock.hpp"
#include "core/ops.hpp"
#include "core/runtime.hpp"
#include "stream/pool.hpp"

namespace shmem::stream {

// ---- Stream ------------------------------------------------------------------------------------

Stream::~Stream() { stop(); }

void Stream::enqueue(Work w) noexcept {
  std::lock_guard<std::mutex> g(mu_);
  try {
    queue_.push_back(std::move(w));
    if (!thread_.joinable()) {
      deadlock::helpers_started();  // the thread may write what a PE waits for (core/deadlock.hpp)
      thread_ = std::thread([this] { run(); });
    }
  } catch (const std::exception& e) {
    // The work was not queued, or no thread runs it: report it as the stream's error.
    if (!thread_.joinable()) queue_.clear();
    SHMEM_ERROR("stream", "could not enqueue stream work: %s", e.what());
    if (error_ == 0) error_ = SHMEMX_ERR_OUT_OF_MEMORY;
    return;
  }
  work_cv_.notify_one();
}

void Stream::run() noexcept {
  std::unique_lock<std::mutex> lk(mu_);
  for (;;) {
    work_cv_.wait(lk, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and everything queued has run
    Work w = std::move(queue_.front());
    queue_.pop_front();
    running_ = true;
    lk.unlock();
    int rc = cuda_ ? cuda_synchronize(cuda_stream_, "stream work") : 0;
    try {
      if (rc == 0) rc = w();
    } catch (const std::exception& e) {
      rc = report(SHMEMX_ERR_INTERNAL, "stream", "%s", e.what());
    } catch (...) {
      rc = report(SHMEMX_ERR_INTERNAL, "stream", "unknown exception");
    }
    w = Work();  // release what the work captured before reporting completion
    lk.lock();
    running_ = false;
    if (rc != 0 && error_ == 0) error_ = rc;
    if (queue_.empty()) idle_cv_.notify_all();
  }
}

int Stream::synchronize() noexcept {
  std::unique_lock<std::mutex> lk(mu_);
  if (thread_.joinable() && thread_.get_id() == std::this_thread::get_id())
    return report(SHMEMX_ERR_INVALID_ARGUMENT, "shmemx_stream_synchronize",
                  "called from the stream's own work (a kernel of that stream), which would wait for itself");
  auto idle = [&] { return queue_.empty() && !running_; };
  const Runtime* rt = current_runtime();
  if (rt != nullptr && rt->wait_policy().poll != nullptr) {
    // Waits must drive the network transport here (SHMEM_PROGRESS_THREAD=off, peers on other
    // hosts): so must this one, or peers whose operations target this PE stall until it returns.
    // The stream's completion still wakes it at once; in between it drives every millisecond.
    while (!idle()) {
      lk.unlock();
      rt->wait_policy().progress(false);  // a wait that sleeps between polls
      lk.lock();
      idle_cv_.wait_for(lk, std::chrono::milliseconds(1), idle);
    }
  } else {
    idle_cv_.wait(lk, idle);
  }
  int e = error_;
  error_ = 0;
  if (cuda_) {
    lk.unlock();
    const int c = cuda_synchronize(cuda_stream_, "shmemx_stream_synchronize");
    if (e == 0) e = c;
  }
  return e;
}

void Stream::wait_idle() noexcept {
  std::unique_lock<std::mutex> lk(mu_);
  idle_cv_.wait(lk, [this] { return queue_.empty() && !running_; });
}

bool Stream::pending() noexcept {
  std::lock_guard<std::mutex> g(mu_);
  return !queue_.empty() || running_;
}

bool Stream::is_own_thread() noexcept {
  std::lock_guard<std::mutex> g(mu_);
  return thread_.joinable() && thread_.get_id() == std::this_thread::get_id();
}

void Stream::record(int code) noexcept {
  std::lock_guard<std::mutex> g(mu_);
  if (error_ == 0) error_ = code;
}

void Stream::stop() noexcept {
  std::thread t;
  {
    std::lock_guard<std::mutex> g(mu_);
    if (!thread_.joinable()) return;
    stopping_ = true;
    t = std::move(thread_);
  }
  work_cv_.notify_all();
  if (t.get_id() == std::this_thread::get_id()) {
    t.detach();  // destroyed from its own work: it ends after this item
  } else {
    t.join();
  }
  std::lock_guard<std::mutex> g(mu_);
  stopping_ = false;
}

// ---- registry -------------------------------------------------------------------------------------
namespace {

struct Registry {
  std::mutex mu;
  std::unordered_set<Stream*> user;  // owned: created by shmemx_stream_create
  Stream* fallback = nullptr;        // owned: the default stream, created on first use
};

// Leaked on purpose: streams may be used from other exit handlers and static destructors, and
// their threads are joined by at_exit below, not by a destructor racing with them.
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

pid_t g_exit_hook_pid = 0;  // the process that registered at_exit

void at_exit() {
  // A child forked without exec from the process that used streams: their threads are not in it
  // (drain and join would wait for them forever); the process that owns them ends them.
  if (::getpid() != g_exit_hook_pid) return;
  drain_all(true);
  Pool::get().shutdown();
}

}  // namespace

Stream& resolve(shmemx_stream_t handle, const char* func) noexcept {
  Registry& r = registry();
  std::lock_guard<std::mutex> g(r.mu);
  if (handle == SHMEMX_STREAM_DEFAULT) {
    if (r.fallback == nullptr) {
      r.fallback = new (std::nothrow) Stream;
      if (r.fallback == nullptr) core::fatal(func, "out of memory creating the default stream");
    }
    return *r.fallback;
  }
  auto* s = reinterpret_cast<Stream*>(handle);
  if (r.user.count(s) == 0)
    core::fatal(func, "stream %p is not a live stream (never created, or already destroyed)", static_cast<void*>(handle));
  return *s;
}

static int create_stream(shmemx_stream_t* out, bool cuda, void* cuda_stream) noexcept {
  if (out == nullptr) {
    SHMEM_ERROR("stream", "%s: stream is NULL", cuda ? "shmemx_stream_create_cuda" : "shmemx_stream_create");
    return SHMEMX_ERR_INVALID_ARGUMENT;
  }
  Stream* s = new (std::nothrow) Stream;
  if (s == nullptr) return SHMEMX_ERR_OUT_OF_MEMORY;
  if (cuda) s->wrap_cuda(cuda_stream);
  Registry& r = registry();
  try {
    std::lock_guard<std::mutex> g(r.mu);
    r.user.insert(s);
  } catch (const std::exception&) {
    delete s;
    return SHMEMX_ERR_OUT_OF_MEMORY;
  }
  *out = reinterpret_cast<shmemx_stream_t>(s);
  return 0;
}

int create(shmemx_stream_t* out) noexcept { return create_stream(out, false, nullptr); }
int create_cuda(shmemx_stream_t* out, void* cuda_stream) noexcept { return create_stream(out, true, cuda_stream); }

int destroy(shmemx_stream_t handle) noexcept {
  Registry& r = registry();
  auto* s = reinterpret_cast<Stream*>(handle);
  {
    std::lock_guard<std::mutex> g(r.mu);
    if (handle != SHMEMX_STREAM_DEFAULT && r.user.count(s) != 0 && s->is_own_thread()) {
      SHMEM_ERROR("stream", "shmemx_stream_destroy: called from the stream's own work (a kernel of that stream)");
      return SHMEMX_ERR_INVALID_ARGUMENT;
    }
    if (handle == SHMEMX_STREAM_DEFAULT || r.user.erase(s) == 0) {
      SHMEM_ERROR("stream", "shmemx_stream_destroy: %s",
                  handle ? "not a live stream (never created, or already destroyed)"
                         : "the default stream cannot be destroyed");
      return SHMEMX_ERR_INVALID_ARGUMENT;
    }
  }
  const int rc = s->synchronize();
  delete s;  // stops its thread
  return rc;
}

int drain_all(bool destroy) noexcept {
  Registry& r = registry();
  std::vector<Stream*> streams;
  Stream* fallback = nullptr;
  {
    std::lock_guard<std::mutex> g(r.mu);
    try {
      streams.assign(r.user.begin(), r.user.end());
    } catch (const std::exception&) {
      return SHMEMX_ERR_OUT_OF_MEMORY;
    }
    if (destroy) r.user.clear();
    fallback = r.fallback;
  }
  int first = 0;
  auto note = [&](int rc) {
    if (rc != 0 && first == 0) first = rc;
  };
  if (fallback) {
    note(fallback->synchronize());
    if (destroy) fallback->stop();
  }
  for (Stream* s : streams) {
    note(s->synchronize());
    if (destroy) delete s;
  }
  return first;
}

void before_finalize() noexcept {
  Registry& r = registry();
  std::vector<Stream*> streams;
  {
    std::lock_guard<std::mutex> g(r.mu);
    try {
      streams.assign(r.user.begin(), r.user.end());
      if (r.fallback) streams.push_back(r.fallback);
    } catch (const std::exception&) {
      return;
    }
  }
  for (Stream* s : streams) {
    if (s->is_own_thread()) continue;  // finalize from a kernel: nothing sensible to wait for
    if (s->pending())
      SHMEM_WARN("stream", "shmem_finalize: stream %p still has work; waiting for it (synchronize streams before "
                           "finalizing)", static_cast<void*>(s));
    if (const int rc = s->synchronize())
      SHMEM_WARN("stream", "shmem_finalize: stream %p had an uncollected error %d", static_cast<void*>(s), rc);
  }
}

int report(int code, const char* func, const char* fmt, ...) noexcept {
  if (log::enabled(log::Level::kError)) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    log::write(log::Level::kError, "stream", "%s: %s; the stream's next synchronize returns %d", func, msg, code);
  }
  return code;
}

Runtime* capture_runtime(const char* func) noexcept { return &core::rt(func); }

bool still_current(Runtime* rt, const char* func) noexcept {
  if (current_runtime() == rt) return true;
  report(SHMEMX_ERR_NOT_INITIALIZED, func,
         "the library was finalised (or another instance made current) before this work ran; skipped");
  return false;
}

void ensure_exit_hook() noexcept {
  static std::once_flag once;
  std::call_once(once, [] {
    g_exit_hook_pid = ::getpid();
    std::atexit(at_exit);
  });
}

}  // namespace shmem::stream

// ---- C API ---------------------------------------------------------------------------------------
namespace st = shmem::stream;

extern "C" {

int shmemx_stream_create(shmemx_stream_t* stream) noexcept { return st::create(stream); }

int shmemx_stream_destroy(shmemx_stream_t stream) noexcept { return st::destroy(stream); }

int shmemx_stream_synchronize(shmemx_stream_t stream) noexcept {
  return st::resolve(stream, "shmemx_stream_synchronize").synchronize();
}

int shmemx_stream_query(shmemx_stream_t stream) noexcept {
  return st::resolve(stream, "shmemx_stream_query").pending() ? SHMEMX_STREAM_PENDING : 0;
}

int shmemx_stream_destroy_all(void) noexcept { return st::drain_all(true); }

}  // extern "C"
