#include "util/ticker.hpp"

#include <utility>

namespace shmem::util {

Ticker::Ticker(Millis first, Millis every, std::function<void(Millis)> fn)
    : fn_(std::move(fn)), thread_([this, first, every] { run(first, every); }) {}

Ticker::~Ticker() {
  {
    std::lock_guard<std::mutex> g(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void Ticker::run(Millis first, Millis every) {
  const auto start = std::chrono::steady_clock::now();
  auto next = start + first;
  std::unique_lock<std::mutex> lk(mu_);
  while (!cv_.wait_until(lk, next, [this] { return stop_; })) {
    lk.unlock();
    fn_(std::chrono::duration_cast<Millis>(std::chrono::steady_clock::now() - start));
    lk.lock();
    next += every;
  }
}

}  // namespace shmem::util
