#pragma once
// The Runtime: everything one job membership owns (configuration, store, heap, routes, teams,
// transports). The internal area's layout is in internal_area.hpp, contexts in ctx.hpp, the
// collectives' bookkeeping in coll_book.hpp.
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <mutex>
#include <string>
#include <vector>

#include "base/config.hpp"
#include "bootstrap/launch_env.hpp"
#include "bootstrap/store.hpp"
#include "core/addr_table.hpp"
#include "core/boot_data.hpp"
#include "core/boot_exchange.hpp"
#include "core/coll_book.hpp"
#include "core/ctx.hpp"
#include "core/heap_allocator.hpp"
#include "core/internal_area.hpp"
#include "core/job_watcher.hpp"
#include "core/lock_tickets.hpp"
#include "core/ops.hpp"
#include "core/segment.hpp"
#include "core/wait.hpp"
#include "core/xhost_area.hpp"
#include "transport/node.hpp"
#include "transport/route.hpp"
#include "transport/transport.hpp"
#include "shmem/device/state.hpp"

namespace shmem {

class Team;
class TeamSlots;
namespace core {
class GpuHeap;
}
class SetLayouts;
namespace bootstrap {
class PmixClient;
class HostRelay;
}

constexpr std::size_t kMaxHeapAlign = std::size_t{1} << 30;  // shmem_align supports up to 1 GiB

// Everything decided before a Runtime is built: configuration (environment plus overrides),
// how to reach the job's store, and for rank 0 of self-hosted modes the store server itself.
struct RuntimeSetup {
  Config cfg;
  bootstrap::LaunchSpec launch;
  int thread_level = 0;
  std::unique_ptr<bootstrap::StoreServer> server;  // hosted here when set (rank 0)
  // Started by a PMIx launcher: init's exchanges go through PMIx (core/boot_data_pmix.hpp) under
  // keys that begin with pmix_scope. The client outlives the Runtime (core/instances.cpp).
  bootstrap::PmixClient* pmix = nullptr;
  std::string pmix_scope;
  double connect_timeout_s = 0;
  double control_timeout_s = 0;
  std::uint64_t instance_id = 0;
};

// Owns everything one job membership needs: configuration, bootstrap store, heap, routes.
class Runtime {
 public:
  explicit Runtime(RuntimeSetup setup);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  int my_pe() const noexcept { return me_; }
  int n_pes() const noexcept { return npes_; }
  int thread_level() const noexcept { return thread_level_; }
  const Config& config() const noexcept { return cfg_; }
  bool checks() const noexcept { return checks_; }
  const WaitPolicy& wait_policy() const noexcept { return wait_; }
  Ctx* default_ctx() noexcept { return &default_ctx_; }
  // The contexts of shmem_ctx_create / shmem_team_create_ctx, owned here until destroyed.
  Ctx* add_ctx(std::unique_ptr<Ctx> c);
  // Destroys c if it is one of them (false: it is not, or no longer).
  bool remove_ctx(Ctx* c) noexcept;
  // Destroys the contexts created from team t (shmem_team_destroy destroys them with it) and
  // returns how many of them were created with SHMEM_CTX_PRIVATE.
  int remove_team_ctxs(const Team* t) noexcept;
  bootstrap::StoreClient* store() noexcept { return store_.get(); }
  // This PE ends its process for a job failure it told the store: if it relays its host's
  // store connection, the host's other PEs hear it first (bounded).
  void linger_for_host() noexcept;

  // Address of `addr` (a symmetric address in this PE's view) in `pe`'s memory as mapped here;
  // nullptr if `addr` is not symmetric or `pe` is not node-local.
  char* translate(const void* addr, int pe) const noexcept {
    const auto a = reinterpret_cast<std::uintptr_t>(addr);
    std::uintptr_t off = a - heap_lo_;
    if (off < heap_size_) return routes_[pe].heap ? routes_[pe].heap + off : nullptr;
    off = a - data_lo_;
    if (off < data_size_) return routes_[pe].data ? routes_[pe].data + off : nullptr;
    return nullptr;
  }
  // translate() for `bytes` bytes from `addr` (bytes >= 1): also sets *past_end when they run
  // past the end of the region addr lies in (the user part of the heap, or the static data):
  // the one comparison that keeps a put of any size from writing beyond the peer's heap.
  char* translate_span(const void* addr, std::size_t bytes, int pe, bool* past_end) const noexcept {
    const auto a = reinterpret_cast<std::uintptr_t>(addr);
    std::uintptr_t off = a - heap_lo_;
    if (off < heap_size_) {
      *past_end = bytes > heap_end_ - off;
      return routes_[pe].heap ? routes_[pe].heap + off : nullptr;
    }
    off = a - data_lo_;
    if (off < data_size_) {
      *past_end = bytes > data_size_ - off;
      return routes_[pe].data ? routes_[pe].data + off : nullptr;
    }
    *past_end = false;
    return nullptr;
  }
  // Bytes from a symmetric `addr` to the end of its region (heap or static data), and the
  // region's name; 0 when addr is not symmetric.
  std::size_t room_after(const void* addr, const char** region) const noexcept;
  bool is_symmetric(const void* addr, std::size_t bytes) const noexcept;
  const PeerRoute& route(int pe) const noexcept { return routes_[pe]; }
  // The transport to PEs on other hosts (nullptr when every PE is node-local).
  transport::RemoteTransport* remote() const noexcept { return remote_.get(); }
  bool is_local(int pe) const noexcept { return routes_[pe].heap != nullptr; }
  // Where a symmetric address lies, as (segment, offset) for a remote transport; false when it
  // is not symmetric.
  bool symmetric_offset(const void* addr, transport::Seg* seg, std::uint64_t* off) const noexcept {
    const auto a = reinterpret_cast<std::uintptr_t>(addr);
    if (a - heap_lo_ < heap_size_) {
      *seg = transport::Seg::kHeap;
      *off = a - heap_lo_;
      return true;
    }
    if (a - data_lo_ < data_size_) {
      *seg = transport::Seg::kData;
      *off = a - data_lo_;
      return true;
    }
    return false;
  }
  // The host name of every PE (as the PEs reported them at init), from the host table.
  // Before init has the whole table (the host leaders' ring carries it), other hosts' PEs are
  // named as not known yet.
  const std::string& host_of(int pe) const noexcept {
    static const std::string unknown = "not known yet";
    if (host_index_.empty()) return host_table_[0].contains(pe) ? host_table_[0].name : unknown;
    return host_table_[static_cast<std::size_t>(host_index_[static_cast<std::size_t>(pe)])].name;
  }
  // Finalize: every PE has passed its last data-path call; peers leaving is no longer a failure.
  void close_transport() noexcept;
  InternalArea& internal(int pe) const noexcept {
    return *reinterpret_cast<InternalArea*>(routes_[pe].heap);
  }
  BcastRings& rings(int pe) const noexcept { return *reinterpret_cast<BcastRings*>(routes_[pe].heap + kRingsOffset); }
  TeamPushArea& team_push(int pe) const noexcept {
    return *reinterpret_cast<TeamPushArea*>(routes_[pe].heap + kTeamPushOffset);
  }
  // Between hosts: the lowest world PE on pe's host (0 for everyone in a single-host job), the
  // same on every PE.
  int node_of(int pe) const noexcept { return node_of_.empty() ? 0 : node_of_[static_cast<std::size_t>(pe)]; }
  // The cross-host collective area (core/xhost_area.hpp), as offsets from the heap's base (the same
  // on every PE), and as mapped here for node-local PEs (nullptr otherwise).
  std::size_t x_slot_off(int slot) const noexcept { return x_off_ + x_plan_.slot_start(slot); }
  std::size_t x_slot_bytes(int slot) const noexcept { return x_plan_.slot_bytes(slot); }
  std::size_t x_set_off() const noexcept { return x_off_ + x_plan_.slot_start(kMaxTeams); }
  char* heap_at(int pe, std::size_t off) const noexcept { return routes_[pe].heap ? routes_[pe].heap + off : nullptr; }
  char* my_heap() const noexcept { return reinterpret_cast<char*>(heap_lo_); }  // heap_at(my_pe(), 0)
  // This PE's sides of the active-set channel: bytes sent to / taken from each world PE.
  std::vector<XPair>& x_set_pairs() noexcept { return x_set_pairs_; }
  RingBook& ring_book() noexcept { return ring_book_; }
  // Tickets held on locks whose home is on another host (core/lock_tickets.hpp).
  LockTickets& lock_tickets() noexcept { return lock_tickets_; }
  const RingBook& ring_book() const noexcept { return ring_book_; }
  // Describes an address for messages: "0x7f.. (symmetric heap +0x40)", "0x7f.. (static data
  // +0x10)" or "0x7f.. (outside ...)"; without the address, "symmetric heap +0x40" (the same on
  // every PE, where the address may differ).
  std::string describe(const void* addr, bool with_address = true) const;

  // Heap (collective calls; the caller holds no lock).
  void* heap_alloc(std::size_t size, std::size_t alignment, const char* func);
  void heap_free(void* p, const char* func);
  void* heap_realloc(void* p, std::size_t size, const char* func);

  void barrier() noexcept;  // sync of the world team (quiet is the caller's job)
  Team* world_team() const noexcept { return world_team_; }
  Team* shared_team() const noexcept { return shared_team_; }
  // Team registry (collective creation is in team.cpp).
  Team* add_team(std::unique_ptr<Team> t);
  void remove_team(Team* t) noexcept;
  // The team this PE holds in a slot (nullptr: none); lock-free.
  Team* team_in_slot(int slot) noexcept;
  // The live team with this handle value (Team::handle), or nullptr: lock-free, for every call
  // that takes a team.
  Team* team_by_handle(std::uintptr_t handle) noexcept;
  TeamSlots& team_slots() noexcept { return *slots_; }
  // The host layouts of active sets that span hosts (core/set_layouts.hpp).
  SetLayouts& set_layouts() noexcept { return *set_layouts_; }
  std::mutex& teams_mutex() noexcept { return teams_mu_; }
  std::string job_id() const { return job_id_; }
  std::uint64_t instance_id() const noexcept { return instance_id_; }
  const device::State& device_state() const noexcept { return device_; }
  void finalize() noexcept;
  // The GPU symmetric heap (core/gpu_heap.hpp): nullptr until a GPU allocation created it.
  core::GpuHeap* gpu() const noexcept { return gpu_.get(); }
  // Takes the GPU heap (or drops it: nullptr) and enters every live team in its device team table.
  void set_gpu(std::unique_ptr<core::GpuHeap> heap) noexcept;
  // Collective: passes fd (of `bytes`) and two words of note to every PE in `peers` (node-local
  // PEs) and returns theirs (a peer's note in its data.size and data.addr), over the
  // authenticated node-local exchange; tag names this exchange (unique).
  std::vector<transport::PeerSegments> exchange_node_fd(const std::string& tag, int fd, std::uint64_t bytes,
                                                        const std::uint64_t (&note)[2], const std::vector<int>& peers);
  // Every PE's string, in PE order (collective, over the store or PMIx: core/boot_data.hpp; tag
  // unique per call).
  std::vector<std::string> store_allgather(const std::string& tag, const std::string& mine);
  // The process exits (exit(status) or a return from main) without having finalized this
  // runtime: status != 0 tells the job this PE left; status 0 finalizes implicitly, on a
  // rendezvous of its own, and ends the job if the other PEs do not all reach finalize soon
  // (core/lifecycle.cpp).
  // wait_for_all (shmemx_finalize_at_exit): status 0 is a plain finalize, without the deadline.
  void leave_at_exit(int status, bool wait_for_all = false) noexcept;

  [[noreturn]] void abort_job(int status) noexcept;

 private:
  void connect_peers();
  void start_transport(const std::vector<char>& remote);
  // This PE's host (core/boot_exchange.hpp), from every PE's NodeKey through boot_; fills
  // host_table_ and host_index_ where the whole table is at hand (else complete_host_table).
  boot::HostSeen find_hosts();
  // After the node-local exchange: the whole host table, from the host's leader (core/runtime.cpp).
  void complete_host_table(char* area, bool leader, const std::function<std::optional<boot::HostTable>()>& leader_gets);
  // The terms of the launch mode for the first rendezvous' messages (core/arrivals.cpp).
  std::string arrival_terms() const;
  std::string unreachable_hint() const;
  // What a store that refuses connections after having listened means (StoreClient's `gone`):
  // not empty where this PE's store address came from a unique ID (core/arrivals.cpp).
  std::string gone_hint() const;
  void create_predefined_teams();
  // Enters team t in the GPU heap's device team table (live) or clears its entry; logs a failure
  // (kernels naming that team then report a bad argument).
  void gpu_team(const Team& t, bool live) noexcept;
  void build_device_state();
  void attach_wait_board();
  void agree_on_rings();
  void print_info() const;
  bool meet_to_finalize(bool at_exit) noexcept;
  void leave_job(int status, const std::string& reason) noexcept;
  void finish_finalize() noexcept;
  std::unique_ptr<bootstrap::HostRelay> open_host_relay(const bootstrap::LaunchSpec& launch);

  Config cfg_;
  int me_ = 0;
  int npes_ = 1;
  int thread_level_ = 0;
  bool checks_ = false;
  WaitPolicy wait_;
  Ctx default_ctx_;
  std::mutex ctxs_mu_;
  std::vector<std::unique_ptr<Ctx>> ctxs_;
  std::unique_ptr<bootstrap::StoreServer> store_server_;  // rank 0 under torchrun-style launch
  // Without oshrun: this host's shared store connection (bootstrap/host_relay.hpp). Outlives
  // store_ and watcher_, whose channels it carries; the owner's waits for the host's others.
  std::unique_ptr<bootstrap::HostRelay> host_relay_;
  std::unique_ptr<bootstrap::StoreClient> store_;
  std::unique_ptr<JobWatcher> watcher_;  // jobs without oshrun: ends this PE when the job fails
  Segment heap_;
  const DataSegment* data_ = nullptr;
  std::vector<Segment> peer_maps_;  // peers' heaps and data segments mapped here
  std::vector<PeerRoute> routes_;
  boot::HostTable host_table_;                     // every host, from PE 0 at init (this host alone before)
  std::vector<int> host_index_;                    // by PE: its host in host_table_ (empty in a single-PE job)
  std::unique_ptr<core::BootData> boot_;           // init's exchanges; lent to remote_, which it outlives
  std::unique_ptr<addr::TableExchange> addr_exchange_;  // over boot_ and the host's address table; lent to remote_
  std::unique_ptr<transport::RemoteTransport> remote_;
  std::uintptr_t heap_lo_ = 0, data_lo_ = 0;
  std::size_t heap_size_ = 0, data_size_ = 0;
  std::size_t heap_end_ = 0;  // offset of the end of the user heap (the cross-host area follows)
  std::mutex heap_mu_;
  HeapAllocator alloc_;
  bool finalized_ = false;
  std::uint64_t instance_id_ = 0;
  device::State device_;
  std::vector<char*> device_heaps_, device_data_;
  double connect_timeout_s_ = 0, control_timeout_s_ = 0;
  std::string job_id_;
  std::string secret_;
  const char* origin_ = "singleton";  // how the job started (bootstrap::LaunchSpec::origin)
  std::string launch_store_host_;
  std::uint16_t launch_store_port_ = 0;
  std::mutex teams_mu_;
  std::unique_ptr<TeamSlots> slots_;
  std::unique_ptr<SetLayouts> set_layouts_;
  std::vector<std::unique_ptr<Team>> teams_;
  std::array<std::atomic<Team*>, kMaxTeams> team_at_{};  // by slot (team_by_handle)
  std::array<std::uint32_t, kMaxTeams> slot_uses_{};     // teams the slot has held (handles)
  Team* world_team_ = nullptr;
  Team* shared_team_ = nullptr;
  RingBook ring_book_;
  std::vector<int> node_of_;
  std::size_t x_off_ = 0;
  XAreaPlan x_plan_;
  std::size_t addr_off_ = 0;  // the host's address table (core/addr_table.hpp), after the cross-host area
  std::vector<XPair> x_set_pairs_;
  std::unique_ptr<core::GpuHeap> gpu_;
  LockTickets lock_tickets_;
};

// The instance every API call serves (nullptr before init): written only by core/instances.cpp
// (under its process lock), read here on every data-path call as one load, inline.
namespace detail {
extern std::atomic<Runtime*> g_current;
}  // namespace detail
// The one accessor through which the C API reaches the current runtime (nullptr before init).
inline Runtime* current_runtime() noexcept { return detail::g_current.load(std::memory_order_acquire); }

}  // namespace shmem
