#pragma once
// Staging: a symmetric buffer that the backend's collectives copy tensors through.
#include <cstddef>

namespace shmem_torch {

// A symmetric buffer that grows (collectively) to the largest size asked for.
class Staging {
 public:
  Staging() = default;
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;
  ~Staging();
  // Collective: every rank calls it with the same `bytes`.
  char* ensure(std::size_t bytes);

 private:
  char* buf_ = nullptr;
  std::size_t cap_ = 0;
};

}  // namespace shmem_torch
