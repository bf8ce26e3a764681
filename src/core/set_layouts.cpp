#include "core/set_layouts.hpp"

namespace shmem {

std::shared_ptr<const SetLayout> SetLayouts::get(const Runtime& rt, int start, int log_stride, int size, int me) {
  {
    std::lock_guard<std::mutex> lk(mu_);
    for (const Entry& e : entries_)
      if (e.layout && e.start == start && e.log_stride == log_stride && e.size == size) return e.layout;
  }
  auto made = std::make_shared<SetLayout>();
  for (int i = 0; i < size; ++i) made->worlds.push_back(start + (i << log_stride));
  made->layout = HostLayout::make(rt, made->worlds, me);
  std::lock_guard<std::mutex> lk(mu_);
  Entry& e = entries_[next_];
  next_ = (next_ + 1) % kEntries;
  e = Entry{start, log_stride, size, made};
  return made;
}

}  // namespace shmem
