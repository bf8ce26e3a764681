#pragma once
// An owning handle for a symmetric array (shmem_calloc / shmem_free). Both calls are collective:
// every PE must create and destroy its arrays in the same order with the same sizes.
#include <shmem.h>

#include <algorithm>
#include <cstddef>

namespace mc2 {

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

}  // namespace mc2
