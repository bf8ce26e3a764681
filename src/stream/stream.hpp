#pragma once
// Streams: ordered queues of work, each executed by its own library thread.
//
// A Stream is process-wide, not owned by a Runtime: every item captures the runtime that was
// current when it was enqueued and checks, when it runs, that this runtime is still the
// current one (otherwise the item fails with SHMEMX_ERR_NOT_INITIALIZED instead of touching a
// finalised runtime). The registry (stream.cpp) owns the streams; it is deliberately leaked,
// and its threads are joined by an exit handler registered at the first enqueue (that is, after
// shmem_init registered the runtime's own exit handler, so ours runs first).
//
// This code lives in the shared library's own objects, where instantiations of std templates
// over std-only types would be exported (libstdc++ gives namespace std default visibility). So
// the queue holds Work (a type of ours), threads run lambdas, and waiting uses mutexes,
// condition variables and barrier.hpp rather than std::function, std::latch or std::barrier.
#include <shmemx.h>

#include <condition_variable>
#include <cstdarg>
#include <deque>
#include <memory>
#include <mutex>
#include <new>
#include <thread>
#include <utility>

namespace shmem {
class Runtime;
}

namespace shmem::stream {

// One unit of stream work, move-only: returns 0 or a SHMEMX_ERR_* code (already logged).
class Work {
 public:
  Work() = default;
  template <class F>
  static Work make(F&& f) {  // throws std::bad_alloc
    Work w;
    w.impl_ = std::make_unique<Impl<std::decay_t<F>>>(std::forward<F>(f));
    return w;
  }
  int operator()() { return impl_->run(); }

 private:
  struct Base {
    virtual ~Base() = default;
    virtual int run() = 0;
  };
  template <class F>
  struct Impl final : Base {
    explicit Impl(F&& fn) : f(std::move(fn)) {}
    int run() override { return f(); }
    F f;
  };
  std::unique_ptr<Base> impl_;
};

class Stream {
 public:
  Stream() = default;
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  // Appends work (starting the thread at the first call). Never waits for other work. On a
  // failure to start the thread, records the error instead.
  void enqueue(Work w) noexcept;
  // Waits until all work has completed; returns and clears the first recorded error.
  int synchronize() noexcept;
  bool pending() noexcept;
  void record(int code) noexcept;  // the first error wins
  bool is_own_thread() noexcept;   // called from this stream's work?
  // Drains the queue and ends the thread (a later enqueue starts a new one).
  void stop() noexcept;
  // A stream that wraps a CUDA stream (shmemx_stream_create_cuda; set before any work): each
  // item first waits for the CUDA stream's earlier work, and synchronize() also synchronises
  // the CUDA stream and returns the error its kernels reported (cuda_stream.cpp).
  void wrap_cuda(void* cuda_stream) noexcept {
    cuda_ = true;
    cuda_stream_ = cuda_stream;
  }
  bool is_cuda() const noexcept { return cuda_; }
  void* cuda_stream() const noexcept { return cuda_stream_; }

 private:
  void run() noexcept;

  std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable idle_cv_;
  std::deque<Work> queue_;
  bool running_ = false;
  bool stopping_ = false;
  int error_ = 0;
  std::thread thread_;
  bool cuda_ = false;
  void* cuda_stream_ = nullptr;  // a CUstream; nullptr is CUDA's legacy default stream
};

// Synchronises a wrapped CUDA stream and collects the first error its kernels reported in the
// GPU status record (logged: routine, PE, address, expected and seen values); 0 or SHMEMX_ERR_*.
int cuda_synchronize(void* cuda_stream, const char* func) noexcept;

// The stream behind a public handle: the default stream for nullptr (created on first use).
// Ends the job with a message naming `func` for a handle that is not a live stream.
Stream& resolve(shmemx_stream_t handle, const char* func) noexcept;

// Creates / destroys user streams (destroy returns the stream's pending error, or
// SHMEMX_ERR_INVALID_ARGUMENT for an unknown handle or the default stream).
int create(shmemx_stream_t* out) noexcept;
int create_cuda(shmemx_stream_t* out, void* cuda_stream) noexcept;
int destroy(shmemx_stream_t handle) noexcept;
// Synchronises every stream; with `destroy`, also destroys user streams and stops every
// stream thread. Returns the first error.
int drain_all(bool destroy) noexcept;

// For shmem_finalize (and Ascend SHMEM's aclshmem_finalize / aclshmemx_finalize), before the
// runtime goes: waits for every stream's pending work, so that collectives queued on streams
// meet their peers' before the finalize barrier, and no queued work runs on a finalised
// runtime. Errors nobody collected are logged as warnings. Streams stay usable.
void before_finalize() noexcept;

// Logs a stream-work error (ERROR level, naming the routine) and returns `code`.
int report(int code, const char* func, const char* fmt, ...) noexcept __attribute__((format(printf, 3, 4)));

// The current runtime for work enqueued by `func` (ends the job before init, as every call
// does); whether `rt` is still current when the work runs (else reports, naming `func`); and
// the exit handler that joins the stream threads, registered once.
Runtime* capture_runtime(const char* func) noexcept;
bool still_current(Runtime* rt, const char* func) noexcept;
void ensure_exit_hook() noexcept;

// Enqueues body(Runtime&) -> int on the stream `handle` for routine `func`: the common path
// of every *_on_stream routine and of kernel launches.
template <class Body>
void submit(shmemx_stream_t handle, const char* func, Body&& body) noexcept {
  Stream& s = resolve(handle, func);
  Runtime* rt = capture_runtime(func);
  ensure_exit_hook();
  try {
    s.enqueue(Work::make([rt, func, b = std::forward<Body>(body)]() mutable -> int {
      if (!still_current(rt, func)) return SHMEMX_ERR_NOT_INITIALIZED;
      return b(*rt);
    }));
  } catch (const std::bad_alloc&) {
    report(SHMEMX_ERR_OUT_OF_MEMORY, func, "out of memory queueing the work; skipped");
    s.record(SHMEMX_ERR_OUT_OF_MEMORY);
  }
}

}  // namespace shmem::stream
