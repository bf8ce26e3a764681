#pragma once
// Hand-off of store notifications (called on server threads) to the launcher's poll loop.
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "util/unique_fd.hpp"

namespace oshrun {

struct StoreEvent {
  enum class Kind { kRankLost, kGlobalExit };
  Kind kind;
  int rank = -1;
  int status = 0;      // kGlobalExit
  std::string reason;  // kRankLost
};

class StoreEventQueue {
 public:
  StoreEventQueue();  // throws shmem::Error if no eventfd can be made
  void push(StoreEvent ev) noexcept;
  std::vector<StoreEvent> drain();  // also clears the fd's readiness
  int fd() const noexcept { return efd_.get(); }

 private:
  std::mutex mu_;
  std::deque<StoreEvent> events_;
  shmem::util::UniqueFd efd_;
};

}  // namespace oshrun
