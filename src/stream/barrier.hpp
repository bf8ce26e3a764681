#pragma once
// A reusable barrier for the threads of one block (or of a cooperative launch): a brief spin,
// then a futex wait on the generation word. Written with the compiler's atomic builtins and the
// futex system call, so that nothing of it is a std template instantiation that the shared
// library would export (see stream.hpp).
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>

namespace shmem::stream {

class Barrier {
 public:
  explicit Barrier(unsigned n) noexcept : n_(n) {}
  Barrier(const Barrier&) = delete;
  Barrier& operator=(const Barrier&) = delete;

  // Every one of the n participants calls this once per round.
  void arrive_and_wait() noexcept {
    if (n_ <= 1) return;
    const unsigned g = __atomic_load_n(&gen_, __ATOMIC_ACQUIRE);  // cannot advance before we arrive
    if (__atomic_add_fetch(&count_, 1u, __ATOMIC_ACQ_REL) == n_) {
      __atomic_store_n(&count_, 0u, __ATOMIC_RELAXED);
      __atomic_store_n(&gen_, g + 1, __ATOMIC_SEQ_CST);  // ordered before the sleepers check
      if (__atomic_load_n(&sleepers_, __ATOMIC_SEQ_CST) != 0) futex(FUTEX_WAKE_PRIVATE, INT_MAX);
      return;
    }
    for (int i = 0; i < 200; ++i) {
      if (__atomic_load_n(&gen_, __ATOMIC_ACQUIRE) != g) return;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
    __atomic_add_fetch(&sleepers_, 1u, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&gen_, __ATOMIC_ACQUIRE) == g) futex(FUTEX_WAIT_PRIVATE, static_cast<int>(g));
    __atomic_sub_fetch(&sleepers_, 1u, __ATOMIC_SEQ_CST);
  }

 private:
  void futex(int op, int val) noexcept { syscall(SYS_futex, &gen_, op, val, nullptr, nullptr, 0); }

  const unsigned n_;
  alignas(64) unsigned count_ = 0;
  alignas(64) unsigned gen_ = 0;
  unsigned sleepers_ = 0;
};

}  // namespace shmem::stream
