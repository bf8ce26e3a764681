// AllToAll: large all_to_all blocks with a signal per chunk and credits (alltoall.hpp).
#include "alltoall.hpp"

#include <shmem.h>

#include <algorithm>
#include <cstring>
#include <thread>

namespace shmem_torch {

namespace {
// A chunk per signal: small enough that the copy out of one overlaps the transfer of the next
// ones, large enough that a signal and a fence per chunk cost little next to its bytes.
constexpr std::size_t kChunkBytes = std::size_t{1} << 20;

std::size_t bytes_of(const at::Tensor& t) { return static_cast<std::size_t>(t.numel()) * t.element_size(); }
}  // namespace

AllToAll::AllToAll(int rank, int size)
    : rank_(rank),
      size_(size),
      sent_(static_cast<std::size_t>(size), 0),
      received_(static_cast<std::size_t>(size), 0) {}

std::uint64_t AllToAll::chunks_of(std::size_t bytes) { return (bytes + kChunkBytes - 1) / kChunkBytes; }

void AllToAll::setup() {
  // Words: sig[size] (at a receiver, one per sender), done[size] (at a sender, one per receiver).
  const std::size_t n = static_cast<std::size_t>(size_);
  auto* w = reinterpret_cast<std::uint64_t*>(words_.ensure(2 * n * sizeof(std::uint64_t)));
  std::memset(w, 0, 2 * n * sizeof(std::uint64_t));
  shmem_barrier_all();  // every rank's words are zero before any peer signals into them
  ready_setup_ = true;
}

void AllToAll::run(const std::vector<at::Tensor>& outputs, const std::vector<at::Tensor>& inputs, std::size_t block) {
  if (!ready_setup_) setup();
  const std::size_t n = static_cast<std::size_t>(size_);
  const auto me = static_cast<std::size_t>(rank_);
  auto* words = reinterpret_cast<std::uint64_t*>(words_.ensure(1));
  std::uint64_t* sig = words;              // sig[r]: the chunks rank r has put here so far
  std::uint64_t* done = words + n;         // done[q]: the last call whose block from this rank q has copied out
  char* slots = slots_.ensure(block * n);  // collective when it grows: every rank asks the same
  const std::uint64_t call = ++calls_;

  // ---- the peers on other hosts, whose blocks take the sockets once they are connected (set up
  // at the first call that has such peers: every rank has them, or none does).
  std::vector<char> remote(n, 0);
  bool any_remote = false;
  for (std::size_t j = 0; j < n; ++j) {
    remote[j] = j != me && shmem_ptr(slots, static_cast<int>(j)) == nullptr;
    any_remote = any_remote || remote[j];
  }
  if (sockets_ && any_remote && !tried_links_) {
    tried_links_ = true;
    auto links = std::make_unique<TcpLinks>(rank_, size_, remote);
    if (links->ok()) links_ = std::move(links);
  }
  const bool via_tcp = sockets_ && links_ != nullptr;
  auto tcp = [&](std::size_t j) { return via_tcp && remote[j] != 0; };
  std::vector<TcpLinks::Block> blocks;  // this call's blocks through the sockets

  // ---- receive state: per sender, the chunks expected and those copied out so far.
  std::vector<int> skip(n, 1);  // wait_until_any_vector's status: nonzero excludes a sender
  std::vector<std::uint64_t> next(n, 0), want(n, 0), first(n, 0);
  std::vector<at::Tensor> dst(n);  // the outputs, or a contiguous stand-in copied at the end
  std::size_t pending = 0;
  for (std::size_t r = 0; r < n; ++r) {
    if (r == me) continue;
    const at::Tensor& o = outputs[r];
    if (tcp(r)) {  // its block is in the sockets' list (below)
      dst[r] = o.is_contiguous() ? o : at::empty_like(o, at::MemoryFormat::Contiguous);
      continue;
    }
    const std::uint64_t c = chunks_of(bytes_of(o));
    first[r] = received_[r];
    want[r] = received_[r] + c;
    if (c == 0) {
      shmem_uint64_atomic_set(done + rank_, call, static_cast<int>(r));
      continue;
    }
    dst[r] = o.is_contiguous() ? o : at::empty_like(o, at::MemoryFormat::Contiguous);
    next[r] = received_[r] + 1;
    skip[r] = 0;
    ++pending;
  }
  // Copies out what arrived from r so far (its signal: `have` chunks in all); a whole block
  // gives r its credit.
  auto take = [&](std::size_t r, std::uint64_t have) {
    have = std::min(have, want[r]);
    const std::size_t bytes = bytes_of(dst[r]);
    const std::size_t from = static_cast<std::size_t>(received_[r] - first[r]) * kChunkBytes;
    const std::size_t to = std::min(static_cast<std::size_t>(have - first[r]) * kChunkBytes, bytes);
    std::memcpy(static_cast<char*>(dst[r].data_ptr()) + from, slots + r * block + from, to - from);
    received_[r] = have;
    next[r] = have + 1;
    if (have == want[r]) {
      skip[r] = 1;
      --pending;
      shmem_uint64_atomic_set(done + rank_, call, static_cast<int>(r));  // r may write its slot here again
      if (!dst[r].is_same(outputs[r])) outputs[r].copy_(dst[r]);
    }
  };
  // Between its own chunks a rank copies out what has arrived: the copy overlaps the sends
  // (a blocking put to another host waits for the network) instead of following them all.
  auto drain = [&] {
    for (std::size_t r = 0; r < n; ++r)
      if (!skip[r]) {
        const std::uint64_t have = shmem_signal_fetch(sig + r);
        if (have >= next[r]) take(r, have);
      }
  };

  // ---- send: the peers on other hosts first (their transfers go on while the rest is copied),
  // starting after this rank (not every rank at the same peer first); chunk k to every peer,
  // then a fence, so each peer's chunks land in order and its signal counts whole chunks.
  // Blocking puts: each returns once its source is no longer read (local completion), so the
  // call needs no quiet at the end, which waited for every receiver to have taken all of this
  // rank's data (across hosts, acknowledged: a round trip behind the slowest receiver); the
  // credits already keep a later call from writing a slot that is still being read.
  std::vector<at::Tensor> src(n);  // contiguous inputs (each put has read its chunk when it returns)
  std::vector<std::uint64_t> chunks(n, 0);
  std::vector<int> order;
  std::vector<int> local;
  for (std::size_t k = 1; k < n; ++k) {
    const int j = (rank_ + static_cast<int>(k)) % size_;
    const auto ju = static_cast<std::size_t>(j);
    src[ju] = inputs[ju].contiguous();
    if (tcp(ju)) {  // no chunks through the slots
      blocks.push_back(TcpLinks::Block{j, static_cast<const char*>(src[ju].data_ptr()), bytes_of(src[ju]),
                                       static_cast<char*>(dst[ju].data_ptr()), bytes_of(dst[ju])});
      continue;
    }
    chunks[ju] = chunks_of(bytes_of(src[ju]));
    (remote[ju] ? order : local).push_back(j);
  }
  order.insert(order.end(), local.begin(), local.end());
  bool tcp_done = true;
  if (via_tcp) {
    links_->start(blocks);
    tcp_done = links_->progress(0);
  }
  const std::uint64_t rounds = n > 1 ? *std::max_element(chunks.begin(), chunks.end()) : 0;
  for (std::uint64_t k = 0; k < rounds; ++k) {
    if (k > 0) shmem_fence();
    for (const int j : order) {
      const auto ju = static_cast<std::size_t>(j);
      if (k >= chunks[ju]) continue;
      if (k == 0) shmem_uint64_wait_until(done + j, SHMEM_CMP_GE, call - 1);  // j read my last block
      const std::size_t off = static_cast<std::size_t>(k) * kChunkBytes;
      const std::size_t len = std::min(kChunkBytes, bytes_of(src[ju]) - off);
      shmem_putmem_signal(slots + me * block + off, static_cast<const char*>(src[ju].data_ptr()) + off, len,
                          sig + rank_, sent_[ju] + k + 1, SHMEM_SIGNAL_SET, j);
      drain();
      if (!tcp_done) tcp_done = links_->progress(0);
    }
  }
  for (std::size_t j = 0; j < n; ++j) sent_[j] += chunks[j];

  // ---- own block: input to output, while the others' chunks travel.
  outputs[me].copy_(inputs[me].reshape(outputs[me].sizes()));

  // ---- receive: copy out whatever chunks arrived, from whichever sender, and move the sockets'
  // blocks, until every block is in (and every block to the sockets out).
  while (pending > 0 || !tcp_done) {
    if (pending == 0) {
      tcp_done = links_->progress(-1);
      continue;
    }
    if (tcp_done) {
      const std::size_t r = shmem_uint64_wait_until_any_vector(sig, n, skip.data(), SHMEM_CMP_GE, next.data());
      TORCH_CHECK(r < n, "shmem backend: alltoall: waiting for blocks failed");
      take(r, shmem_signal_fetch(sig + r));
      continue;
    }
    const std::size_t r = shmem_uint64_test_any_vector(sig, n, skip.data(), SHMEM_CMP_GE, next.data());
    if (r < n) take(r, shmem_signal_fetch(sig + r));
    tcp_done = links_->progress(0);
    if (r >= n) std::this_thread::yield();  // oversubscribed hosts: let the senders run
  }
  socket_blocks_ += blocks.size();
  for (const TcpLinks::Block& b : blocks) {
    const auto r = static_cast<std::size_t>(b.peer);
    if (!dst[r].is_same(outputs[r])) outputs[r].copy_(dst[r]);
    // r's credit, as if the block had taken the slot: a later call without the sockets waits for it.
    shmem_uint64_atomic_set(done + rank_, call, b.peer);
  }
}

}  // namespace shmem_torch
