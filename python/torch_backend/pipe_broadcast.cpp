// PipeBroadcast: large broadcasts pipelined through slots (pipe_broadcast.hpp).
#include "pipe_broadcast.hpp"

#include <shmem.h>

#include <ATen/ATen.h>

#include <algorithm>
#include <atomic>
#include <cstring>

namespace shmem_torch {

namespace {
// Slots: 256 KiB on one host (a copy in, a copy out); 1 MiB when the job spans hosts, where each
// chunk costs a forwarder one get and its round trip.
constexpr std::size_t kSlotBytes = std::size_t{256} << 10;
constexpr std::size_t kSlotBytesHosts = std::size_t{1} << 20;
constexpr std::int64_t kSlots = 8;
// A forwarder's gets in flight: half the ring, so that its host's ranks copy out one half while
// the other is fetched (one get at a time was 1.1-2.1x slower from 4 MiB across 2 hosts).
constexpr std::int64_t kWindow = kSlots / 2;
}  // namespace

PipeBroadcast::PipeBroadcast(int rank, int size)
    : rank_(rank),
      size_(size),
      host_(static_cast<std::size_t>(size), 0),
      published_(static_cast<std::size_t>(size), 0),
      last_read_(static_cast<std::size_t>(size), std::vector<std::int64_t>(static_cast<std::size_t>(size), -1)) {}

void PipeBroadcast::setup() {
  // Words: ready[size] (on a reader, one per source), done[size] (on a source, one per reader),
  // then this rank's host and every rank's, gathered.
  const std::size_t n = static_cast<std::size_t>(size_);
  auto* w = reinterpret_cast<std::int64_t*>(words_.ensure((3 * n + 1) * sizeof(std::int64_t)));
  std::memset(w, 0, 2 * n * sizeof(std::int64_t));
  w[2 * n] = shmem_team_translate_pe(SHMEM_TEAM_SHARED, 0, SHMEM_TEAM_WORLD);
  TORCH_CHECK(shmem_fcollectmem(SHMEM_TEAM_WORLD, w + 2 * n + 1, w + 2 * n, sizeof(std::int64_t)) == 0,
              "shmem backend: broadcast: gathering the ranks' hosts failed");
  for (std::size_t r = 0; r < n; ++r) host_[r] = static_cast<int>(w[2 * n + 1 + r]);
  const bool hosts = std::any_of(host_.begin(), host_.end(), [&](int h) { return h != host_[0]; });
  slot_bytes_ = hosts ? kSlotBytesHosts : kSlotBytes;
  slots_.ensure(kSlots * slot_bytes_);
  shmem_barrier_all();  // every rank's words are zero before any source raises one
  ready_setup_ = true;
}

int PipeBroadcast::source_of(int r, int root) const {
  const int h = host_[static_cast<std::size_t>(r)];
  if (h == host_[static_cast<std::size_t>(root)] || r == h) return root;  // root's host, or a forwarder
  return h;
}

void PipeBroadcast::run(char* data, std::size_t bytes, int root) {
  if (!ready_setup_) setup();
  auto* words = reinterpret_cast<std::int64_t*>(words_.ensure(1));
  std::int64_t* ready = words;         // ready[s]: chunks source s has published to this rank
  std::int64_t* done = words + size_;  // done[q]: on a source, its chunks rank q has copied
  const std::size_t step = slot_bytes_;
  char* slots = slots_.ensure(kSlots * step);
  const auto chunks = static_cast<std::int64_t>((bytes + step - 1) / step);
  const int src = rank_ == root ? -1 : source_of(rank_, root);
  const bool forwarder = rank_ != root && src == root && host_[static_cast<std::size_t>(rank_)] == rank_ &&
                         host_[static_cast<std::size_t>(root)] != rank_;
  const bool publishes = rank_ == root || forwarder;
  std::vector<int> readers;  // of this rank, in this call
  for (int q = 0; q < size_; ++q)
    if (q != root && source_of(q, root) == rank_) readers.push_back(q);
  const std::int64_t base = published_[static_cast<std::size_t>(rank_)];
  const std::int64_t from_base = src < 0 ? 0 : published_[static_cast<std::size_t>(src)];
  const char* from = nullptr;
  if (src >= 0 && !forwarder) {
    from = static_cast<const char*>(shmem_ptr(slots, src));
    TORCH_CHECK(from != nullptr, "shmem backend: broadcast: rank ", src, "'s staging is not mapped here");
  }
  // Before chunk j of this rank goes into its slot, every rank that read the slot's previous
  // chunk has copied it out.
  auto slot_free = [&](std::int64_t j) {
    const std::int64_t old = j - kSlots;  // the slot's previous chunk
    if (old < 0) return;
    for (int q = 0; q < size_; ++q) {
      const bool now = std::find(readers.begin(), readers.end(), q) != readers.end();
      const std::int64_t last = last_read_[static_cast<std::size_t>(rank_)][static_cast<std::size_t>(q)];
      // A reader of this call read `old` if it is this call's; earlier chunks, up to its last.
      const std::int64_t need = now && old >= base ? old + 1 : (last >= 0 ? std::min(last, old) + 1 : 0);
      if (need > 0) shmem_int64_wait_until(done + q, SHMEM_CMP_GE, need);
    }
  };
  auto publish = [&](std::int64_t j) {
    std::atomic_thread_fence(std::memory_order_release);
    for (int q : readers) shmem_int64_atomic_set(ready + rank_, j + 1, q);
  };
  if (forwarder) {
    // The one transfer between hosts: gets from the root's slots on its host, up to kWindow
    // chunks in flight (those the root has published), completed together by one quiet.
    for (std::int64_t c = 0; c < chunks;) {
      shmem_int64_wait_until(ready + root, SHMEM_CMP_GE, from_base + c + 1);
      const std::int64_t there = std::atomic_ref<std::int64_t>(ready[root]).load(std::memory_order_acquire) - from_base;
      const std::int64_t end = std::min({chunks, c + kWindow, there});
      for (std::int64_t e = c; e < end; ++e) {
        const std::size_t off = static_cast<std::size_t>(e) * step;
        slot_free(base + e);
        shmem_getmem_nbi(slots + static_cast<std::size_t>((base + e) % kSlots) * step,
                         slots + static_cast<std::size_t>((from_base + e) % kSlots) * step, std::min(step, bytes - off),
                         root);
      }
      shmem_quiet();
      shmem_int64_atomic_set(done + rank_, from_base + end, root);
      for (std::int64_t e = c; e < end; ++e) {
        const std::size_t off = static_cast<std::size_t>(e) * step;
        publish(base + e);
        std::memcpy(data + off, slots + static_cast<std::size_t>((base + e) % kSlots) * step,
                    std::min(step, bytes - off));
      }
      c = end;
    }
  } else {
    for (std::int64_t c = 0; c < chunks; ++c) {
      const std::size_t off = static_cast<std::size_t>(c) * step;
      const std::size_t m = std::min(step, bytes - off);
      if (publishes) {  // the root
        slot_free(base + c);
        std::memcpy(slots + static_cast<std::size_t>((base + c) % kSlots) * step, data + off, m);
        publish(base + c);
      } else {
        const std::int64_t k = from_base + c;
        shmem_int64_wait_until(ready + src, SHMEM_CMP_GE, k + 1);
        std::memcpy(data + off, from + static_cast<std::size_t>(k % kSlots) * step, m);
        shmem_int64_atomic_set(done + rank_, k + 1, src);
      }
    }
  }
  // Every rank's books: who published what, and who read up to where.
  if (chunks == 0) return;
  for (int q = 0; q < size_; ++q) {
    if (q == root) continue;
    const int s = source_of(q, root);
    last_read_[static_cast<std::size_t>(s)][static_cast<std::size_t>(q)] =
        published_[static_cast<std::size_t>(s)] + chunks - 1;
  }
  for (int s = 0; s < size_; ++s) {
    const bool pubs = s == root || (host_[static_cast<std::size_t>(s)] == s &&
                                    host_[static_cast<std::size_t>(s)] != host_[static_cast<std::size_t>(root)]);
    if (pubs) published_[static_cast<std::size_t>(s)] += chunks;
  }
}

}  // namespace shmem_torch
