#pragma once
// A thread that calls a function while a blocking call runs: once after `first`, then every
// `every`, until the Ticker is destroyed (which stops and joins it at once). For progress lines
// of waits the library cannot break into slices itself (a PMIx fence is one blocking call).
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace shmem::util {

class Ticker {
 public:
  using Millis = std::chrono::milliseconds;
  // fn(waited): the time since construction. fn runs on the ticker's thread and must not throw.
  Ticker(Millis first, Millis every, std::function<void(Millis waited)> fn);
  ~Ticker();
  Ticker(const Ticker&) = delete;
  Ticker& operator=(const Ticker&) = delete;

 private:
  void run(Millis first, Millis every);

  std::function<void(Millis)> fn_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace shmem::util
