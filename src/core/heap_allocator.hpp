#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>

namespace shmem {

// Deterministic best-fit allocator over offsets [0, capacity). Every PE runs the same sequence
// of calls (allocation is collective), so every PE gets the same offsets: that is what makes
// the heap symmetric. Metadata lives in process memory, never in the shared segment.
class HeapAllocator {
 public:
  static constexpr std::size_t kMinAlign = 64;  // a cache line: no false sharing between objects

  explicit HeapAllocator(std::size_t capacity);

  // Returns the offset, or nullopt if no free range fits. alignment: power of two (>= 1).
  std::optional<std::size_t> allocate(std::size_t size, std::size_t alignment = kMinAlign);
  // Returns false if `offset` is not the start of a live allocation.
  bool release(std::size_t offset);
  // Grows or shrinks in place when possible; otherwise returns nullopt (caller moves data).
  std::optional<std::size_t> resize_in_place(std::size_t offset, std::size_t new_size);
  // Size of the live allocation starting at offset (0 if none).
  std::size_t size_of(std::size_t offset) const;
  // The live allocation containing [offset, offset+len), as (start, size); nullopt if none.
  std::optional<std::pair<std::size_t, std::size_t>> find_containing(std::size_t offset, std::size_t len) const;

  std::size_t capacity() const noexcept { return capacity_; }
  std::size_t bytes_in_use() const noexcept { return in_use_; }
  std::size_t largest_free() const;
  std::size_t live_count() const noexcept { return live_.size(); }

 private:
  void insert_free(std::size_t off, std::size_t len);
  void erase_free(std::map<std::size_t, std::size_t>::iterator it);

  std::size_t capacity_;
  std::size_t in_use_ = 0;
  std::map<std::size_t, std::size_t> free_by_off_;       // offset -> length
  std::multimap<std::size_t, std::size_t> free_by_len_;  // length -> offset (best fit)
  std::map<std::size_t, std::size_t> live_;              // offset -> rounded length
};

}  // namespace shmem
