#pragma once
// Where the PEs of this node last waited: one word per PE, in node-shared memory, holding the
// CPU its last slow wait ran on. A wait whose spin ran out asks the board one question: did
// another PE of this job last run on the CPU I am running on now? If so, that PE is not
// running (this one is), so it is probably queued behind this one: hand the CPU over at once.
// If not, the PEs this one may be waiting for are on other CPUs, running or queued behind
// processes there, and handing this CPU over can only give it to an outside process (and on
// EEVDF every sched_yield that does so pushes this PE's deadline a whole slice back), so the
// wait keeps spinning. See wait.hpp.
//
// A PE publishes (its CPU from glibc's rseq area through sched_getcpu, a load; the store only
// when the CPU changed) every time it asks, and 0 while it sleeps in a wait. The word is
// written by its owner only and read by the others: a hint, relaxed, never a synchronisation.
// It can be stale (a PE moved by the load balancer while it was queued publishes its new CPU
// only when it next waits); the cost of that is one spin until this PE is preempted.
#include <sched.h>

#include <atomic>
#include <cstdint>
#include <vector>

namespace shmem {

// One PE's word: its CPU + 1 (0: not known, or asleep in a wait), on a line of its own.
struct alignas(64) WaitSlot {
  std::atomic<std::int32_t> cpu_plus_1{0};
};

class WaitBoard {
 public:
  struct Other {
    const WaitSlot* slot;
    bool higher;  // that PE's number is above this one's
  };
  // What look() saw: whether another PE last waited on this CPU, and whether this PE has the
  // highest number of those there (the one that moves away, so that two never move together).
  struct Look {
    bool peer_here = false;
    bool highest_here = true;
    bool peer_elsewhere = false;  // another PE last waited on another CPU
  };
  // `mine`: this PE's slot (in its own node-shared memory); `others`: the slots of the other
  // PEs on this node as mapped here. Before attach, nobody is seen (every wait spins on).
  void attach(WaitSlot* mine, std::vector<Other> others) {
    mine_ = mine;
    others_ = std::move(others);
  }
  // Publishes this thread's CPU and looks for other PEs that last waited on it.
  Look look() const noexcept {
    Look l;
    if (mine_ == nullptr) return l;
    const int cpu = sched_getcpu();
    if (cpu < 0) {  // no CPU number: behave as if the CPU were shared (hand over), never move
      l.peer_here = true;
      l.highest_here = false;
      l.peer_elsewhere = true;
      return l;
    }
    const std::int32_t mark = cpu + 1;
    if (mine_->cpu_plus_1.load(std::memory_order_relaxed) != mark) mine_->cpu_plus_1.store(mark, std::memory_order_relaxed);
    for (const Other& o : others_) {
      const std::int32_t c = o.slot->cpu_plus_1.load(std::memory_order_relaxed);
      if (c == mark) {
        l.peer_here = true;
        if (o.higher) l.highest_here = false;
      } else if (c != 0) {
        l.peer_elsewhere = true;
      }
    }
    return l;
  }
  bool peer_queued_here() const noexcept { return look().peer_here; }
  // The CPUs that some PE of this node (this one included) last waited on.
  void occupied(cpu_set_t* set) const noexcept {
    CPU_ZERO(set);
    auto add = [&](const WaitSlot* s) {
      const std::int32_t c = s->cpu_plus_1.load(std::memory_order_relaxed) - 1;
      if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, set);
    };
    if (mine_ != nullptr) add(mine_);
    for (const Other& o : others_) add(o.slot);
  }
  // This PE is about to sleep in a wait: it queues behind nobody.
  void asleep() const noexcept {
    if (mine_ != nullptr) mine_->cpu_plus_1.store(0, std::memory_order_relaxed);
  }

 private:
  WaitSlot* mine_ = nullptr;
  std::vector<Other> others_;
};

}  // namespace shmem
