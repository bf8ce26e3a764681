#pragma once
// The CPU "device": a pool of worker threads that kernel launches run on.
//
// run(n, job, ctx) runs job(ctx, 0) ... job(ctx, n-1) on n distinct threads at the same time and
// returns when all have returned. Idle threads are reused; when more are needed than are idle
// (a large block, a cooperative launch, or launches from several streams at once) new ones are
// started, so that concurrent launches never wait for each other's threads (a kernel may wait
// for a kernel of another stream or PE). How many threads a launch asks for is the launcher's
// choice: size() (SHMEM_DEVICE_THREADS, default the hardware threads) bounds a normal launch.
// Plain function pointers, mutexes and condition variables only (see stream.hpp on why).
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace shmem::stream {

class Pool {
 public:
  using Job = void (*)(void* ctx, int index) noexcept;

  static Pool& get();  // the process's pool (leaked; threads joined by shutdown())

  int size() const noexcept { return size_; }
  // Threads running a job now (a hint: relaxed; device waits ask it, device_wait.cpp).
  int busy() const noexcept { return busy_.load(std::memory_order_relaxed); }
  // Throws std::system_error / std::bad_alloc if threads cannot be started (nothing ran then).
  void run(int n, Job job, void* ctx);
  // Ends and joins the idle threads (at exit; a later run() starts new ones).
  void shutdown() noexcept;

 private:
  struct Run {
    std::condition_variable done_cv;
    int left = 0;
  };
  struct Worker {
    std::thread thread;
    std::condition_variable cv;
    bool go = false;
    bool quit = false;
    Job job = nullptr;
    void* ctx = nullptr;
    int index = 0;
    Run* run = nullptr;
  };

  Pool();
  void loop(Worker* w) noexcept;

  int size_ = 1;
  std::atomic<int> busy_{0};
  std::mutex mu_;  // guards everything below and every Worker's fields and Run::left
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<Worker*> idle_;
};

}  // namespace shmem::stream
