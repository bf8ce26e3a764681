// The point-to-point engine (p2p.hpp) and the world group's send/recv on its channel 0.
#include "p2p.hpp"

#include <shmem.h>

#include <algorithm>
#include <cstring>
#include <thread>

#include "process_group.hpp"

namespace shmem_torch {

namespace {
// Mailboxes take at most this much of the heap (address space: only the words are touched
// until a slot carries a message), in slots of 4 KiB to 256 KiB.
constexpr std::size_t kMailboxBytes = std::size_t{64} << 20;
constexpr std::size_t kMinSlot = std::size_t{4} << 10, kMaxSlot = std::size_t{256} << 10;

std::size_t bytes_of(const at::Tensor& t) { return static_cast<std::size_t>(t.numel()) * t.element_size(); }
}  // namespace

P2p::P2p(int channels) : channels_(channels), npes_(shmem_n_pes()), me_(shmem_my_pe()) {
  const std::size_t pairs = static_cast<std::size_t>(channels_) * npes_;
  slot_bytes_ = std::clamp(kMailboxBytes / pairs / kMinSlot * kMinSlot, kMinSlot, kMaxSlot);
  slots_ = static_cast<char*>(shmem_malloc(pairs * slot_bytes_));
  words_ = static_cast<std::uint64_t*>(shmem_calloc(2 * pairs, sizeof(std::uint64_t)));
  TORCH_CHECK(slots_ != nullptr && words_ != nullptr, "shmem backend: no room for the ", pairs * slot_bytes_,
              " bytes of send/recv mailboxes on the symmetric heap (raise SHMEM_SYMMETRIC_SIZE)");
  links_.resize(pairs);
}

char* P2p::slot(int channel, int sender) const {
  return slots_ + (static_cast<std::size_t>(channel) * npes_ + sender) * slot_bytes_;
}
std::uint64_t* P2p::seq(int channel, int sender) const {
  return words_ + 2 * static_cast<std::size_t>(channel) * npes_ + sender;
}
std::uint64_t* P2p::ack(int channel, int receiver) const {
  return words_ + (2 * static_cast<std::size_t>(channel) + 1) * npes_ + receiver;
}

std::shared_ptr<P2p::Op> P2p::post_send(int channel, int dst, at::Tensor data) {
  auto op = std::make_shared<Op>();
  op->data = std::move(data);
  link(channel, dst).sends.push_back(op);
  ++pending_;
  progress();
  return op;
}

std::shared_ptr<P2p::Op> P2p::post_recv(int channel, int src, at::Tensor data) {
  auto op = std::make_shared<Op>();
  op->data = std::move(data);
  link(channel, src).recvs.push_back(op);
  ++pending_;
  progress();
  return op;
}

// The chunks of the first queued send that the receiver has room for.
bool P2p::push(int channel, int dst, Link& l) {
  bool moved = false;
  while (!l.sends.empty()) {
    Op& op = *l.sends.front();
    const std::size_t bytes = bytes_of(op.data);
    if (shmem_uint64_test(ack(channel, dst), SHMEM_CMP_GE, l.sent) == 0) return moved;  // slot still full
    const std::size_t len = std::min(slot_bytes_, bytes - op.done_bytes);
    shmem_putmem_signal(slot(channel, me_), static_cast<const char*>(op.data.data_ptr()) + op.done_bytes, len,
                        seq(channel, me_), ++l.sent, SHMEM_SIGNAL_SET, dst);
    op.done_bytes += len;
    op.started = moved = true;
    if (op.done_bytes == bytes) {
      op.done = true;
      op.data = at::Tensor();
      l.sends.pop_front();
      --pending_;
    }
  }
  return moved;
}

// The chunks that arrived for the first posted receive.
bool P2p::pull(int channel, int src, Link& l) {
  bool moved = false;
  while (!l.recvs.empty()) {
    Op& op = *l.recvs.front();
    const std::size_t bytes = bytes_of(op.data);
    if (shmem_uint64_test(seq(channel, src), SHMEM_CMP_GE, l.received + 1) == 0) return moved;
    const std::size_t len = std::min(slot_bytes_, bytes - op.done_bytes);
    std::memcpy(static_cast<char*>(op.data.data_ptr()) + op.done_bytes, slot(channel, src), len);
    ++l.received;
    shmem_uint64_atomic_add(ack(channel, me_), 1, src);  // at the sender: its slot here is free
    op.done_bytes += len;
    op.started = moved = true;
    if (op.done_bytes == bytes) {
      op.done = true;
      l.recvs.pop_front();
      --pending_;
    }
  }
  return moved;
}

void P2p::progress() {
  if (pending_ == 0) return;
  for (int c = 0; c < channels_; ++c) {
    for (int p = 0; p < npes_; ++p) {
      Link& l = link(c, p);
      if (!l.sends.empty()) push(c, p, l);
      if (!l.recvs.empty()) pull(c, p, l);
    }
  }
}

bool P2p::wait(const Op& op, std::chrono::milliseconds timeout) {
  const auto start = std::chrono::steady_clock::now();
  for (unsigned spins = 0; !op.done; ++spins) {
    progress();
    if (op.done) break;
    if (timeout != kWaitForever && std::chrono::steady_clock::now() - start > timeout) return false;
    if (spins % 64 == 63) std::this_thread::yield();  // oversubscribed hosts: let the peer run
  }
  return true;
}

// ---- Work of a posted send or receive -----------------------------------------------------------
namespace {
class P2pWork : public c10d::Work {
 public:
  P2pWork(c10d::OpType type, std::shared_ptr<P2p> engine, std::shared_ptr<P2p::Op> op, at::Tensor user,
          std::vector<at::Tensor> result)
      : c10d::Work(-1, type),
        engine_(std::move(engine)),
        op_(std::move(op)),
        user_(std::move(user)),
        result_(std::move(result)) {}
  bool isCompleted() override {
    engine_->progress();
    return finish_if_done();
  }
  bool isSuccess() const override { return true; }
  bool wait(std::chrono::milliseconds timeout) override {
    TORCH_CHECK(engine_->wait(*op_, timeout), "shmem backend: ", c10d::opTypeToString(opType_),
                ": no progress within the timeout of ", timeout.count(), " ms (is the peer's matching call made?)");
    finish_if_done();
    return true;
  }
  std::vector<at::Tensor> result() override { return result_; }

 private:
  bool finish_if_done() {
    if (!op_->done) return false;
    if (!copied_) {
      copied_ = true;
      if (user_.defined()) user_.copy_(op_->data);  // a receive into a non-contiguous tensor
      op_->data = at::Tensor();
      finish();
    }
    return true;
  }
  std::shared_ptr<P2p> engine_;
  std::shared_ptr<P2p::Op> op_;
  at::Tensor user_;
  std::vector<at::Tensor> result_;
  bool copied_ = false;
};

void check_peer(const std::vector<at::Tensor>& tensors, int peer, int size, const char* who) {
  TORCH_CHECK(tensors.size() == 1, "shmem backend: ", who, ": expects one tensor");
  TORCH_CHECK(peer >= 0 && peer < size, "shmem backend: ", who, ": rank ", peer, " is outside 0..", size - 1);
  TORCH_CHECK(tensors[0].device().is_cpu(), "shmem backend: ", who, ": the tensor must be on the CPU");
}
}  // namespace

c10::intrusive_ptr<c10d::Work> p2p_send(const std::shared_ptr<P2p>& engine, int channel, int world_dst,
                                        std::vector<at::Tensor>& tensors, int dst, int size) {
  check_peer(tensors, dst, size, "send");
  auto op = engine->post_send(channel, world_dst, tensors[0].contiguous());
  return c10::make_intrusive<P2pWork>(c10d::OpType::SEND, engine, op, at::Tensor(), tensors);
}

c10::intrusive_ptr<c10d::Work> p2p_recv(const std::shared_ptr<P2p>& engine, int channel, int world_src,
                                        std::vector<at::Tensor>& tensors, int src, int size) {
  check_peer(tensors, src, size, "recv");
  at::Tensor& out = tensors[0];
  const bool direct = out.is_contiguous();
  auto op = engine->post_recv(channel, world_src, direct ? out : at::empty_like(out, at::MemoryFormat::Contiguous));
  return c10::make_intrusive<P2pWork>(c10d::OpType::RECV, engine, op, direct ? at::Tensor() : out, tensors);
}

}  // namespace shmem_torch
