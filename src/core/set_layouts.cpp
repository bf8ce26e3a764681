#include "core/set_layouts.hpp"

namespace shmem {

std::shared_ptr<const SetLayout> SetLayouts::find(int start, int log_stride, int size) const noexcept {
  for (const Entry& e : entries_)
    if (e.layout && e.start == start && e.log_stride == log_stride && e.size == size) return e.layout;
  return nullptr;
}

std::shared_ptr<const SetLayout> SetLayouts::get(const Runtime& rt, int start, int log_stride, int size, int me) {
  {
    std::lock_guard<std::mutex> lk(mu_);
    if (auto kept = find(start, log_stride, size)) return kept;
  }
  auto made = std::make_shared<SetLayout>();  // outside the lock: other sets' calls go on
  for (int i = 0; i < size; ++i) made->worlds.push_back(start + (i << log_stride));
  made->layout = HostLayout::make(rt, made->worlds, me);
  std::lock_guard<std::mutex> lk(mu_);
  if (auto kept = find(start, log_stride, size)) return kept;  // another thread kept it meanwhile
  entries_[next_] = Entry{start, log_stride, size, made};
  next_ = (next_ + 1) % kEntries;
  return made;
}

}  // namespace shmem
