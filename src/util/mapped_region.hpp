#pragma once
#include <sys/mman.h>

#include <cstddef>
#include <utility>

namespace shmem::util {

// Owns one mmap()ed range; unmaps it on destruction.
class MappedRegion {
 public:
  MappedRegion() = default;
  MappedRegion(void* addr, std::size_t size) noexcept : addr_(addr), size_(size) {}
  MappedRegion(MappedRegion&& o) noexcept
      : addr_(std::exchange(o.addr_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  MappedRegion& operator=(MappedRegion&& o) noexcept {
    if (this != &o) {
      reset();
      addr_ = std::exchange(o.addr_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  MappedRegion(const MappedRegion&) = delete;
  MappedRegion& operator=(const MappedRegion&) = delete;
  ~MappedRegion() { reset(); }

  void* data() const noexcept { return addr_; }
  char* bytes() const noexcept { return static_cast<char*>(addr_); }
  std::size_t size() const noexcept { return size_; }
  explicit operator bool() const noexcept { return addr_ != nullptr; }
  // Forget the range without unmapping (e.g. when it was remapped in place and must stay).
  void release() noexcept { addr_ = nullptr; size_ = 0; }
  void reset() noexcept {
    if (addr_) ::munmap(addr_, size_);
    addr_ = nullptr;
    size_ = 0;
  }

 private:
  void* addr_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace shmem::util
