#pragma once
// The host layouts of the active sets that legacy collectives run on across hosts
// (coll/xhost_set.cpp): a program calls them on the same few sets over and over, so each set's
// member list and HostLayout are computed once and kept (the last kEntries sets, replaced
// round robin; most programs use one to three). Shared by every thread of the PE
// (SHMEM_THREAD_MULTIPLE runs active-set collectives concurrently on different pSync arrays):
// a call holds its layout by shared_ptr, so a replacement never frees one in use.
#include <array>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "core/host_layout.hpp"

namespace shmem {

struct SetLayout {
  std::vector<int> worlds;  // member index -> world PE
  HostLayout layout;
};

class SetLayouts {
 public:
  // The set start, start + 2^log_stride, ... (size members), of which this PE is member `me`.
  std::shared_ptr<const SetLayout> get(const Runtime& rt, int start, int log_stride, int size, int me);

 private:
  struct Entry {
    int start = -1, log_stride = 0, size = 0;
    std::shared_ptr<const SetLayout> layout;
  };
  // The kept layout of that set, or null (mu_ held).
  std::shared_ptr<const SetLayout> find(int start, int log_stride, int size) const noexcept;
  static constexpr std::size_t kEntries = 4;
  std::mutex mu_;
  std::array<Entry, kEntries> entries_;
  std::size_t next_ = 0;  // the entry a new set replaces
};

}  // namespace shmem
