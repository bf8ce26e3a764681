// UCX transport. Every operation targets (PE, segment, offset): the endpoint and the rkey of
// that segment were set up at init, so the data path is one indexed lookup and one UCP call.
//
// Completion: a blocking put returns once UCX has released the source buffer (local
// completion, as shmem_put requires); blocking gets and fetching atomics wait for the reply;
// nbi operations carry a callback that only records a failure, and complete at quiet. Small
// puts to peers with emulated RMA are gathered per peer and sent as our own active messages,
// acknowledged by the target (am_put.hpp); quiet sends them and waits for the
// acknowledgements, and flushes UCX (ucp_worker_flush or ucp_ep_flush) only when some UCP
// operation since the last quiet needs it. fence is ucp_worker_fence. One mutex serialises the
// worker, so the progress thread, waits that poll, and application threads may all drive it.
#include "transport/ucx/ucx_transport.hpp"

#include <sched.h>
#include <stdio.h>

#include <atomic>
#include <mutex>
#include <chrono>
#include <thread>
#include <cstdlib>
#include <cstring>
#include <set>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "transport/ucx/am_put.hpp"
#include "transport/ucx/blob.hpp"
#include "transport/ucx/handles.hpp"
#include "transport/ucx/progress_thread.hpp"

namespace shmem::transport::ucx {
namespace {

[[noreturn]] void throw_status(const std::string& what, ucs_status_t st) {
  throw std::runtime_error(what + " failed: " + ucs_status_string(st));
}

const char* amo_name(AmoOp op) {
  switch (op) {
    case AmoOp::kFetch: return "atomic_fetch";
    case AmoOp::kSet: return "atomic_set";
    case AmoOp::kSwap: return "atomic_swap";
    case AmoOp::kCompareSwap: return "atomic_compare_swap";
    case AmoOp::kFetchInc: return "atomic_fetch_inc";
    case AmoOp::kInc: return "atomic_inc";
    case AmoOp::kFetchAdd: return "atomic_fetch_add";
    case AmoOp::kAdd: return "atomic_add";
    case AmoOp::kFetchAnd: return "atomic_fetch_and";
    case AmoOp::kAnd: return "atomic_and";
    case AmoOp::kFetchOr: return "atomic_fetch_or";
    case AmoOp::kOr: return "atomic_or";
    case AmoOp::kFetchXor: return "atomic_fetch_xor";
    case AmoOp::kXor: return "atomic_xor";
  }
  return "atomic";
}

// The UCP opcode and operand of an OpenSHMEM atomic. fetch/inc map to add; set maps to swap
// (UCP's swap always returns the old value).
ucp_atomic_op_t ucp_opcode(AmoOp op, std::uint64_t* operand) {
  switch (op) {
    case AmoOp::kFetch: *operand = 0; return UCP_ATOMIC_OP_ADD;
    case AmoOp::kSet: case AmoOp::kSwap: return UCP_ATOMIC_OP_SWAP;
    case AmoOp::kCompareSwap: return UCP_ATOMIC_OP_CSWAP;
    case AmoOp::kFetchInc: case AmoOp::kInc: *operand = 1; return UCP_ATOMIC_OP_ADD;
    case AmoOp::kFetchAdd: case AmoOp::kAdd: return UCP_ATOMIC_OP_ADD;
    case AmoOp::kFetchAnd: case AmoOp::kAnd: return UCP_ATOMIC_OP_AND;
    case AmoOp::kFetchOr: case AmoOp::kOr: return UCP_ATOMIC_OP_OR;
    case AmoOp::kFetchXor: case AmoOp::kXor: return UCP_ATOMIC_OP_XOR;
  }
  return UCP_ATOMIC_OP_ADD;
}

// The transports an endpoint's lanes use, from ucp_ep_print_info. Lines look like
//   "lane[0]:  0:tcp/eth0.0 md[0]  -> md[0]/tcp/sysdev[255] am am_bw#0 keepalive wireup"
// *rma is set when some lane carries RMA or atomics itself (otherwise UCX emulates them with
// active messages, which the target's CPU serves).
std::set<std::string> ep_transports(ucp_ep_h ep, std::string* raw, bool* rma) {
  char* buf = nullptr;
  size_t len = 0;
  std::set<std::string> out;
  *rma = false;
  FILE* f = open_memstream(&buf, &len);
  if (!f) return out;
  ucp_ep_print_info(ep, f);
  std::fclose(f);
  std::string text(buf, len);
  std::free(buf);
  if (raw) *raw = text;
  std::size_t pos = 0;
  while ((pos = text.find("lane[", pos)) != std::string::npos) {
    const std::size_t eol = text.find('\n', pos);
    const std::string line = text.substr(pos, eol == std::string::npos ? std::string::npos : eol - pos);
    pos = eol == std::string::npos ? text.size() : eol;
    const std::size_t colon = line.find(':', line.find(']'));  // "lane[0]:"
    if (colon == std::string::npos) continue;
    std::size_t start = line.find(':', colon + 1);  // " 0:tcp/eth0.0"
    if (start == std::string::npos) continue;
    ++start;
    const std::size_t end = line.find_first_of(" \t", start);
    std::string tl = line.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (auto dot = tl.rfind('.'); dot != std::string::npos && tl.find('/') < dot) tl.resize(dot);
    if (tl.empty()) continue;
    const bool carries_rma = line.find(" rma") != std::string::npos || line.find(" amo") != std::string::npos;
    if (carries_rma) *rma = true;
    out.insert(tl + (carries_rma ? " (rma)" : ""));
  }
  return out;
}

// Transports that perform RMA and atomics without the target's CPU.
bool hardware_rma(const std::string& tl) {
  for (const char* hw : {"rc_", "dc_", "ud_", "cuda_ipc", "xpmem", "cma", "knem"})
    if (tl.rfind(hw, 0) == 0) return true;
  return false;
}

class UcxTransport;

struct Peer {
  UcxTransport* owner = nullptr;
  int pe = -1;
  ucp_ep_h ep = nullptr;
  Rkey rkey[2];
  std::uint64_t base[2] = {0, 0};
  bool am_put = false;  // small puts go as our active messages (am_put.hpp): RMA is emulated
  // Under the transport's mutex:
  std::uint64_t am_sent = 0;     // AM puts sent to this PE
  std::uint64_t am_acked = 0;    // ... of which it has acknowledged this many
  std::uint64_t am_applied = 0;  // AM puts from this PE applied here
  AmAck ack_out{};               // the acknowledgement being sent to it (UCX may read it late)
  bool ack_due = false;          // am_applied grew since the last acknowledgement
  ucp_ep_h ack_ep = nullptr;     // ... and the endpoint the puts came by
  bool dirty = false;            // a UCP operation to it since the last quiet needs a flush
  PutBatch batch;                // small puts to it not yet sent (am_put.hpp)
};

class UcxTransport final : public RemoteTransport {
 public:
  explicit UcxTransport(const Setup& s);
  ~UcxTransport() override;

  const char* name() const noexcept override { return "ucx"; }
  std::string describe() const override { return describe_; }

  void put(int pe, Seg seg, std::uint64_t off, const void* src, std::size_t bytes, bool nbi,
           const char* op) noexcept override {
    Peer& p = peers_[static_cast<std::size_t>(pe)];
    if (p.am_put && bytes <= kAmPutMax) return am_put(p, seg, off, src, bytes);
    rma(ucp_put_nbx, pe, seg, off, const_cast<void*>(src), bytes, nbi, op);
  }

  void get(int pe, Seg seg, std::uint64_t off, void* dst, std::size_t bytes, bool nbi,
           const char* op) noexcept override {
    rma(ucp_get_nbx, pe, seg, off, dst, bytes, nbi, op);
  }

  std::uint64_t amo(int pe, Seg seg, std::uint64_t off, AmoOp amo_op, std::size_t width, std::uint64_t value,
                    std::uint64_t cond, void* fetch_to, const char* op) noexcept override {
    Peer& p = peers_[static_cast<std::size_t>(pe)];
    const char* what = op ? op : amo_name(amo_op);
    if (p.am_put && !fetch_to && (amo_op == AmoOp::kAdd || amo_op == AmoOp::kInc) && (width == 4 || width == 8)) {
      am_add(p, seg, off, amo_op == AmoOp::kInc ? 1 : value, width, what);
      return 0;
    }
    std::uint64_t operand = value;
    const ucp_atomic_op_t code = ucp_opcode(amo_op, &operand);
    // CSWAP: buffer holds the comparand, the reply buffer the new value (and then the result).
    std::uint64_t reply = 0;
    if (amo_op == AmoOp::kCompareSwap) {
      reply = value;
      operand = cond;
    }
    std::uint32_t operand32 = static_cast<std::uint32_t>(operand), reply32 = static_cast<std::uint32_t>(reply);
    const bool wide = width == 8;
    const bool wants_reply = amo_fetches(amo_op) || code == UCP_ATOMIC_OP_SWAP || code == UCP_ATOMIC_OP_CSWAP;
    ucp_request_param_t prm{};
    prm.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE;
    prm.datatype = ucp_dt_make_contig(wide ? 8 : 4);
    if (wants_reply) {
      prm.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
      prm.reply_buffer = wide ? static_cast<void*>(&reply) : static_cast<void*>(&reply32);
    }
    // Operand and reply live on this stack frame, so the call waits for completion even when
    // the caller asked for the nonblocking form (the spec allows completing it early).
    std::unique_lock<std::mutex> lk(mu_);
    issued();
    send_batch(p);  // our puts to this PE go first
    if (!wants_reply) p.dirty = dirty_ = true;  // complete once the target answers (a flush)
    ucs_status_ptr_t r = ucp_atomic_op_nbx(p.ep, code, wide ? static_cast<void*>(&operand) : static_cast<void*>(&operand32),
                                           1, p.base[int(seg)] + off, p.rkey[int(seg)].get(), &prm);
    complete(lk, r, false, what, pe);
    lk.unlock();
    const std::uint64_t old = wide ? reply : reply32;
    if (fetch_to) std::memcpy(fetch_to, wide ? static_cast<const void*>(&reply) : static_cast<const void*>(&reply32), width);
    return amo_fetches(amo_op) ? old : 0;
  }

  void fence() noexcept override {
    std::lock_guard<std::mutex> lk(mu_);
    send_batches();
    // Every peer on one emulated lane: the targets apply our operations in issue order already.
    if (all_on_am_lane_) return;
    const ucs_status_t st = ucp_worker_fence(worker_.get());
    if (st != UCS_OK) fail("shmem_fence", -1, st);
  }

  void quiet(int pe) noexcept override {
    std::unique_lock<std::mutex> lk(mu_);
    issued();
    send_batches();
    // Our AM puts: every target has acknowledged every one.
    if (pe >= 0) {
      const Peer& p = peers_[static_cast<std::size_t>(pe)];
      drive_until(lk, [&] { return p.am_acked == p.am_sent; });
    } else {
      drive_until(lk, [&] {
        for (const Peer& p : peers_)
          if (p.am_acked != p.am_sent) return false;
        return true;
      });
    }
    // UCP's own operations (large puts, nbi gets, non-fetching atomics), when there were any.
    ucp_request_param_t prm{};
    ucs_status_ptr_t r = nullptr;
    if (pe < 0 && dirty_) {
      r = ucp_worker_flush_nbx(worker_.get(), &prm);
      dirty_ = false;
      for (Peer& p : peers_) p.dirty = false;
    } else if (pe >= 0 && peers_[static_cast<std::size_t>(pe)].dirty) {
      r = ucp_ep_flush_nbx(peers_[static_cast<std::size_t>(pe)].ep, &prm);
      peers_[static_cast<std::size_t>(pe)].dirty = false;
    }
    complete(lk, r, false, "shmem_quiet", pe);
  }

  void progress() noexcept override {
    const bool spinning = app_polls_.spinning(app_polls_.polled());
    std::lock_guard<std::mutex> lk(mu_);
    progress_worker(spinning);
  }
  bool waits_need_progress() const noexcept override { return software_; }

  // Called for endpoint errors (a lost peer) and failed nbi operations.
  void peer_failed(int pe, ucs_status_t st, const char* what) noexcept {
    if (closing_.load(std::memory_order_acquire)) return;
    fail(what, pe, st);
  }
  void closing() noexcept override {
    closing_.store(true, std::memory_order_release);
    // Finalize's rendezvous runs on the store and drives nothing here, while a peer may still
    // wait for us to complete its last operations: keep the worker progressing until teardown.
    if (!progress_) {
      try {
        progress_ = std::make_unique<ProgressThread>(worker_.get(), &progress_worker_cb, this, &app_polls_, &mu_);
      } catch (const std::exception&) {
      }
    }
  }
  bool is_closing() const noexcept { return closing_.load(std::memory_order_acquire); }

 private:
  static void nbi_done(void* request, ucs_status_t st, void* user) {
    auto* p = static_cast<Peer*>(user);
    if (st != UCS_OK && st != UCS_ERR_CANCELED) p->owner->peer_failed(p->pe, st, "a nonblocking operation (nbi)");
    ucp_request_free(request);
  }
  static void ep_error(void* arg, ucp_ep_h, ucs_status_t st) {
    auto* p = static_cast<Peer*>(arg);
    // A peer that went away because the job is failing elsewhere is not the cause: give the
    // launcher or the job watcher, which name the first failure, a moment to end us first.
    if (!p->owner->is_closing()) std::this_thread::sleep_for(std::chrono::milliseconds(300));
    p->owner->peer_failed(p->pe, st, "the connection");
  }
  // One put or get (`call` is ucp_put_nbx or ucp_get_nbx, which differ only in constness).
  // Puts and nbi gets complete at the next flush; blocking gets here.
  template <class Call>
  void rma(Call call, int pe, Seg seg, std::uint64_t off, void* buf, std::size_t bytes, bool nbi,
           const char* op) noexcept {
    Peer& p = peers_[static_cast<std::size_t>(pe)];
    ucp_request_param_t prm{};
    if (nbi) nbi_param(prm, p);
    std::unique_lock<std::mutex> lk(mu_);
    issued();
    send_batch(p);  // our puts to this PE go first
    if (nbi || !std::is_same_v<Call, decltype(&ucp_get_nbx)>) p.dirty = dirty_ = true;
    ucs_status_ptr_t r = call(p.ep, buf, bytes, p.base[int(seg)] + off, p.rkey[int(seg)].get(), &prm);
    complete(lk, r, nbi, op, pe);
  }

  // A small put (am_put.hpp): into the peer's batch, which then holds the data (the source may
  // be reused at once, as a blocking put requires).
  void am_put(Peer& p, Seg seg, std::uint64_t off, const void* src, std::size_t bytes) noexcept {
    std::lock_guard<std::mutex> lk(mu_);
    issued();
    if (!p.batch.fits(bytes)) send_batch(p);
    if (p.batch.empty()) batched_.push_back(p.pe);
    p.batch.add(static_cast<std::uint8_t>(seg), off, src, bytes);
    ++p.am_sent;
  }

  // A non-fetching add as our active message (am_put.hpp, kAmAddId), after the peer's batch.
  // Header and addend live on this frame: the call waits until UCX has taken the message.
  void am_add(Peer& p, Seg seg, std::uint64_t off, std::uint64_t value, std::size_t width, const char* op) noexcept {
    const AmAddHeader h{off, static_cast<std::uint32_t>(setup_.me), static_cast<std::uint8_t>(seg), {}};
    const std::uint32_t value32 = static_cast<std::uint32_t>(value);
    ucp_request_param_t prm{};
    prm.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    prm.flags = UCP_AM_SEND_FLAG_EAGER | UCP_AM_SEND_FLAG_REPLY;
    std::unique_lock<std::mutex> lk(mu_);
    issued();
    send_batch(p);  // our puts to this PE go first
    ++p.am_sent;
    ucs_status_ptr_t r = ucp_am_send_nbx(p.ep, kAmAddId, &h, sizeof h,
                                         width == 8 ? static_cast<const void*>(&value) : static_cast<const void*>(&value32),
                                         width, &prm);
    complete(lk, r, false, op, p.pe);
  }
  static ucs_status_t on_am_add(void* arg, const void* header, size_t header_length, void* data, size_t length,
                                const ucp_am_recv_param_t* param) {
    auto* t = static_cast<UcxTransport*>(arg);
    AmAddHeader h{};
    if (header_length != sizeof h || (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV))
      t->fail("an incoming atomic add (malformed message: a different build of the library?)", -1, UCS_ERR_INVALID_PARAM);
    std::memcpy(&h, header, sizeof h);
    const std::size_t seg = h.seg;
    if (h.from >= t->peers_.size() || !t->setup_.remote[h.from] || !(param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP) ||
        seg > 1 || (length != 4 && length != 8) || h.off % length != 0 || h.off > t->seg_size_[seg] - length)
      t->fail("an incoming atomic add (outside this PE's segments, or malformed)", -1, UCS_ERR_INVALID_PARAM);
    char* word = t->seg_base_[seg] + h.off;
    if (length == 8) {
      std::uint64_t v = 0;
      std::memcpy(&v, data, 8);
      std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t*>(word)).fetch_add(v);
    } else {
      std::uint32_t v = 0;
      std::memcpy(&v, data, 4);
      std::atomic_ref<std::uint32_t>(*reinterpret_cast<std::uint32_t*>(word)).fetch_add(v);
    }
    Peer& p = t->peers_[h.from];
    p.am_applied += 1;
    p.ack_ep = param->reply_ep;
    if (!p.ack_due) {
      p.ack_due = true;
      t->ack_due_.push_back(static_cast<int>(h.from));
    }
    return UCS_OK;
  }

  // A batch on its way: UCX reads the header and the data until the send completes.
  struct BatchInFlight {
    AmBatchHeader header;
    PutBatch batch;
    Peer* peer;
  };
  static void batch_sent(void* request, ucs_status_t st, void* user) {
    auto* b = static_cast<BatchInFlight*>(user);
    if (st != UCS_OK && st != UCS_ERR_CANCELED) b->peer->owner->peer_failed(b->peer->pe, st, "shmem_put");
    delete b;
    ucp_request_free(request);
  }

  // Sends the peer's batch, if any (mu_ held; never waits: the batch travels with the request).
  void send_batch(Peer& p) noexcept {
    if (p.batch.empty()) return;
    auto* b = new (std::nothrow) BatchInFlight{{static_cast<std::uint32_t>(setup_.me), p.batch.count()}, {}, &p};
    if (!b) fail("shmem_put (no memory for a batch of puts)", p.pe, UCS_ERR_NO_MEMORY);
    std::swap(b->batch, p.batch);
    ucp_request_param_t prm{};
    prm.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
    prm.cb.send = batch_sent;
    prm.user_data = b;
    // REPLY: the target acknowledges on the endpoint the batch came by, which exists even
    // before the target has created its own endpoint to us (a put during init's barrier).
    prm.flags = UCP_AM_SEND_FLAG_EAGER | UCP_AM_SEND_FLAG_REPLY;
    ucs_status_ptr_t r = ucp_am_send_nbx(p.ep, kAmPutId, &b->header, sizeof b->header, b->batch.data(), b->batch.size(), &prm);
    if (UCS_PTR_IS_ERR(r)) {
      delete b;
      fail("shmem_put", p.pe, UCS_PTR_STATUS(r));
    }
    if (r == nullptr) delete b;  // sent at once; the callback is not called
  }
  // Every peer's batch (mu_ held).
  void send_batches() noexcept {
    while (!batched_.empty()) {
      const int pe = batched_.back();
      batched_.pop_back();
      send_batch(peers_[static_cast<std::size_t>(pe)]);
    }
  }

  // The target side of am_put: copy into our segments, then have the puts acknowledged (under
  // mu_, from within ucp_worker_progress).
  static ucs_status_t on_am_put(void* arg, const void* header, size_t header_length, void* data, size_t length,
                                const ucp_am_recv_param_t* param) {
    auto* t = static_cast<UcxTransport*>(arg);
    AmBatchHeader h{};
    if (header_length != sizeof h || (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV))
      t->fail("an incoming put (malformed message: a different build of the library?)", -1, UCS_ERR_INVALID_PARAM);
    std::memcpy(&h, header, sizeof h);
    if (h.from >= t->peers_.size() || !t->setup_.remote[h.from] || !(param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP))
      t->fail("an incoming put (from no remote PE)", -1, UCS_ERR_INVALID_PARAM);
    std::size_t bad_seg = 0, bad_len = 0;
    std::uint64_t bad_off = 0;
    const bool ok = for_each_put(
        data, length, h.count,
        [&](std::size_t seg, std::uint64_t off, std::size_t len) {
          bad_seg = seg, bad_off = off, bad_len = len;
          return seg <= 1 && off <= t->seg_size_[seg] && len <= t->seg_size_[seg] - off;
        },
        [&](std::size_t seg, std::uint64_t off, const void* src, std::size_t len) {
          std::memcpy(t->seg_base_[seg] + off, src, len);
        });
    if (!ok) {
      const std::string what = "an incoming put from PE " + std::to_string(h.from) + " (" + std::to_string(bad_len) +
                               " bytes at offset " + std::to_string(bad_off) + " of segment " + std::to_string(bad_seg) +
                               ": outside this PE's segments, or a malformed batch)";
      t->fail(what.c_str(), -1, UCS_ERR_INVALID_PARAM);
    }
    Peer& p = t->peers_[h.from];
    p.am_applied += h.count;
    p.ack_ep = param->reply_ep;
    if (!p.ack_due) {
      p.ack_due = true;
      t->ack_due_.push_back(static_cast<int>(h.from));
    }
    return UCS_OK;
  }

  // One acknowledgement per peer for every put that one ucp_worker_progress call applied (a
  // burst of small puts, e.g. an iput, costs the target one answer).
  void send_acks() noexcept {
    for (const int pe : ack_due_) {
      Peer& p = peers_[static_cast<std::size_t>(pe)];
      p.ack_due = false;
      p.ack_out = AmAck{p.am_applied, static_cast<std::uint32_t>(setup_.me), 0};
      ucp_request_param_t prm{};
      nbi_param(prm, p);
      prm.op_attr_mask |= UCP_OP_ATTR_FIELD_FLAGS;
      prm.flags = UCP_AM_SEND_FLAG_EAGER;
      ucs_status_ptr_t r = ucp_am_send_nbx(p.ack_ep, kAmAckId, &p.ack_out, sizeof p.ack_out, nullptr, 0, &prm);
      if (UCS_PTR_IS_ERR(r)) peer_failed(pe, UCS_PTR_STATUS(r), "acknowledging puts");
    }
    ack_due_.clear();
  }

  // Every progress call of the transport (mu_ held): sends the batches of puts (unless
  // `flush_batches` is false), drives the worker, and answers the puts it applied. While the application polls continually (`may_defer`), the answers wait for
  // a call that finds nothing more to do (at most kAckDeferCalls calls): that keeps them off
  // the critical path of a ping-pong (the waiting PE sees the put, leaves its wait and sends
  // its own put first; its next poll answers). Otherwise (a wait that sleeps between polls, the
  // progress thread) they go at once.
  unsigned progress_worker(bool may_defer, bool flush_batches = true) noexcept {
    if (flush_batches) send_batches();
    const unsigned n = ucp_worker_progress(worker_.get());
    if (!ack_due_.empty() && !tearing_down_ && (!may_defer || n == 0 || ++ack_deferred_ >= kAckDeferCalls)) {
      ack_deferred_ = 0;
      send_acks();
    }
    return n;
  }
  static unsigned progress_worker_cb(void* self) noexcept { return static_cast<UcxTransport*>(self)->progress_worker(false); }

  static ucs_status_t on_am_ack(void* arg, const void* header, size_t header_length, void*, size_t,
                                const ucp_am_recv_param_t*) {
    auto* t = static_cast<UcxTransport*>(arg);
    AmAck a{};
    if (header_length != sizeof a)
      t->fail("an incoming put acknowledgement (malformed message: a different build of the library?)", -1,
              UCS_ERR_INVALID_PARAM);
    std::memcpy(&a, header, sizeof a);
    if (a.from >= t->peers_.size() || !t->setup_.remote[a.from])
      t->fail("an incoming put acknowledgement (from no remote PE)", -1, UCS_ERR_INVALID_PARAM);
    Peer& p = t->peers_[a.from];
    if (a.applied > p.am_acked) p.am_acked = a.applied;
    return UCS_OK;
  }

  void set_am_handler(unsigned id, ucp_am_recv_callback_t cb) {
    ucp_am_handler_param_t hp{};
    hp.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_FLAGS | UCP_AM_HANDLER_PARAM_FIELD_CB |
                    UCP_AM_HANDLER_PARAM_FIELD_ARG;
    hp.id = id;
    hp.flags = UCP_AM_FLAG_WHOLE_MSG;
    hp.cb = cb;
    hp.arg = this;
    const ucs_status_t st = ucp_worker_set_am_recv_handler(worker_.get(), &hp);
    if (st != UCS_OK) throw_status("ucp_worker_set_am_recv_handler", st);
  }

  static void nbi_param(ucp_request_param_t& prm, Peer& p) {
    prm.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    prm.cb.send = nbi_done;
    prm.user_data = &p;
  }

  // The application issues an operation (lk held); every 32nd also serves the peers' requests,
  // so that a long stream of operations that complete at once does not starve them.
  void issued() noexcept {
    if (++issued_ % 32 == 0) progress_worker(true, false);  // batches keep filling
  }

  // Blocking: waits for `r` with progress (the lock is dropped between polls, never held
  // while yielding); nbi: only checks the immediate status.
  void complete(std::unique_lock<std::mutex>& lk, ucs_status_ptr_t r, bool nbi, const char* op, int pe) noexcept {
    if (r == nullptr) return;
    if (UCS_PTR_IS_ERR(r)) {
      lk.unlock();
      fail(op, pe, UCS_PTR_STATUS(r));
    }
    if (nbi) return;  // the callback frees it
    ucs_status_t st = UCS_INPROGRESS;
    drive_until(lk, [&] { return (st = ucp_request_check_status(r)) != UCS_INPROGRESS; });
    ucp_request_free(r);
    if (st != UCS_OK) {
      lk.unlock();
      fail(op, pe, st);
    }
  }

  // Progresses the worker until done() (called with lk held); the lock is dropped between
  // polls, never held while yielding.
  template <class Done>
  void drive_until(std::unique_lock<std::mutex>& lk, Done&& done) noexcept {
    unsigned spins = 0;
    while (!done()) {
      app_polls_.polled();
      if (progress_worker(true) == 0 && ++spins % 256 == 0) {
        lk.unlock();
        sched_yield();
        lk.lock();
      }
    }
  }

  [[noreturn]] void fail(const char* op, int pe, ucs_status_t st) noexcept {
    std::string msg = std::string(op ? op : "UCX operation");
    if (pe >= 0) {
      msg += " to PE " + std::to_string(pe);
      if (static_cast<std::size_t>(pe) < setup_.hosts.size()) msg += " (host '" + setup_.hosts[pe] + "')";
    }
    msg += " failed: UCX reports '" + std::string(ucs_status_string(st)) + "'";
    if (st == UCS_ERR_CONNECTION_RESET || st == UCS_ERR_ENDPOINT_TIMEOUT || st == UCS_ERR_UNREACHABLE ||
        st == UCS_ERR_TIMED_OUT)
      msg += " (the PE or its host is gone)";
    setup_.fatal(msg);
    std::abort();  // fatal does not return
  }

  Setup setup_;
  Context ctx_;
  Worker worker_;
  MemMap mem_[2];
  std::vector<Peer> peers_;
  std::unique_ptr<ProgressThread> progress_;
  bool software_ = true;
  bool all_on_am_lane_ = true;  // every remote peer on one emulated lane: fence orders nothing more
  bool dirty_ = false;  // some peer's `dirty` is set (under mu_)
  std::vector<int> ack_due_;  // PEs whose `ack_due` is set (under mu_)
  std::vector<int> batched_;  // PEs whose `batch` is not empty (under mu_)
  bool tearing_down_ = false;  // the destructor runs: acknowledgements are no longer sent
  static constexpr unsigned kAckDeferCalls = 16;
  unsigned ack_deferred_ = 0;  // busy progress calls since acknowledgements became due
  char* seg_base_[2] = {nullptr, nullptr};  // this PE's heap and static data (AM puts land there)
  std::size_t seg_size_[2] = {0, 0};
  std::atomic<bool> closing_{false};
  AppPolls app_polls_;  // the application's own polls of the worker (progress_thread.hpp)
  std::uint64_t issued_ = 0;  // operations issued (under mu_)
  // Serialises every call into the worker (created UCS_THREAD_MODE_SERIALIZED): a futex-based
  // mutex sleeps under contention where UCX's MULTI mode spins, which on a node with more
  // threads than CPUs starves the thread that holds the lock.
  std::mutex mu_;  // the application's progress calls (progress_thread.hpp)
  std::string describe_;
};

UcxTransport::UcxTransport(const Setup& s) : setup_(s), peers_(static_cast<std::size_t>(s.npes)) {
  ucp_config_t* raw_cfg = nullptr;
  ucs_status_t st = ucp_config_read(nullptr, nullptr, &raw_cfg);
  if (st != UCS_OK) throw_status("ucp_config_read", st);
  Config cfg(raw_cfg);
  // A lost host must end the job within seconds: check peers every second (unless the user
  // chose otherwise). UCX notices a dead endpoint through these checks and its own errors.
  if (!std::getenv("UCX_KEEPALIVE_INTERVAL")) ucp_config_modify(cfg.get(), "KEEPALIVE_INTERVAL", "1s");

  int nremote = 0;
  for (char r : s.remote) nremote += r != 0;
  ucp_params_t prm{};
  prm.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_ESTIMATED_NUM_EPS | UCP_PARAM_FIELD_NAME;
  prm.features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 | UCP_FEATURE_AM | UCP_FEATURE_WAKEUP;
  prm.estimated_num_eps = static_cast<size_t>(nremote);
  prm.name = "shmem";
  ucp_context_h ctx = nullptr;
  st = ucp_init(&prm, cfg.get(), &ctx);
  if (st != UCS_OK) throw_status("ucp_init", st);
  ctx_.reset(ctx);

  ucp_worker_params_t wp{};
  wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  wp.thread_mode = UCS_THREAD_MODE_SERIALIZED;
  ucp_worker_h w = nullptr;
  st = ucp_worker_create(ctx_.get(), &wp, &w);
  if (st != UCS_OK) throw_status("ucp_worker_create", st);
  worker_.reset(w);
  seg_base_[0] = static_cast<char*>(s.heap_base);
  seg_size_[0] = s.heap_size;
  seg_base_[1] = static_cast<char*>(s.data_base);
  seg_size_[1] = s.data_size;
  set_am_handler(kAmPutId, on_am_put);
  set_am_handler(kAmAckId, on_am_ack);
  set_am_handler(kAmAddId, on_am_add);

  PeerBlob mine;
  void* bases[2] = {s.heap_base, s.data_base};
  std::size_t sizes[2] = {s.heap_size, s.data_size};
  for (int seg = 0; seg < 2; ++seg) {
    mine.base[seg] = reinterpret_cast<std::uint64_t>(bases[seg]);
    if (sizes[seg] == 0) continue;
    ucp_mem_map_params_t mp{};
    mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
    mp.address = bases[seg];
    mp.length = sizes[seg];
    ucp_mem_h memh = nullptr;
    st = ucp_mem_map(ctx_.get(), &mp, &memh);
    if (st != UCS_OK) throw_status(seg == 0 ? "ucp_mem_map (symmetric heap)" : "ucp_mem_map (static data)", st);
    mem_[seg] = MemMap(ctx_.get(), memh);
    mine.rkey[seg] = packed_rkey(ctx_.get(), memh, &st);
    if (st != UCS_OK) throw_status("ucp_rkey_pack", st);
  }
  mine.worker_address = worker_address(worker_.get(), &st);
  if (st != UCS_OK) throw_status("ucp_worker_get_address", st);

  const std::vector<std::string> all = s.exchange->allgather("ucx", encode(mine));
  std::set<std::string> tls;
  bool software = false;
  for (int pe = 0; pe < s.npes; ++pe) {
    Peer& p = peers_[static_cast<std::size_t>(pe)];
    p.owner = this;
    p.pe = pe;
    if (!s.remote[static_cast<std::size_t>(pe)]) continue;
    auto blob = decode(all[static_cast<std::size_t>(pe)]);
    if (!blob)
      throw std::runtime_error("PE " + std::to_string(pe) + " published no UCX address (a different build of the library?)");
    ucp_ep_params_t ep{};
    ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                    UCP_EP_PARAM_FIELD_ERR_HANDLER;
    ep.address = reinterpret_cast<const ucp_address_t*>(blob->worker_address.data());
    ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
    ep.err_handler.cb = ep_error;
    ep.err_handler.arg = &p;
    st = ucp_ep_create(worker_.get(), &ep, &p.ep);
    if (st != UCS_OK) throw_status("ucp_ep_create to PE " + std::to_string(pe), st);
    for (int seg = 0; seg < 2; ++seg) {
      p.base[seg] = blob->base[seg];
      if (blob->rkey[seg].empty()) continue;
      ucp_rkey_h k = nullptr;
      st = ucp_ep_rkey_unpack(p.ep, blob->rkey[seg].data(), &k);
      if (st != UCS_OK) throw_status("ucp_ep_rkey_unpack for PE " + std::to_string(pe), st);
      p.rkey[seg].reset(k);
    }
    std::string raw;
    bool rma = false;
    bool emulated = false;
    for (const auto& t : ep_transports(p.ep, &raw, &rma)) {
      tls.insert(t);
      if (!rma || (t.find(" (rma)") != std::string::npos && !hardware_rma(t))) emulated = true;
    }
    p.am_put = emulated && !rma;  // every RMA goes through the AM lane, in order
    all_on_am_lane_ = all_on_am_lane_ && p.am_put;
    software = software || emulated;
    if (s.log) s.log(0, "endpoint to PE " + std::to_string(pe) + ":\n" + raw);
  }
  software_ = software || tls.empty();
  const bool thread = s.progress_thread == "on" || (s.progress_thread == "auto" && software_);
  if (thread) progress_ = std::make_unique<ProgressThread>(worker_.get(), &progress_worker_cb, this, &app_polls_, &mu_);
  describe_ = "ucx " + library_version() + ":";
  for (const auto& t : tls) describe_ += " " + t;
  if (tls.empty()) describe_ += " (no lanes reported)";
  describe_ += software_ ? " (RMA/AMO emulated by the target's CPU" : " (hardware RMA/AMO";
  describe_ += thread ? ", progress thread on)" : ", progress thread off)";
}

UcxTransport::~UcxTransport() {
  closing_.store(true, std::memory_order_release);
  progress_.reset();  // joined: from here on this thread is the worker's only user
  // Every PE has passed finalize's quiet and rendezvous: nobody waits for an acknowledgement
  // any more, and the endpoints they would go by are closing.
  tearing_down_ = true;
  for (auto& p : peers_) {
    p.rkey[0].reset();
    p.rkey[1].reset();
    if (!p.ep) continue;
    ucp_request_param_t prm{};
    prm.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    prm.flags = UCP_EP_CLOSE_FLAG_FORCE;
    ucs_status_ptr_t r = ucp_ep_close_nbx(p.ep, &prm);
    if (r != nullptr && !UCS_PTR_IS_ERR(r)) {
      for (int i = 0; i < 1000000 && ucp_request_check_status(r) == UCS_INPROGRESS; ++i) progress_worker(false);
      ucp_request_free(r);
    }
    p.ep = nullptr;
  }
  mem_[0].reset();
  mem_[1].reset();
}

}  // namespace

std::unique_ptr<RemoteTransport> create(const Setup& setup) { return std::make_unique<UcxTransport>(setup); }

std::string probe() {
  ucp_config_t* raw_cfg = nullptr;
  ucs_status_t st = ucp_config_read(nullptr, nullptr, &raw_cfg);
  if (st != UCS_OK) throw_status("ucp_config_read", st);
  Config cfg(raw_cfg);
  ucp_params_t prm{};
  prm.field_mask = UCP_PARAM_FIELD_FEATURES;
  prm.features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 | UCP_FEATURE_WAKEUP;
  ucp_context_h ctx = nullptr;
  st = ucp_init(&prm, cfg.get(), &ctx);
  if (st != UCS_OK) throw_status("ucp_init", st);
  Context owner(ctx);
  char* buf = nullptr;
  size_t len = 0;
  FILE* f = open_memstream(&buf, &len);
  if (!f) return "?";
  ucp_context_print_info(ctx, f);
  std::fclose(f);
  std::string text(buf, len);
  std::free(buf);
  // "#     resource 2  :  md 1  dev 2  flags -- tcp/eth0"
  std::string out;
  std::size_t pos = 0;
  while ((pos = text.find("resource", pos)) != std::string::npos) {
    const std::size_t eol = text.find('\n', pos);
    const std::string line = text.substr(pos, eol == std::string::npos ? std::string::npos : eol - pos);
    pos = eol == std::string::npos ? text.size() : eol;
    const std::size_t sp = line.find_last_of(" \t");
    if (sp == std::string::npos || line.find("--") == std::string::npos) continue;
    const std::string tl = line.substr(sp + 1);
    if (tl.rfind("self/", 0) == 0) continue;
    out += (out.empty() ? "" : ", ") + tl;
  }
  return out.empty() ? std::string("no network resources") : out;
}

std::string library_version() {
  unsigned major = 0, minor = 0, release = 0;
  ucp_get_version(&major, &minor, &release);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(release);
}

}  // namespace shmem::transport::ucx
