// send/recv: one mailbox per ordered pair of ranks. The sender puts a chunk into its slot at the
// receiver with putmem_signal (the signal is the chunk's sequence number); the receiver copies
// it out and adds one to the sender's acknowledgement word for it. A sender waits for the
// previous chunk's acknowledgement before it reuses the slot, so a message up to the slot size
// is sent eagerly and a longer one (or a second message to the same rank) waits for the
// receiver. Messages between a pair arrive in the order sent; tags are not matched.
#include <shmem.h>

#include <algorithm>
#include <cstring>

#include "process_group.hpp"

namespace shmem_torch {

namespace {
constexpr std::size_t kSlotBytes = std::size_t{256} << 10;
}

void ProcessGroupShmem::init_mailboxes() {
  const auto n = static_cast<std::size_t>(size_);
  void* p = shmem_calloc(1, n * kSlotBytes + 2 * n * sizeof(std::uint64_t));
  TORCH_CHECK(p != nullptr, "shmem backend: no room for the ", n * kSlotBytes,
              " bytes of send/recv mailboxes on the symmetric heap (raise SHMEM_SYMMETRIC_SIZE)");
  mail_.slots = static_cast<char*>(p);                                         // [sender][kSlotBytes]
  mail_.seq = reinterpret_cast<std::uint64_t*>(mail_.slots + n * kSlotBytes);  // [sender]: its last chunk
  mail_.ack = mail_.seq + n;  // [receiver]: chunks that receiver took from this rank
  mail_.sent.assign(n, 0);
  mail_.received.assign(n, 0);
}

ProcessGroupShmem::~ProcessGroupShmem() = default;  // symmetric memory goes with the library

c10::intrusive_ptr<c10d::Work> ProcessGroupShmem::send(std::vector<at::Tensor>& tensors, int dst, int) {
  TORCH_CHECK(tensors.size() == 1, "shmem backend: send: expects one tensor");
  TORCH_CHECK(dst >= 0 && dst < size_, "shmem backend: send: rank ", dst, " is outside 0..", size_ - 1);
  TORCH_CHECK(tensors[0].device().is_cpu(), "shmem backend: send: the tensor must be on the CPU");
  const at::Tensor t = tensors[0].contiguous();
  const std::size_t bytes = static_cast<std::size_t>(t.numel()) * t.element_size();
  const auto* data = static_cast<const char*>(t.data_ptr());
  Mailboxes& m = mail_;
  for (std::size_t off = 0; off == 0 || off < bytes; off += kSlotBytes) {
    const std::size_t len = std::min(kSlotBytes, bytes - off);
    const std::uint64_t n = ++m.sent[dst];
    shmem_uint64_wait_until(&m.ack[dst], SHMEM_CMP_GE, n - 1);  // the slot is free again
    shmem_putmem_signal(m.slots + static_cast<std::size_t>(rank_) * kSlotBytes, data + off, len, &m.seq[rank_], n,
                        SHMEM_SIGNAL_SET, dst);
    if (bytes == 0) break;
  }
  return done_work(c10d::OpType::SEND, tensors);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupShmem::recv(std::vector<at::Tensor>& tensors, int src, int) {
  TORCH_CHECK(tensors.size() == 1, "shmem backend: recv: expects one tensor");
  TORCH_CHECK(src >= 0 && src < size_, "shmem backend: recv: rank ", src, " is outside 0..", size_ - 1);
  at::Tensor& out = tensors[0];
  TORCH_CHECK(out.device().is_cpu(), "shmem backend: recv: the tensor must be on the CPU");
  at::Tensor t = out.is_contiguous() ? out : out.contiguous();
  const std::size_t bytes = static_cast<std::size_t>(t.numel()) * t.element_size();
  auto* data = static_cast<char*>(t.data_ptr());
  Mailboxes& m = mail_;
  for (std::size_t off = 0; off == 0 || off < bytes; off += kSlotBytes) {
    const std::size_t len = std::min(kSlotBytes, bytes - off);
    const std::uint64_t n = ++m.received[src];
    shmem_signal_wait_until(&m.seq[src], SHMEM_CMP_GE, n);
    std::memcpy(data + off, m.slots + static_cast<std::size_t>(src) * kSlotBytes, len);
    shmem_uint64_atomic_add(&m.ack[rank_], 1, src);  // at the sender: its slot here is free
    if (bytes == 0) break;
  }
  if (!out.is_contiguous()) out.copy_(t);
  return done_work(c10d::OpType::RECV, tensors);
}

}  // namespace shmem_torch
