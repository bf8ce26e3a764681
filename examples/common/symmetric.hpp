#pragma once
// RAII shared by the C++ examples (examples/common is not an example itself: it has no
// CMakeLists.txt). A zeroed symmetric array (shmem_calloc / shmem_free, both collective: every
// PE creates and destroys its arrays in the same order with the same sizes), a stream, and a
// job-wide sum.
#include <shmemx.h>

#include <algorithm>
#include <cstddef>

namespace shmem_examples {

template <class T>
class SymmetricArray {
 public:
  // Zero-filled; get() is nullptr when the symmetric heap is too small (on every PE).
  explicit SymmetricArray(std::size_t n) : p_(static_cast<T*>(shmem_calloc(std::max<std::size_t>(n, 1), sizeof(T)))) {}
  ~SymmetricArray() { shmem_free(p_); }
  SymmetricArray(const SymmetricArray&) = delete;
  SymmetricArray& operator=(const SymmetricArray&) = delete;

  T* get() const { return p_; }
  explicit operator bool() const { return p_ != nullptr; }

 private:
  T* p_ = nullptr;
};

// An owned stream, destroyed (after its work) at scope exit. create_rc() is
// shmemx_stream_create's result: nonzero means there is no stream.
class Stream {
 public:
  Stream() { rc_ = shmemx_stream_create(&s_); }
  ~Stream() {
    if (rc_ == 0) shmemx_stream_destroy(s_);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  shmemx_stream_t get() const { return s_; }
  int create_rc() const { return rc_; }

 private:
  shmemx_stream_t s_ = nullptr;
  int rc_ = 0;
};

// The sum of `mine` over all PEs, on every PE (collective).
inline long sum_over_pes(long mine) {
  SymmetricArray<long> v(2);
  v.get()[0] = mine;
  shmem_long_sum_reduce(SHMEM_TEAM_WORLD, v.get() + 1, v.get(), 1);
  return v.get()[1];
}

}  // namespace shmem_examples
