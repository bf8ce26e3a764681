#pragma once
// A remote transport moves data to PEs whose memory this process cannot map (PEs on other
// hosts). The node-local path never goes through it: that is inlined in the core as memcpy /
// atomic_ref on the peer's mapped segment (route.hpp). Backends live in their own folders
// (ucx/) and never include each other; the core sees only this interface and create_remote().
//
// Addresses are (segment, offset) pairs: the offset of a symmetric object within the owner's
// heap or static-data segment, which is the same on every PE. Data-path calls are noexcept;
// a failure ends the job through Setup::fatal with the operation, the PE and the cause.
#include <sched.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/config.hpp"
#include "transport/amo_op.hpp"

namespace shmem::transport {

enum class Seg : std::uint8_t { kHeap = 0, kData = 1 };

// The control-plane exchange the core lends a transport (the bootstrap store), for as long as
// the transport lives: each PE publishes its blob under a tag once (O(1) store bytes per PE),
// and any PE fetches just the blobs of the peers it talks to, when it first does (a store
// round trip each). Thread-safe: application threads may fetch at once.
class Exchange {
 public:
  virtual ~Exchange() = default;
  // This PE's blob under `tag` (once per tag).
  virtual void publish(const std::string& tag, const std::string& mine) = 0;
  // PE `pe`'s blob under `tag`, waiting until that PE has published it; throws Error (naming
  // the store's failure, or a timeout) when it cannot.
  virtual std::string fetch(const std::string& tag, int pe) = 0;
};

struct Setup {
  int me = 0;
  int npes = 1;
  std::vector<char> remote;  // remote[pe] != 0: this transport serves pe
  std::function<std::string(int pe)> host_of;  // a PE's host name (for messages)
  void* heap_base = nullptr;
  std::size_t heap_size = 0;
  void* data_base = nullptr;
  std::size_t data_size = 0;
  // The heap from this offset on (the collective areas: core/xhost_area.hpp, the host's address
  // table) is registered for remote access only on the PEs that call expose_lazy(), and only
  // then; 0: none (the whole heap at init). Where a PE publishes the key to it for its peers:
  // lazy_key_bytes at lazy_key_off, in the heap before heap_lazy_from.
  std::size_t heap_lazy_from = 0;
  std::size_t lazy_key_off = 0;
  std::size_t lazy_key_bytes = 0;
  // SHMEM_WAIT_TIMEOUT (0: none): how long an operation on a peer's collective area waits for
  // that peer's expose_lazy().
  double wait_timeout_s = 0;
  int thread_level = 0;            // the spec's numbering; 3 = SHMEM_THREAD_MULTIPLE
  ProgressThreadMode progress_thread = ProgressThreadMode::kAuto;
  // PEs of the job on this kernel outnumber its CPUs: a yield then most likely goes to another
  // PE, which is what it is for, so idle() always yields (sleeping on the network instead
  // measured 1.2-1.6x slower small broadcasts at 4 hosts x 1 PE on 2 CPUs).
  bool pes_outnumber_cpus = false;
  Exchange* exchange = nullptr;  // outlives the transport
  // Ends the job with `message` (never returns). Called from any thread.
  std::function<void(const std::string& message)> fatal;
  // Writes a line to the library's log (level: 0 debug, 1 info, 2 warning). Backends are
  // loaded as plugins with no logger of their own.
  std::function<void(int level, const std::string& message)> log;
};

class RemoteTransport {
 public:
  virtual ~RemoteTransport() = default;
  virtual const char* name() const noexcept = 0;
  // What the transport chose, for shmem-info and SHMEM_INFO ("ucx 1.13.1: tcp (eth0) ...").
  virtual std::string describe() const = 0;

  // Blocking forms return when the local buffer may be reused (put) or holds the data (get);
  // nbi forms return at once and complete at quiet. `op` names the caller for messages.
  virtual void put(int pe, Seg seg, std::uint64_t off, const void* src, std::size_t bytes, bool nbi,
                   const char* op) noexcept = 0;
  virtual void get(int pe, Seg seg, std::uint64_t off, void* dst, std::size_t bytes, bool nbi,
                   const char* op) noexcept = 0;
  // width is 4 or 8. Fetching operations return the old value; with `fetch_to` set the call is
  // nonblocking and the old value is stored there by quiet.
  virtual std::uint64_t amo(int pe, Seg seg, std::uint64_t off, AmoOp amo_op, std::size_t width,
                            std::uint64_t value, std::uint64_t cond, void* fetch_to, const char* op) noexcept = 0;
  // The library's own signal (barrier rounds, the leader channel's counters): a non-fetching
  // 64-bit add that PE `pe` waits for. Ordered after everything issued to `pe` before it, like
  // any operation; but quiet need not complete it (what waits for it is its target), so a
  // quiet after a barrier owes no round trip for the barrier's own messages.
  virtual void signal_add(int pe, Seg seg, std::uint64_t off, std::uint64_t value, const char* op) noexcept {
    amo(pe, seg, off, AmoOp::kAdd, 8, value, 0, nullptr, op);
  }
  // Orders every operation issued before it before every one issued after it (per target).
  virtual void fence() noexcept = 0;
  // Completes every operation issued so far (all targets); `pe` >= 0 completes only that target's.
  virtual void quiet(int pe = -1) noexcept = 0;
  // Drives the transport once (waits call it while they spin, when it needs driving).
  // `continual`: the caller polls again within microseconds (a wait that spins or yields, a
  // polling loop), so the transport may leave serving its peers to these calls; false: a wait
  // that sleeps between polls (after core/wait.hpp's kYieldOnlyS), which must not keep a
  // progress thread away.
  virtual void progress(bool continual) noexcept = 0;
  // A wait that has nothing to do but wait for the network gives its CPU away: sched_yield,
  // or, where the transport found yields to cost a time slice, a sleep of at most `max_ns`
  // that its next event ends early (what it waits for from another host then wakes it).
  virtual void idle(long max_ns) noexcept {
    (void)max_ns;
    sched_yield();
  }
  // A word the application's waits bump as they begin (relaxed; core/wait.hpp), or nullptr: a
  // progress thread reads in it that the application is in the library even when its waits
  // find their data already there and never poll (which they do when the thread delivered it,
  // so that the thread would go on waking for every message).
  virtual std::atomic<std::uint32_t>* activity() noexcept { return nullptr; }
  // True when waits on local memory must call progress() to see remote updates (no progress
  // thread, and the transport emulates RMA in software).
  virtual bool waits_need_progress() const noexcept = 0;
  // Registers this PE's part of the heap from Setup::heap_lazy_from on and publishes its key;
  // once per PE (later calls return at once). The core calls it where this PE is about to be
  // written there by other hosts: a host leader of a team or an active set that spans hosts, or
  // of the host's address table. An operation there towards a peer that has not called it yet
  // waits until it has (a collective's peer that has not entered it).
  virtual void expose_lazy() noexcept = 0;
  // Finalize has begun (this PE is past its last data-path call): from now on a peer that
  // disconnects has left, not failed, and the transport serves its peers by itself until it is
  // destroyed (finalize's rendezvous drives nothing).
  virtual void closing() noexcept = 0;
};

// For shmem-info: what each backend found in `plugin_dir` would use on this host, one line
// each ("ucx 1.13.1 (/usr/lib/libshmem_transport_ucx.so): tcp/eth0, tcp/lo").
std::vector<std::string> probe_remote(const std::string& plugin_dir);
// Creates the transport named by `which` (kAuto or kUcx; kNone throws); collective over every PE of the
// job (all call it, with the same `which`). Throws Error when unavailable or on failure.
std::unique_ptr<RemoteTransport> create_remote(TransportMode which, const Setup& setup);

}  // namespace shmem::transport
