// UCX transport. Every operation targets (PE, segment, offset). Each PE publishes its worker
// address and packed rkeys under its own key of the bootstrap store at init; the endpoint to a
// peer and its rkeys are made on its first operation towards that peer (connect: one store
// round trip and ucp_ep_create), so a PE holds endpoints only to the peers it talks to (and one
// made at init, whose lanes decide how the transport runs). After that the data path is one
// predictable check, one indexed lookup and one UCP call.
//
// Completion: a blocking put returns once UCX has released the source buffer (local
// completion, as shmem_put requires); blocking gets and fetching atomics wait for the reply;
// nbi operations carry a callback that only records a failure, and complete at quiet. Puts to
// peers with emulated RMA are our own active messages (small ones gathered per peer, larger
// ones in zero-copy pieces),
// acknowledged by the target (wire format and reasons in am_put.hpp, sending and receiving in
// am_put.cpp; the class is ucx_transport_impl.hpp); quiet sends them and waits for the
// acknowledgements, and flushes UCX (ucp_worker_flush or ucp_ep_flush) only when some UCP
// operation since the last quiet needs it. fence is ucp_worker_fence. One mutex serialises the
// worker, so the progress thread, waits that poll, and application threads may all drive it.
#include "transport/ucx/ucx_transport.hpp"

#include <poll.h>
#include <sched.h>
#include <stdio.h>

#include <algorithm>
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

#include "transport/ucx/blob.hpp"
#include "transport/ucx/ucx_transport_impl.hpp"

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

}  // namespace

void UcxTransport::put(int pe, Seg seg, std::uint64_t off, const void* src, std::size_t bytes, bool nbi,
                       const char* op) noexcept {
  Peer& p = reach(pe, seg, off);
  if (p.am_put)
    return bytes <= kAmPutMax ? am_put(p, seg, off, src, bytes) : am_put_large(p, seg, off, src, bytes, nbi);
  rma(ucp_put_nbx, pe, seg, off, const_cast<void*>(src), bytes, nbi, op);
}

void UcxTransport::get(int pe, Seg seg, std::uint64_t off, void* dst, std::size_t bytes, bool nbi,
                       const char* op) noexcept {
  Peer& p = reach(pe, seg, off);
  if (p.am_put && nbi && bytes <= kAmGetMax) {  // batched, answered by the target
    return am_get(p, seg, off, dst, bytes);
  }
  rma(ucp_get_nbx, pe, seg, off, dst, bytes, nbi, op);
}


void UcxTransport::signal_add(int pe, Seg seg, std::uint64_t off, std::uint64_t value, const char* op) noexcept {
  Peer& p = reach(pe, seg, off);
  if (p.am_put) return am_add(p, seg, off, value, 8, false);
  amo(pe, seg, off, AmoOp::kAdd, 8, value, 0, nullptr, op);
}

std::uint64_t UcxTransport::amo(int pe, Seg seg, std::uint64_t off, AmoOp amo_op, std::size_t width, std::uint64_t value,
                                std::uint64_t cond, void* fetch_to, const char* op) noexcept {
  Peer& p = reach(pe, seg, off);
  const char* what = op ? op : amo_name(amo_op);
  if (p.am_put && !fetch_to && (amo_op == AmoOp::kAdd || amo_op == AmoOp::kInc) && (width == 4 || width == 8)) {
    am_add(p, seg, off, amo_op == AmoOp::kInc ? 1 : value, width);
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
  const bool wide = width == 8;
  const bool wants_reply = amo_fetches(amo_op) || code == UCP_ATOMIC_OP_SWAP || code == UCP_ATOMIC_OP_CSWAP;
  // A set (a signal's SET, shmem_atomic_set) fetches nothing but has only a swap to go by: it
  // completes at quiet like a non-fetching atomic, its old value dropped, instead of waiting
  // here for the reply (a round trip after all that went before it to the PE: a put_signal_nbi
  // that waits for its own put).
  const bool drops_reply = wants_reply && !fetch_to && !amo_fetches(amo_op) && code == UCP_ATOMIC_OP_SWAP;
  if (p.am_put && (fetch_to || drops_reply) && wants_reply && (width == 4 || width == 8)) {    // batched, answered
    am_fetch(p, seg, off, drops_reply ? AmoOp::kSwap : amo_op, width, value, cond, fetch_to);  // (a set: a swap)
    if (drops_reply) {  // a set may be a signal someone waits for: it goes now, with the puts before it
      std::lock_guard<std::mutex> lk(mu_);
      send_batch(p);
    }
    return 0;
  }
  // Operand and reply live in `f`: on this stack frame for the blocking forms (the call waits
  // for completion), on the heap for a fetching nbi form or a set, which return at once.
  PendingFetch here;
  std::unique_ptr<PendingFetch> later;
  if ((fetch_to || drops_reply) && wants_reply) later = std::make_unique<PendingFetch>();
  PendingFetch& f = later ? *later : here;
  f.operand = operand;
  f.reply = reply;
  f.operand32 = static_cast<std::uint32_t>(operand);
  f.reply32 = static_cast<std::uint32_t>(reply);
  f.fetch_to = fetch_to;
  f.width = width;
  f.pe = pe;
  f.what = what;
  ucp_request_param_t prm{};
  prm.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE;
  prm.datatype = ucp_dt_make_contig(wide ? 8 : 4);
  if (wants_reply) {
    prm.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
    prm.reply_buffer = wide ? static_cast<void*>(&f.reply) : static_cast<void*>(&f.reply32);
  }
  std::unique_lock<std::mutex> lk(mu_);
  issued();
  send_batch(p);  // our puts to this PE go first
  if (!wants_reply) {
    p.dirty = dirty_ = true;  // complete once the target answers (a flush)
    touch(p);
  }
  ucs_status_ptr_t r =
      ucp_atomic_op_nbx(p.ep, code, wide ? static_cast<void*>(&f.operand) : static_cast<void*>(&f.operand32), 1,
                        p.base[int(seg)] + off, rkey_of(p, seg, off), &prm);
  if (later && r != nullptr && !UCS_PTR_IS_ERR(r)) {
    later->request = r;
    fetches_.push_back(std::move(later));
    if (fetches_.size() > kMaxPendingFetches) {  // bounded: store what has completed, else wait
      reap_fetches(lk, -1, false);
      if (fetches_.size() > kMaxPendingFetches / 2) reap_fetches(lk, -1, true);
    }
    return 0;
  }
  complete(lk, r, false, what, pe);
  lk.unlock();
  const std::uint64_t old = wide ? f.reply : f.reply32;
  if (fetch_to) std::memcpy(fetch_to, wide ? static_cast<const void*>(&f.reply) : static_cast<const void*>(&f.reply32), width);
  return amo_fetches(amo_op) ? old : 0;
}

void UcxTransport::reap_fetches(std::unique_lock<std::mutex>& lk, int pe, bool wait) noexcept {
  auto mine = [&](const PendingFetch& f) { return pe < 0 || f.pe == pe; };
  if (wait)
    drive_until(lk, [&] {
      for (const auto& f : fetches_)
        if (mine(*f) && ucp_request_check_status(f->request) == UCS_INPROGRESS) return false;
      return true;
    });
  std::size_t kept = 0;
  for (std::size_t i = 0; i < fetches_.size(); ++i) {
    PendingFetch& f = *fetches_[i];
    const ucs_status_t st = mine(f) ? ucp_request_check_status(f.request) : UCS_INPROGRESS;
    if (st == UCS_INPROGRESS) {
      fetches_[kept++] = std::move(fetches_[i]);
      continue;
    }
    ucp_request_free(f.request);
    if (st != UCS_OK) {
      lk.unlock();
      fail(f.what, f.pe, st);
    }
    if (f.fetch_to)  // a set's old value is dropped
      std::memcpy(f.fetch_to, f.width == 8 ? static_cast<const void*>(&f.reply) : static_cast<const void*>(&f.reply32),
                  f.width);
  }
  fetches_.resize(kept);
}

void UcxTransport::fence() noexcept {
  // Every peer on one emulated lane: the targets apply our operations in issue order already,
  // and every later operation to a peer sends its batch first, so the batches may stay (a
  // put_signal's data and signal, or a collective chunk and its count, then go as one message).
  if (all_on_am_lane_) return;
  std::lock_guard<std::mutex> lk(mu_);
  send_batches();
  const ucs_status_t st = ucp_worker_fence(worker_.get());
  if (st != UCS_OK) fail("shmem_fence", -1, st);
}

void UcxTransport::quiet(int pe) noexcept {
  std::unique_lock<std::mutex> lk(mu_);
  issued();
  // Our AM puts and adds: every target has acknowledged every one issued so far (asked to,
  // with the last batch), up to the last one that quiet completes (the library's own signals
  // after it are not waited for: signal_add). Other threads may go on issuing: their later puts
  // are not waited for (they would be acknowledged only lazily, or by their own quiet).
  // And every nonblocking fetch issued so far has been answered (its value stored).
  struct Owed {
    const Peer* p;
    std::uint64_t sent, fetches;
  };
  std::vector<Owed> owed;
  for (const int t : touched_) {
    Peer& p = peers_[static_cast<std::size_t>(t)];
    if (pe >= 0 && p.pe != pe) continue;
    if (p.am_acked < p.am_owed || p.ask_done < p.ask_sent) {
      send_batch(p, true);
      owed.push_back(Owed{&p, p.am_owed, p.ask_sent});
    }
  }
  send_batches();  // the rest (signals only, or nothing)
  drive_until(lk, [&] {
    for (const Owed& o : owed)
      if (o.p->am_acked < o.sent || o.p->ask_done < o.fetches) return false;
    return true;
  });
  // UCP's own operations (large puts, nbi gets, non-fetching atomics), when there were any.
  ucp_request_param_t prm{};
  ucs_status_ptr_t r = nullptr;
  if (pe < 0 && dirty_) {
    r = ucp_worker_flush_nbx(worker_.get(), &prm);
    dirty_ = false;
    for (const int t : touched_) peers_[static_cast<std::size_t>(t)].dirty = false;
  } else if (pe >= 0 && peers_[static_cast<std::size_t>(pe)].dirty) {
    r = ucp_ep_flush_nbx(peers_[static_cast<std::size_t>(pe)].ep, &prm);
    peers_[static_cast<std::size_t>(pe)].dirty = false;
  }
  complete(lk, r, false, "shmem_quiet", pe);
  if (!fetches_.empty()) reap_fetches(lk, pe, true);  // nonblocking fetching atomics: their values
  if (pe < 0) settle_touched();
}

// After a quiet: the peers with nothing left to complete leave the list (others' threads may
// have issued more meanwhile: those stay).
void UcxTransport::settle_touched() noexcept {
  std::size_t keep = 0;
  for (const int t : touched_) {
    Peer& p = peers_[static_cast<std::size_t>(t)];
    if (p.dirty || p.am_acked < p.am_owed || p.ask_done < p.ask_sent)
      touched_[keep++] = t;
    else
      p.touched = false;
  }
  touched_.resize(keep);
}

void UcxTransport::progress(bool continual) noexcept {
  if (continual) app_polls_.polled();  // keeps the progress thread away (app_polls.hpp)
  std::lock_guard<std::mutex> lk(mu_);
  progress_worker(continual);  // a continual poll may defer acknowledgements to its next call
}

void UcxTransport::idle(long max_ns) noexcept {
  std::unique_lock<std::mutex> lk(mu_, std::defer_lock);
  give_cpu(lk, max_ns);
}

void UcxTransport::give_cpu(std::unique_lock<std::mutex>& lk, long max_ns) noexcept {
  const bool held = lk.owns_lock();
  if (worker_fd_ < 0 || setup_.pes_outnumber_cpus || !yields_.contended(now_ns())) {
    if (held) lk.unlock();
    yields_.yield();
    if (held) lk.lock();
    return;
  }
  if (!told_contended_.exchange(true, std::memory_order_relaxed) && setup_.log)
    setup_.log(1, "yields cost a time slice here (another process holds this CPU): waits for other hosts now sleep "
                  "on UCX's event descriptor, woken by the network");
  if (!held) lk.lock();
  // Everything due goes out first (deferred acknowledgements included: a peer may wait for
  // them), then the worker is armed; BUSY means events arrived meanwhile: no sleep.
  while (progress_worker(false) != 0) {
  }
  const ucs_status_t armed = ucp_worker_arm(worker_.get());
  lk.unlock();
  if (armed == UCS_OK) {
    app_polls_.polled();  // the progress thread stays away: this PE serves what wakes it
    pollfd fd{worker_fd_, POLLIN, 0};
    const timespec ts{max_ns / 1000000000L, max_ns % 1000000000L};
    ::ppoll(&fd, 1, &ts, nullptr);
  } else if (armed != UCS_ERR_BUSY) {
    sched_yield();  // the worker cannot be armed: never spin without giving the CPU away
  }
  if (held) lk.lock();
}

void UcxTransport::peer_failed(int pe, ucs_status_t st, const char* what) noexcept {
  if (closing_.load(std::memory_order_acquire)) return;
  fail(what, pe, st);
}

void UcxTransport::closing() noexcept {
  closing_.store(true, std::memory_order_release);
  if (setup_.log) {
    int nremote = 0;
    for (char r : setup_.remote) nremote += r != 0;
    try {
      setup_.log(1, "PE " + std::to_string(setup_.me) + ": " + std::to_string(endpoints()) + " UCX endpoint" +
                        (endpoints() == 1 ? "" : "s") + " for " + std::to_string(nremote) +
                        " remote PEs (made on first use)");
      if (lazy_from_ != SIZE_MAX) {
        std::lock_guard<std::mutex> g(expose_mu_);
        setup_.log(1, "PE " + std::to_string(setup_.me) +
                          (lazy_registered_ ? ": collective area registered with UCX (" +
                                                  std::to_string(lazy_registered_ >> 10) + " KiB, on first use)"
                                            : ": collective area not registered with UCX (it led no team or active "
                                              "set across hosts)"));
      }
    } catch (const std::exception&) {}
  }
  // Finalize's rendezvous runs on the store and drives nothing here, while a peer may still
  // wait for us to complete its last operations: keep the worker progressing until teardown.
  std::lock_guard<std::mutex> g(thread_mu_);
  if (!progress_) {
    try {
      progress_ = std::make_unique<ProgressThread>(worker_.get(), &progress_worker_cb, this, &app_polls_, &mu_);
    } catch (const std::exception&) {
    }
  }
}

void UcxTransport::nbi_done(void* request, ucs_status_t st, void* user) {
  auto* p = static_cast<Peer*>(user);
  if (st != UCS_OK && st != UCS_ERR_CANCELED) p->owner->peer_failed(p->pe, st, "a nonblocking operation (nbi)");
  ucp_request_free(request);
}

void UcxTransport::ep_error(void* arg, ucp_ep_h, ucs_status_t st) {
  auto* p = static_cast<Peer*>(arg);
  // A peer that went away because the job is failing elsewhere is not the cause: give the
  // launcher or the job watcher, which name the first failure, a moment to end us first.
  if (!p->owner->is_closing()) std::this_thread::sleep_for(std::chrono::milliseconds(300));
  p->owner->peer_failed(p->pe, st, "the connection");
}

template <class Call>
void UcxTransport::rma(Call call, int pe, Seg seg, std::uint64_t off, void* buf, std::size_t bytes, bool nbi,
                       const char* op) noexcept {
  Peer& p = peers_[static_cast<std::size_t>(pe)];
  ucp_request_param_t prm{};
  if (nbi) nbi_param(prm, p);
  std::unique_lock<std::mutex> lk(mu_);
  issued();
  send_batch(p);  // our puts to this PE go first
  if (nbi || !std::is_same_v<Call, decltype(&ucp_get_nbx)>) {
    p.dirty = dirty_ = true;
    touch(p);
  }
  ucs_status_ptr_t r = call(p.ep, buf, bytes, p.base[int(seg)] + off, rkey_of(p, seg, off), &prm);
  complete(lk, r, nbi, op, pe);
}

unsigned UcxTransport::progress_worker(bool may_defer, bool flush_batches) noexcept {
  if (flush_batches) send_batches();
  const unsigned n = ucp_worker_progress(worker_.get());
  if (!answers_.empty() && !tearing_down_) send_answers();  // before the acknowledgements
  if (!ack_due_.empty() && !tearing_down_ && (!may_defer || n == 0 || ++ack_deferred_ >= kAckDeferCalls)) {
    ack_deferred_ = 0;
    send_acks();
  }
  return n;
}

unsigned UcxTransport::progress_worker_cb(void* self) noexcept {
  return static_cast<UcxTransport*>(self)->progress_worker(false);
}

void UcxTransport::set_am_handler(unsigned id, ucp_am_recv_callback_t cb) {
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

void UcxTransport::complete(std::unique_lock<std::mutex>& lk, ucs_status_ptr_t r, bool nbi, const char* op,
                            int pe) noexcept {
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


void UcxTransport::fail(const char* op, int pe, ucs_status_t st) noexcept {
  std::string msg = std::string(op ? op : "UCX operation");
  if (pe >= 0) {
    msg += " to PE " + std::to_string(pe);
    if (setup_.host_of) msg += " (host '" + setup_.host_of(pe) + "')";
  }
  msg += " failed: UCX reports '" + std::string(ucs_status_string(st)) + "'";
  if (st == UCS_ERR_CONNECTION_RESET || st == UCS_ERR_ENDPOINT_TIMEOUT || st == UCS_ERR_UNREACHABLE ||
      st == UCS_ERR_TIMED_OUT)
    msg += " (the PE or its host is gone)";
  setup_.fatal(msg);
  std::abort();  // fatal does not return
}

std::string UcxTransport::peer_name(int pe) const {
  std::string out = "PE " + std::to_string(pe);
  if (setup_.host_of) out += " (host '" + setup_.host_of(pe) + "')";
  return out;
}

std::string UcxTransport::open_endpoint(Peer& p, const std::string& text, std::set<std::string>* tls, bool* emulated) {
  auto blob = decode(text);
  if (!blob) return "it published no UCX address (a different build of the library?)";
  ucp_ep_params_t ep{};
  ep.field_mask =
      UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
  ep.address = reinterpret_cast<const ucp_address_t*>(blob->worker_address.data());
  ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
  ep.err_handler.cb = ep_error;
  ep.err_handler.arg = &p;
  ucs_status_t st = ucp_ep_create(worker_.get(), &ep, &p.ep);
  if (st != UCS_OK) return std::string("ucp_ep_create failed: ") + ucs_status_string(st);
  endpoints_.fetch_add(1, std::memory_order_relaxed);
  for (int seg = 0; seg < 2; ++seg) {
    p.base[seg] = blob->base[seg];
    if (blob->rkey[seg].empty()) continue;
    ucp_rkey_h k = nullptr;
    st = ucp_ep_rkey_unpack(p.ep, blob->rkey[seg].data(), &k);
    if (st != UCS_OK) return std::string("ucp_ep_rkey_unpack failed: ") + ucs_status_string(st);
    p.rkey[seg].reset(k);
  }
  std::string raw;
  bool rma = false;
  *emulated = false;
  for (const auto& t : ep_transports(p.ep, &raw, &rma)) {
    if (tls) tls->insert(t);
    if (!rma || (t.find(" (rma)") != std::string::npos && !hardware_rma(t))) *emulated = true;
  }
  p.am_put = *emulated && !rma;  // every RMA goes through the AM lane, in order
  if (!p.am_put) all_on_am_lane_.store(false, std::memory_order_relaxed);
  if (setup_.log)
    setup_.log(0, "endpoint to " + peer_name(p.pe) + " (" + std::to_string(endpoints()) + " so far):\n" + raw);
  return {};
}

void UcxTransport::connect(Peer& p) noexcept {
  std::lock_guard<std::mutex> once(p.connect_mu);
  if (p.ready.load(std::memory_order_acquire)) return;  // another thread made it meanwhile
  std::string blob, error;
  bool emulated = false;
  try {
    blob = setup_.exchange->fetch(kExchangeTag, p.pe);  // a store round trip, mu_ not held
  } catch (const std::exception& e) {
    error = std::string("fetching its UCX address: ") + e.what();
  }
  if (error.empty()) {
    try {
      std::lock_guard<std::mutex> lk(mu_);
      error = open_endpoint(p, blob, nullptr, &emulated);
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  if (!error.empty()) {
    setup_.fatal("the UCX transport cannot connect to " + peer_name(p.pe) + ": " + error);
    std::abort();  // fatal does not return
  }
  p.ready.store(true, std::memory_order_release);
  // A peer reached over emulated RMA where the first endpoint had hardware RMA (a mixed
  // network): its requests are served only when this worker progresses.
  if (emulated && !software_ && setup_.progress_thread != ProgressThreadMode::kOff) {
    std::lock_guard<std::mutex> g(thread_mu_);
    if (!progress_ && !is_closing()) {
      try {
        progress_ = std::make_unique<ProgressThread>(worker_.get(), &progress_worker_cb, this, &app_polls_, &mu_);
      } catch (const std::exception&) {}
    }
  }
}

UcxTransport::UcxTransport(const Setup& s) : setup_(s), peers_(static_cast<std::size_t>(s.npes)) {
  ucp_config_t* raw_cfg = nullptr;
  ucs_status_t st = ucp_config_read(nullptr, nullptr, &raw_cfg);
  if (st != UCS_OK) throw_status("ucp_config_read", st);
  Config cfg(raw_cfg);
  // A lost host must end the job within seconds: check peers every second (unless the user
  // chose otherwise). UCX notices a dead endpoint through these checks and its own errors.
  if (!std::getenv("UCX_KEEPALIVE_INTERVAL")) ucp_config_modify(cfg.get(), "KEEPALIVE_INTERVAL", "1s");
  // The pieces of large puts to peers on an emulated lane (am_put.hpp, kAmPieceMax) go
  // zero-copy from the caller's buffer; UCX's own choice for TCP copies everything up to a
  // segment into its send buffer first. Batches (up to 34 KiB) keep being copied.
  if (!std::getenv("UCX_ZCOPY_THRESH")) ucp_config_modify(cfg.get(), "ZCOPY_THRESH", "64K");

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
  if (ucp_worker_get_efd(worker_.get(), &worker_fd_) != UCS_OK) worker_fd_ = -1;  // then waits only yield
  if (s.heap_lazy_from > 0 && s.heap_lazy_from < s.heap_size) lazy_from_ = s.heap_lazy_from;
  seg_base_[0] = static_cast<char*>(s.heap_base);
  seg_size_[0] = s.heap_size;
  seg_base_[1] = static_cast<char*>(s.data_base);
  seg_size_[1] = s.data_size;
  set_am_handler(kAmPutId, on_am_put);
  set_am_handler(kAmAckId, on_am_ack);
  set_am_handler(kAmAnswerId, on_am_answer);
  set_am_handler(kAmPieceId, on_am_piece);

  PeerBlob mine;
  void* bases[2] = {s.heap_base, s.data_base};
  // The heap up to its collective area (registered later, by expose_lazy(), where used).
  std::size_t sizes[2] = {std::min(s.heap_size, lazy_from_), s.data_size};
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

  s.exchange->publish(kExchangeTag, encode(mine));
  for (int pe = 0; pe < s.npes; ++pe) {
    peers_[static_cast<std::size_t>(pe)].owner = this;
    peers_[static_cast<std::size_t>(pe)].pe = pe;
  }
  // One endpoint now, to the first remote PE after this one (round the ring): what its lanes
  // use decides how the transport runs (emulated RMA: a progress thread, waits that poll) and
  // what it reports. Every other endpoint is made on first use (connect).
  int probe = -1;
  for (int i = 1; i < s.npes && probe < 0; ++i)
    if (s.remote[static_cast<std::size_t>((s.me + i) % s.npes)]) probe = (s.me + i) % s.npes;
  std::set<std::string> tls;
  bool software = false;
  if (probe >= 0) {
    Peer& p = peers_[static_cast<std::size_t>(probe)];
    std::string blob, error;
    try {
      blob = s.exchange->fetch(kExchangeTag, probe);
    } catch (const std::exception& e) {
      error = std::string("fetching its UCX address: ") + e.what();
    }
    if (error.empty()) error = open_endpoint(p, blob, &tls, &software);
    if (!error.empty()) throw std::runtime_error("connecting to " + peer_name(probe) + ": " + error);
    p.ready.store(true, std::memory_order_release);
  }
  software_ = software || tls.empty();
  const bool thread =
      s.progress_thread == ProgressThreadMode::kOn || (s.progress_thread == ProgressThreadMode::kAuto && software_);
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
    p.lazy_rkey.reset();
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
  // Fetching nbi atomics that no quiet completed (finalize quiets, so only after a failure):
  // their endpoints are closed, so they end now, cancelled.
  for (auto& f : fetches_) {
    for (int i = 0; i < 1000000 && ucp_request_check_status(f->request) == UCS_INPROGRESS; ++i) progress_worker(false);
    ucp_request_free(f->request);
  }
  fetches_.clear();
  mem_[0].reset();
  mem_[1].reset();
}

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
