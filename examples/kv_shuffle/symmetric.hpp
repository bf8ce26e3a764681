#pragma once
// RAII for the two resources the example holds: a zeroed symmetric array (shmem_calloc /
// shmem_free, both collective: every PE creates and destroys them in the same order) and a stream.
#include <shmemx.h>

#include <cstddef>
#include <stdexcept>

namespace kv_shuffle {

template <class T>
class SymmetricArray {
 public:
  explicit SymmetricArray(std::size_t n) : p_(static_cast<T*>(shmem_calloc(n ? n : 1, sizeof(T)))) {}
  ~SymmetricArray() { shmem_free(p_); }
  SymmetricArray(const SymmetricArray&) = delete;
  SymmetricArray& operator=(const SymmetricArray&) = delete;
  T* get() const { return p_; }
  explicit operator bool() const { return p_ != nullptr; }

 private:
  T* p_;
};

class Stream {
 public:
  Stream() {
    if (shmemx_stream_create(&s_) != 0) throw std::runtime_error("shmemx_stream_create failed");
  }
  ~Stream() { shmemx_stream_destroy(s_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  shmemx_stream_t get() const { return s_; }

 private:
  shmemx_stream_t s_ = nullptr;
};

}  // namespace kv_shuffle
