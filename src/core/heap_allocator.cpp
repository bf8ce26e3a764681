#include "core/heap_allocator.hpp"

#include <iterator>

namespace shmem {
namespace {
std::size_t round_up(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }
}  // namespace

HeapAllocator::HeapAllocator(std::size_t capacity) : capacity_(capacity / kMinAlign * kMinAlign) {
  if (capacity_ > 0) insert_free(0, capacity_);
}

void HeapAllocator::insert_free(std::size_t off, std::size_t len) {
  free_by_off_.emplace(off, len);
  free_by_len_.emplace(len, off);
}

void HeapAllocator::erase_free(std::map<std::size_t, std::size_t>::iterator it) {
  auto range = free_by_len_.equal_range(it->second);
  for (auto j = range.first; j != range.second; ++j) {
    if (j->second == it->first) {
      free_by_len_.erase(j);
      break;
    }
  }
  free_by_off_.erase(it);
}

std::optional<std::size_t> HeapAllocator::allocate(std::size_t size, std::size_t alignment) {
  if (size == 0 || alignment == 0 || (alignment & (alignment - 1)) != 0) return std::nullopt;
  if (size > capacity_) return std::nullopt;
  if (alignment < kMinAlign) alignment = kMinAlign;
  const std::size_t need = round_up(size, kMinAlign);
  // Best fit: the smallest free range that can hold the request after alignment padding.
  for (auto it = free_by_len_.lower_bound(need); it != free_by_len_.end(); ++it) {
    const std::size_t off = it->second, len = it->first;
    const std::size_t start = round_up(off, alignment);
    if (start - off + need > len) continue;
    erase_free(free_by_off_.find(off));
    if (start > off) insert_free(off, start - off);
    if (start + need < off + len) insert_free(start + need, off + len - start - need);
    live_.emplace(start, need);
    in_use_ += need;
    return start;
  }
  return std::nullopt;
}

bool HeapAllocator::release(std::size_t offset) {
  auto it = live_.find(offset);
  if (it == live_.end()) return false;
  std::size_t off = it->first, len = it->second;
  in_use_ -= len;
  live_.erase(it);
  // Coalesce with the neighbours.
  auto next = free_by_off_.lower_bound(off);
  if (next != free_by_off_.end() && next->first == off + len) {
    len += next->second;
    erase_free(next);
  }
  auto after = free_by_off_.lower_bound(off);
  if (after != free_by_off_.begin()) {
    auto prev = std::prev(after);
    if (prev->first + prev->second == off) {
      off = prev->first;
      len += prev->second;
      erase_free(prev);
    }
  }
  insert_free(off, len);
  return true;
}

std::optional<std::size_t> HeapAllocator::resize_in_place(std::size_t offset, std::size_t new_size) {
  auto it = live_.find(offset);
  if (it == live_.end() || new_size == 0) return std::nullopt;
  const std::size_t need = round_up(new_size, kMinAlign);
  const std::size_t have = it->second;
  if (need == have) return offset;
  if (need < have) {
    it->second = need;
    in_use_ -= have - need;
    // Give the tail back (coalescing with a following free range).
    std::size_t tail_off = offset + need, tail_len = have - need;
    auto next = free_by_off_.find(offset + have);
    if (next != free_by_off_.end()) {
      tail_len += next->second;
      erase_free(next);
    }
    insert_free(tail_off, tail_len);
    return offset;
  }
  auto next = free_by_off_.find(offset + have);
  if (next == free_by_off_.end() || have + next->second < need) return std::nullopt;
  const std::size_t extra = need - have;
  const std::size_t rest = next->second - extra;
  erase_free(next);
  if (rest > 0) insert_free(offset + need, rest);
  it->second = need;
  in_use_ += extra;
  return offset;
}

std::size_t HeapAllocator::size_of(std::size_t offset) const {
  auto it = live_.find(offset);
  return it == live_.end() ? 0 : it->second;
}

std::optional<std::pair<std::size_t, std::size_t>> HeapAllocator::find_containing(std::size_t offset,
                                                                                   std::size_t len) const {
  auto it = live_.upper_bound(offset);
  if (it == live_.begin()) return std::nullopt;
  --it;
  if (offset + len > it->first + it->second) return std::nullopt;
  return *it;
}

std::size_t HeapAllocator::largest_free() const {
  return free_by_len_.empty() ? 0 : std::prev(free_by_len_.end())->first;
}

}  // namespace shmem
