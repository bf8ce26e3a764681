#pragma once
// Symmetric allocations as Python objects with the buffer protocol, and the registry that lets
// every binding tell live symmetric memory from freed, peer or ordinary memory.
#include <memory>

#include "common.hpp"

namespace shmem_py {

// One shmem_malloc'd block. `freed` flips when it is freed (or at finalize); arrays that still
// point into it are then refused by every call.
struct Block {
  std::uintptr_t addr = 0;
  std::size_t nbytes = 0;
  bool freed = false;
};

// Python type shmem._core.SymmetricMemory: a writable byte buffer over a Block (pe == -1), or
// over PE `pe`'s copy of it as returned by shmem.ptr (a peer view: local memory, not symmetric).
struct Memory {
  std::shared_ptr<Block> block;
  char* data = nullptr;
  std::size_t nbytes = 0;
  int pe = -1;
};

// A memoryview over PE `pe`'s copy (at `p`) of the symmetric object `target`.
py::object peer_view(py::handle target, void* p, std::size_t nbytes, int pe);

}  // namespace shmem_py
