#pragma once
// The UCX transport's class, shared by its two source files: ucx_transport.cpp (set-up and
// teardown, UCP puts, gets and atomics, fence, quiet, progress) and am_put.cpp (our own active
// messages to peers on an emulated lane: batches of small puts, non-fetching adds and
// nonblocking fetching atomics, their acknowledgements and the fetches' answers, whose wire
// format is am_put.hpp). Private to the plugin, whose symbols
// are hidden.
#include <sched.h>
#include <ucp/api/ucp.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "transport/transport.hpp"
#include "transport/ucx/am_put.hpp"
#include "transport/ucx/handles.hpp"
#include "transport/ucx/progress_thread.hpp"
#include "util/yield_cost.hpp"

namespace shmem::transport::ucx {

class UcxTransport;

struct Peer {
  UcxTransport* owner = nullptr;
  int pe = -1;
  // The endpoint and rkeys are made on first use (UcxTransport::connect): `ready` (release)
  // publishes ep, rkey, base and am_put, which never change afterwards; connect_mu makes
  // threads that meet a new peer at once create them once.
  std::atomic<bool> ready{false};
  std::mutex connect_mu;
  ucp_ep_h ep = nullptr;
  Rkey rkey[2];
  std::uint64_t base[2] = {0, 0};
  // Its collective area's key (Setup::heap_lazy_from), taken from its heap once it has exposed
  // it (UcxTransport::connect_lazy): `lazy_ready` (release) publishes lazy_rkey.
  std::atomic<bool> lazy_ready{false};
  std::mutex lazy_mu;
  Rkey lazy_rkey;
  bool am_put = false;  // small puts go as our active messages (am_put.hpp): RMA is emulated
  // Under the transport's mutex:
  std::uint64_t am_sent = 0;     // AM puts sent to this PE
  std::uint64_t am_acked = 0;    // ... of which it has acknowledged this many
  std::uint64_t am_owed = 0;     // am_sent after the last one quiet must complete (not signal_add's)
  std::uint64_t am_applied = 0;  // AM puts from this PE applied here
  std::uint64_t am_answered = 0; // ... of which the last acknowledgement sent to it counted
  AmAck ack_out{};               // the acknowledgement being sent to it (UCX may read it late)
  bool ack_due = false;          // am_applied grew since the last acknowledgement
  ucp_ep_h ack_ep = nullptr;     // ... and the endpoint the puts came by
  bool dirty = false;            // a UCP operation to it since the last quiet needs a flush
  bool touched = false;          // in UcxTransport::touched_ (quiet looks only at those)
  PutBatch batch;                // small puts to it not yet sent (am_put.hpp)
  // Records that ask it for an answer (am_put.hpp: nonblocking fetching atomics and small
  // nonblocking gets): where each answer goes, oldest first, and how many were issued and
  // answered; and (as a target) how many from it were answered.
  struct AskSlot {
    void* to;
    std::uint32_t bytes;  // a fetch's width, or a get's size
    bool get;
  };
  std::deque<AskSlot> ask_slots;
  std::uint64_t ask_sent = 0, ask_done = 0, ask_applied = 0;
};

// The answers to a batch's asks, on their way back to its sender (UCX reads them until the
// send completes).
struct AnswerOut {
  static constexpr const char* kWhat = "answering gets or atomics";
  AmAnswer header{};
  std::vector<char> payload;
  Peer* peer = nullptr;
  ucp_ep_h ep = nullptr;
};

// A fetching atomic issued in its nonblocking form (shmem_*_atomic_fetch_*_nbi to another
// host): its operand and reply buffers, which UCX reads and writes until the request completes,
// and where the old value goes then (by the next quiet at the latest).
struct PendingFetch {
  std::uint64_t operand = 0, reply = 0;
  std::uint32_t operand32 = 0, reply32 = 0;
  void* fetch_to = nullptr;
  std::size_t width = 8;
  int pe = -1;
  const char* what = nullptr;
  ucs_status_ptr_t request = nullptr;
};

class UcxTransport final : public RemoteTransport {
 public:
  explicit UcxTransport(const Setup& s);
  ~UcxTransport() override;

  const char* name() const noexcept override { return "ucx"; }
  std::string describe() const override { return describe_; }

  void put(int pe, Seg seg, std::uint64_t off, const void* src, std::size_t bytes, bool nbi,
           const char* op) noexcept override;
  void get(int pe, Seg seg, std::uint64_t off, void* dst, std::size_t bytes, bool nbi,
           const char* op) noexcept override;
  std::uint64_t amo(int pe, Seg seg, std::uint64_t off, AmoOp amo_op, std::size_t width, std::uint64_t value,
                    std::uint64_t cond, void* fetch_to, const char* op) noexcept override;
  void signal_add(int pe, Seg seg, std::uint64_t off, std::uint64_t value, const char* op) noexcept override;
  void fence() noexcept override;
  void quiet(int pe) noexcept override;
  void progress(bool continual) noexcept override;
  void idle(long max_ns) noexcept override;
  std::atomic<std::uint32_t>* activity() noexcept override { return app_polls_.activity(); }
  bool waits_need_progress() const noexcept override { return software_; }
  void expose_lazy() noexcept override;

  // Endpoints made so far (shmem-info-like diagnostics and tests: logged at closing()).
  int endpoints() const noexcept { return endpoints_.load(std::memory_order_relaxed); }

  // Called for endpoint errors (a lost peer) and failed nbi operations.
  void peer_failed(int pe, ucs_status_t st, const char* what) noexcept;
  void closing() noexcept override;
  bool is_closing() const noexcept { return closing_.load(std::memory_order_acquire); }

 private:
  // ---- ucx_transport.cpp ----
  // The peer, its endpoint and rkeys made on first use: the data path's one check.
  Peer& connected(int pe) noexcept {
    Peer& p = peers_[static_cast<std::size_t>(pe)];
    if (!p.ready.load(std::memory_order_acquire)) [[unlikely]]
      connect(p);
    return p;
  }
  // Fetches the peer's blob from the exchange (without mu_) and makes its endpoint; ends the
  // job naming the PE and its host when it cannot.
  [[gnu::noinline, gnu::cold]] void connect(Peer& p) noexcept;
  // connected(pe), and for an operation on its collective area, its key too (connect_lazy).
  Peer& reach(int pe, Seg seg, std::uint64_t off) noexcept {
    Peer& p = connected(pe);
    if (seg == Seg::kHeap && off >= lazy_from_ && !p.lazy_ready.load(std::memory_order_acquire)) [[unlikely]]
      connect_lazy(p);
    return p;
  }
  // Reads p's published key to its collective area (a get of its heap), waiting (progressing)
  // until p has exposed it, and unpacks it; ends the job when it cannot.
  [[gnu::noinline, gnu::cold]] void connect_lazy(Peer& p) noexcept;
  // The rkey for (seg, off) of p (reach() made it).
  ucp_rkey_h rkey_of(const Peer& p, Seg seg, std::uint64_t off) const noexcept {
    return seg == Seg::kHeap && off >= lazy_from_ ? p.lazy_rkey.get() : p.rkey[int(seg)].get();
  }
  // Makes p's endpoint and unpacks its rkeys from `blob` (mu_ held, or in the constructor);
  // returns what failed, or "" (p is then ready to publish). Adds its lanes' transports to
  // *tls (when given) and sets *emulated when UCX emulates RMA to it.
  std::string open_endpoint(Peer& p, const std::string& blob, std::set<std::string>* tls, bool* emulated);
  std::atomic<int> endpoints_{0};
  std::string peer_name(int pe) const;  // "PE 3 (host 'h2')"
  static constexpr const char* kExchangeTag = "ucx";
  std::mutex thread_mu_;  // creating progress_ after the constructor (connect, closing)

  static void nbi_done(void* request, ucs_status_t st, void* user);
  static void ep_error(void* arg, ucp_ep_h, ucs_status_t st);
  // One put or get (`call` is ucp_put_nbx or ucp_get_nbx, which differ only in constness).
  // Puts and nbi gets complete at the next flush; blocking gets here.
  template <class Call>
  void rma(Call call, int pe, Seg seg, std::uint64_t off, void* buf, std::size_t bytes, bool nbi,
           const char* op) noexcept;

  // Every progress call of the transport (mu_ held): sends the batches of puts (unless
  // `flush_batches` is false), drives the worker, and answers the puts it applied. While the
  // application polls continually (`may_defer`), the answers wait for a call that finds nothing
  // more to do (at most kAckDeferCalls calls): that keeps them off the critical path of a
  // ping-pong (the waiting PE sees the put, leaves its wait and sends its own put first; its
  // next poll answers). Otherwise (a wait that sleeps between polls, the progress thread) they
  // go at once.
  unsigned progress_worker(bool may_defer, bool flush_batches = true) noexcept;
  static unsigned progress_worker_cb(void* self) noexcept;

  void set_am_handler(unsigned id, ucp_am_recv_callback_t cb);

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
  void complete(std::unique_lock<std::mutex>& lk, ucs_status_ptr_t r, bool nbi, const char* op, int pe) noexcept;

  // Progresses the worker until done() (called with lk held); the lock is dropped between
  // polls, never held while yielding.
  template <class Done>
  void drive_until(std::unique_lock<std::mutex>& lk, Done&& done) noexcept;

  [[noreturn]] void fail(const char* op, int pe, ucs_status_t st) noexcept;

  // Gives the CPU away while a wait for the network has nothing to do (yield_cost.hpp):
  // sched_yield while yields are cheap, else a sleep on the worker's event descriptor of at most
  // max_ns. `lk` (on mu_) may be held or not, and is again in that state on return.
  void give_cpu(std::unique_lock<std::mutex>& lk, long max_ns) noexcept;
  static constexpr long kDriveSleepNs = 200 * 1000;  // drive_until's sleeps (woken by events)
  util::YieldCost yields_;
  std::atomic<bool> told_contended_{false};  // the log line about it went out
  int worker_fd_ = -1;  // the worker's event descriptor (owned by the worker), or -1

  // Nonblocking fetching atomics in flight (under mu_). reap_fetches stores the old value of
  // every completed one (of `pe`'s, or all with pe < 0) and forgets it; with `wait`, it first
  // drives the worker until all of them have completed (quiet).
  void reap_fetches(std::unique_lock<std::mutex>& lk, int pe, bool wait) noexcept;
  static constexpr std::size_t kMaxPendingFetches = 1024;  // more in flight: the oldest are waited for
  std::vector<std::unique_ptr<PendingFetch>> fetches_;

  // ---- am_put.cpp: our active messages (am_put and am_add take mu_; the rest run with it held) ----
  // A small put: into the peer's batch, which then holds the data (the source may be reused
  // at once, as a blocking put requires).
  void am_put(Peer& p, Seg seg, std::uint64_t off, const void* src, std::size_t bytes) noexcept;
  // A larger put: pieces of kAmPieceMax sent from src without a copy (am_put.hpp); a blocking
  // one returns once UCX has sent them all (local completion), an nbi one at once.
  void am_put_large(Peer& p, Seg seg, std::uint64_t off, const void* src, std::size_t bytes, bool nbi) noexcept;
  // A nonblocking fetching atomic: appended to the peer's batch (which goes out when full or
  // at the next progress call); its old value is stored at fetch_to when the answer comes.
  void am_fetch(Peer& p, Seg seg, std::uint64_t off, AmoOp op, std::size_t width, std::uint64_t value,
                std::uint64_t cond, void* fetch_to) noexcept;
  // A nonblocking get of up to kAmGetMax bytes: the same, its data stored at dst on the answer.
  void am_get(Peer& p, Seg seg, std::uint64_t off, void* dst, std::size_t bytes) noexcept;
  // Both: appends the record (`args_bytes` of arguments, of `kind`) and the slot its answer goes
  // to (`bytes`: the fetch's width or the get's size); with kMaxAsks unanswered to the peer it
  // first waits for the older half's answers.
  void am_ask(Peer& p, Seg seg, std::uint64_t off, const void* args, std::size_t args_bytes, std::uint8_t kind,
              void* to, std::size_t bytes) noexcept;
  static constexpr std::uint64_t kMaxAsks = 65536;  // unanswered per peer
  // A non-fetching add: appended to the peer's batch, which then goes out (am_put.hpp).
  // `owed` false: the library's own signal (signal_add), which quiet does not wait for.
  void am_add(Peer& p, Seg seg, std::uint64_t off, std::uint64_t value, std::size_t width, bool owed = true) noexcept;
  // Sends the peer's batch, if any (never waits: the batch travels with the request).
  // With ack_now, asks for the acknowledgement at once (an empty batch when none is pending).
  void send_batch(Peer& p, bool ack_now = false) noexcept;
  // Every peer's batch.
  void send_batches() noexcept;
  // One acknowledgement per peer for every put that one ucp_worker_progress call applied (a
  // burst of small puts, e.g. an iput, costs the target one answer).
  void send_acks() noexcept;
  // The target's handlers (from within ucp_worker_progress) and the sender's of the answers.
  static ucs_status_t on_am_put(void* arg, const void* header, size_t header_length, void* data, size_t length,
                                const ucp_am_recv_param_t* param);
  static ucs_status_t on_am_piece(void* arg, const void* header, size_t header_length, void* data, size_t length,
                                  const ucp_am_recv_param_t* param);
  static ucs_status_t on_am_ack(void* arg, const void* header, size_t header_length, void*, size_t,
                                const ucp_am_recv_param_t*);
  static ucs_status_t on_am_answer(void* arg, const void* header, size_t header_length, void* data, size_t length,
                                        const ucp_am_recv_param_t*);
  // The answers to the asks of the batches applied in one ucp_worker_progress call, sent
  // after it returns (before the acknowledgements).
  void send_answers() noexcept;
  std::vector<std::unique_ptr<AnswerOut>> answers_;  // under mu_
  // The header H (with a `from`) of an incoming message of ours, once its size, `well_formed`
  // and its sender (a remote PE of the job) are checked; else the job ends, naming `what`.
  template <class H>
  H incoming(const void* header, std::size_t header_length, bool well_formed, const char* what) noexcept;
  // Counts an applied put or add from `from` and has it acknowledged (on the endpoint it came by).
  void applied_from(std::uint32_t from, std::uint64_t count, bool ack_now, ucp_ep_h reply_ep) noexcept;

  Setup setup_;
  Context ctx_;
  Worker worker_;
  MemMap mem_[2];
  // The collective area (Setup::heap_lazy_from): offsets from lazy_from_ on (SIZE_MAX: none),
  // registered by expose_lazy() into lazy_mem_ (under expose_mu_).
  std::size_t lazy_from_ = SIZE_MAX;
  std::mutex expose_mu_;
  MemMap lazy_mem_;
  std::size_t lazy_registered_ = 0;  // bytes lazy_mem_ covers (0: not exposed)
  std::vector<Peer> peers_;
  std::unique_ptr<ProgressThread> progress_;
  bool software_ = true;
  // Every remote peer connected so far on one emulated lane: fence orders nothing more.
  std::atomic<bool> all_on_am_lane_{true};
  bool dirty_ = false;  // some peer's `dirty` is set (under mu_)
  std::vector<int> ack_due_;  // PEs whose `ack_due` is set (under mu_)
  std::vector<int> batched_;  // PEs whose `batch` is not empty (under mu_)
  // PEs with operations a quiet may have to complete (under mu_): quiet's cost follows the
  // peers a PE talks to, not the job's size.
  std::vector<int> touched_;
  void settle_touched() noexcept;
  void touch(Peer& p) noexcept {
    if (p.touched) return;
    p.touched = true;
    touched_.push_back(p.pe);
  }
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

template <class Done>
void UcxTransport::drive_until(std::unique_lock<std::mutex>& lk, Done&& done) noexcept {
  unsigned spins = 0;
  while (!done()) {
    app_polls_.polled();
    if (progress_worker(true) == 0 && ++spins % 256 == 0) give_cpu(lk, kDriveSleepNs);
  }
}

}  // namespace shmem::transport::ucx
