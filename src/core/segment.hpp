#pragma once
#include <cstddef>
#include <string>

#include "util/mapped_region.hpp"
#include "util/unique_fd.hpp"

namespace shmem {

// An anonymous shared-memory segment (memfd): no name in /dev/shm, so nothing can be left
// behind; node peers receive the descriptor over a Unix socket and map it.
struct Segment {
  util::UniqueFd fd;
  util::MappedRegion map;
  std::size_t size = 0;

  // Creates a sparse segment of `size` bytes and maps it (untouched pages cost nothing) so
  // that address `base + align_offset` is a multiple of `align` (a power of two).
  static Segment create(const char* name, std::size_t size, std::size_t align = 0, std::size_t align_offset = 0);
  // Maps a segment received from a peer, and closes its descriptor (fd is empty after).
  static Segment attach(util::UniqueFd fd, std::size_t size);
};

// The main executable's writable static data (.data/.bss), re-mapped in place onto a memfd
// so that node peers can map it too: global and static variables become symmetric and are
// reached with plain loads/stores, exactly like the heap. Done once per process.
struct DataSegment {
  char* base = nullptr;  // page-aligned start of the remapped range
  std::size_t size = 0;
  int fd = -1;           // owned for the life of the process (the mapping must stay)
};
const DataSegment& remap_data_segment();

}  // namespace shmem
