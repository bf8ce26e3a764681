#include "stream/pool.hpp"

#include <cstdlib>
#include <exception>
#include <string>

#include "base/config.hpp"
#include "base/log.hpp"
#include "core/deadlock.hpp"

namespace shmem::stream {
namespace {

constexpr int kMaxPoolSize = static_cast<int>(kMaxDeviceThreads);  // base/config.hpp

// SHMEM_DEVICE_THREADS: strict integer, 0 (or unset) = the hardware threads; a bad value is
// reported and ignored.
int pool_size_from_env() {
  const unsigned hw = std::thread::hardware_concurrency();
  const int fallback = hw == 0 ? 1 : static_cast<int>(hw);
  const std::string raw = config_raw("SHMEM_DEVICE_THREADS");  // the table's default when unset
  const char* v = raw.c_str();
  if (*v == '\0') return fallback;
  try {
    const std::int64_t n = parse_int(v, "SHMEM_DEVICE_THREADS");
    if (n == 0) return fallback;
    if (n >= 1 && n <= kMaxPoolSize) return static_cast<int>(n);
    SHMEM_WARN("stream", "SHMEM_DEVICE_THREADS=%s is out of range 0..%d; using %d", v, kMaxPoolSize, fallback);
  } catch (const std::exception& e) {
    SHMEM_WARN("stream", "%s; using %d", e.what(), fallback);
  }
  return fallback;
}

}  // namespace

Pool& Pool::get() {
  static Pool* p = new Pool;
  return *p;
}

Pool::Pool() : size_(pool_size_from_env()) {}

void Pool::run(int n, Job job, void* ctx) {
  if (n <= 0) return;
  Run r;
  std::unique_lock<std::mutex> lk(mu_);
  std::vector<Worker*> got;
  got.reserve(static_cast<std::size_t>(n));
  while (static_cast<int>(got.size()) < n && !idle_.empty()) {
    got.push_back(idle_.back());
    idle_.pop_back();
  }
  try {
    while (static_cast<int>(got.size()) < n) {
      workers_.push_back(std::make_unique<Worker>());
      Worker* w = workers_.back().get();
      try {
        w->thread = std::thread([this, w] { loop(w); });
      } catch (...) {
        workers_.pop_back();
        throw;
      }
      got.push_back(w);
    }
  } catch (...) {
    idle_.insert(idle_.end(), got.begin(), got.end());  // give back what we took
    throw;
  }
  deadlock::helpers_started();  // the workers may write what a PE waits for (core/deadlock.hpp)
  r.left = n;
  busy_.fetch_add(n, std::memory_order_relaxed);
  for (int i = 0; i < n; ++i) {
    Worker* w = got[static_cast<std::size_t>(i)];
    w->job = job;
    w->ctx = ctx;
    w->index = i;
    w->run = &r;
    w->go = true;
    w->cv.notify_one();
  }
  r.done_cv.wait(lk, [&] { return r.left == 0; });
}

void Pool::loop(Worker* w) noexcept {
  std::unique_lock<std::mutex> lk(mu_);
  for (;;) {
    w->cv.wait(lk, [&] { return w->go || w->quit; });
    if (!w->go) return;  // quit, and idle
    w->go = false;
    const Job job = w->job;
    void* const ctx = w->ctx;
    const int index = w->index;
    Run* const r = w->run;
    lk.unlock();
    job(ctx, index);
    busy_.fetch_sub(1, std::memory_order_relaxed);
    lk.lock();
    idle_.push_back(w);
    if (--r->left == 0) r->done_cv.notify_one();
  }
}

void Pool::shutdown() noexcept {
  std::vector<std::unique_ptr<Worker>> ending;
  {
    std::lock_guard<std::mutex> g(mu_);
    // Only idle workers: a busy one belongs to a launch still running (which exit handlers
    // cannot wait for), and stays alive with its Worker.
    for (Worker* w : idle_) {
      for (auto& up : workers_) {
        if (up.get() == w) {
          ending.push_back(std::move(up));
          break;
        }
      }
      w->quit = true;
      w->cv.notify_one();
    }
    idle_.clear();
    std::size_t kept = 0;
    for (auto& up : workers_)
      if (up) workers_[kept++] = std::move(up);
    workers_.resize(kept);
  }
  for (auto& w : ending) w->thread.join();
}

}  // namespace shmem::stream
