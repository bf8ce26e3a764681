#pragma once
// The tickets this PE holds on distributed locks whose home (PE 0) is on another host
// (core/ops_lock.cpp): set_lock and clear_lock may run on different threads, so the ticket
// taken by one is found by the other here. One per Runtime (a lock word is symmetric in one
// job membership).
#include <cstdint>
#include <map>
#include <mutex>

namespace shmem {

class LockTickets {
 public:
  void hold(const long* lock, std::uint32_t ticket) {
    std::lock_guard<std::mutex> g(mu_);
    held_[lock] = ticket;
  }
  // The ticket held on `lock`, forgotten; false when none is recorded.
  bool release(const long* lock, std::uint32_t* ticket) {
    std::lock_guard<std::mutex> g(mu_);
    auto it = held_.find(lock);
    if (it == held_.end()) return false;
    *ticket = it->second;
    held_.erase(it);
    return true;
  }

 private:
  std::mutex mu_;
  std::map<const long*, std::uint32_t> held_;
};

}  // namespace shmem
