#include "core/runtime.hpp"
#include "core/deadlock.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <thread>

#include "bootstrap/launch_env.hpp"
#include "bootstrap/host_relay.hpp"
#include "bootstrap/store.hpp"
#include "bootstrap/store_fd.hpp"
#include "base/error.hpp"
#include "base/log.hpp"
#include "core/arrivals.hpp"
#include "core/boot_data_pmix.hpp"
#include "core/boot_data_store.hpp"
#include "core/boot_exchange.hpp"
#include "core/cpus.hpp"
#include "core/gpu_heap.hpp"
#include "core/heap_limits.hpp"
#include "core/set_layouts.hpp"
#include "core/team.hpp"
#include "transport/transport.hpp"
#include "transport/node.hpp"
#include "util/fd_limit.hpp"

namespace shmem {

namespace {
std::string hostname() {
  char h[256] = {};
  gethostname(h, sizeof h - 1);
  return h;
}

bootstrap::Millis to_ms(double s) { return bootstrap::Millis(static_cast<long long>(s * 1000)); }

}  // namespace

Runtime::Runtime(RuntimeSetup setup)
    : cfg_(std::move(setup.cfg)), alloc_(cfg_.symmetric_size) {
  log::configure(cfg_.log_level.c_str(), cfg_.log_file.empty() ? nullptr : cfg_.log_file.c_str());
  const int requested_thread_level = setup.thread_level;
  thread_level_ = requested_thread_level < 0 ? 0 : (requested_thread_level > 3 ? 3 : requested_thread_level);
#ifdef SHMEM_CHECKED_BUILD
  checks_ = true;
#else
  checks_ = cfg_.debug;
#endif
  bootstrap::LaunchSpec& launch = setup.launch;
  me_ = launch.pe;
  npes_ = launch.npes;
  job_id_ = launch.job_id;
  secret_ = launch.tls.secret;
  origin_ = launch.origin;
  launch_store_host_ = launch.store_host;
  launch_store_port_ = launch.store_port;
  instance_id_ = setup.instance_id;
  connect_timeout_s_ = setup.connect_timeout_s > 0 ? setup.connect_timeout_s : cfg_.bootstrap_timeout;
  control_timeout_s_ = setup.control_timeout_s > 0 ? setup.control_timeout_s : cfg_.bootstrap_timeout;
  log::set_identity(me_, npes_);
  default_ctx_.rt = this;

  data_ = &remap_data_segment();
  data_lo_ = reinterpret_cast<std::uintptr_t>(data_->base);
  data_size_ = data_->size;
  // User objects start kInternalBytes in; aligning that point to kMaxHeapAlign makes every
  // alignment up to it a property of the (symmetric) offset alone.
  // After the user heap, the cross-host collective area (core/xhost_area.hpp), sparse like the rest.
  x_off_ = (kInternalBytes + cfg_.symmetric_size + 4095) & ~std::size_t{4095};
  x_plan_ = x_area_plan(npes_);
  const std::size_t x_bytes = npes_ > 1 ? x_plan_.slot_start(kMaxTeams) + x_set_bytes(npes_) : 0;
  // Then the host's address table (core/addr_table.hpp): touched only on host leaders.
  addr_off_ = (x_off_ + x_bytes + 4095) & ~std::size_t{4095};
  heap_ = Segment::create("shmem-heap", addr_off_ + addr::table_bytes(npes_), kMaxHeapAlign, kInternalBytes);
  heap_lo_ = reinterpret_cast<std::uintptr_t>(heap_.map.data());
  heap_size_ = heap_.size;
  heap_end_ = kInternalBytes + cfg_.symmetric_size;
  core::warn_if_heap_exceeds_memory(cfg_.symmetric_size, me_);
  routes_.resize(static_cast<std::size_t>(npes_));
  host_table_.assign(1, boot::HostEntry{hostname(), {{0, 0}}, false});
  routes_[me_].heap = heap_.map.bytes();
  routes_[me_].data = data_->base;

  // Affinity mask and cgroup quota (core/cpus.hpp), this PE's alone; with peers,
  // connect_peers() decides again from those of every PE under this kernel.
  wait_.oversubscribed = cpus::pes_outnumber_cpus(npes_);
  wait_.configure_spin(cfg_.wait_spin);
  wait_.timeout_s = cfg_.wait_timeout;
  deadlock::attach(wait_, this, cfg_.coll_check_after);
  wait_.threads_share = thread_level_ == 3;  // SHMEM_THREAD_MULTIPLE (core/wait.hpp)

  if (npes_ > 1) {
    store_server_ = std::move(setup.server);
    if (launch.host_store && !store_server_) {
      bootstrap::StoreServer::Options o;
      o.bind_host = launch.store_host;
      o.port = launch.store_port;
      o.tls = launch.tls;
      o.linger_on_failure = bootstrap::Millis(3000);
      try {
        store_server_ = std::make_unique<bootstrap::StoreServer>(std::move(o));
      } catch (const Error& e) {
        bootstrap::store_host_failed(launch, e);  // another process claiming this rank holds the port?
      }
    }
    // Under oshrun: over the socketpair that oshrun's store serves (a PE on its host) or that
    // this host's agent relays (one store connection per host; the agent watches the store's
    // host for its PEs, bootstrap/store_relay.hpp).
    util::UniqueFd relay = std::string_view(launch.origin) == "oshrun" ? bootstrap::take_store_fd() : util::UniqueFd();
    const bool relayed = static_cast<bool>(relay);
    const std::string where = launch.store_host + ":" + std::to_string(launch.store_port);
    // Without oshrun: through this host's relay, one store connection per host (the first PE
    // here makes it, bootstrap/host_relay.hpp), or on its own connection.
    if (std::string_view(launch.origin) != "oshrun" && cfg_.store_relay) host_relay_ = open_host_relay(launch);
    if (relayed)
      store_ = std::make_unique<bootstrap::StoreClient>(std::move(relay), where + " (over SHMEM_STORE_FD)", me_, npes_);
    else if (host_relay_)
      store_ = std::make_unique<bootstrap::StoreClient>(
          host_relay_->take_store(),
          where + " (through PE " + std::to_string(host_relay_->owner_pe()) + "'s relay on this host)", me_, npes_);
    else
      store_ =
          std::make_unique<bootstrap::StoreClient>(launch.store_host, launch.store_port, launch.tls, me_,
                                                   to_ms(connect_timeout_s_), npes_, unreachable_hint(), gone_hint());
    if (host_relay_) {
      bootstrap::HostRelay* hr = host_relay_.get();
      watcher_ =
          std::make_unique<JobWatcher>(std::make_unique<bootstrap::StoreClient>(hr->take_watcher(), where, -1, 0), me_,
                                       store_server_.get(), launch.on_job_failed, hr);
    } else if (std::string_view(launch.origin) != "oshrun") {  // oshrun ends the job itself
      watcher_ = std::make_unique<JobWatcher>(launch.store_host, launch.store_port, launch.tls, me_,
                                              to_ms(connect_timeout_s_), store_server_.get(), launch.on_job_failed);
    }
    if (setup.pmix)
      boot_ = std::make_unique<core::PmixBootData>(*setup.pmix, setup.pmix_scope, me_, npes_, control_timeout_s_);
    else
      boot_ = std::make_unique<core::StoreBootData>(
          core::ArrivalWait{store_.get(), me_, npes_, control_timeout_s_, arrival_terms(), origin_},
          to_ms(control_timeout_s_));
    connect_peers();
    // oshrun ends a single-host job itself; a PE with peers on other hosts also watches the
    // store, so that losing the launcher's host (a link down) ends it too, unless oshrun
    // gave it its store connection: then oshrun, or this host's agent, watches for it.
    if (!watcher_ && remote_ && !relayed)
      watcher_ = std::make_unique<JobWatcher>(launch.store_host, launch.store_port, launch.tls, me_,
                                              to_ms(connect_timeout_s_), store_server_.get(), launch.on_job_failed);
  }
  attach_wait_board();
  create_predefined_teams();
  agree_on_rings();
  build_device_state();
  if (me_ == 0 && (cfg_.info || cfg_.version)) print_info();
  // The store's host lets nobody start before every PE's job watcher is waiting on the store:
  // a failure right after init must reach them all before the host process might exit.
  if (watcher_ && store_server_ && !store_server_->wait_for_blocked(static_cast<std::size_t>(npes_),
                                                                     to_ms(connect_timeout_s_)))
    SHMEM_WARN("init", "not every PE's job watcher reached the bootstrap store in time; a failing PE may leave "
                       "others to notice it later");
  barrier();
  // Every PE of the job has its store channels by now (each passed init's exchanges).
  if (host_relay_) host_relay_->close_door();
}

void Runtime::linger_for_host() noexcept {
  if (host_relay_) host_relay_->linger(bootstrap::Millis(3000));
}

std::unique_ptr<bootstrap::HostRelay> Runtime::open_host_relay(const bootstrap::LaunchSpec& launch) {
  bootstrap::HostRelay::Options o;
  o.relay.store_host = launch.store_host;
  o.relay.store_port = launch.store_port;
  o.relay.tls = launch.tls;
  o.relay.connect_timeout = to_ms(connect_timeout_s_);
  o.relay.host = hostname();
  o.relay.unreachable = unreachable_hint();
  o.relay.gone = gone_hint();
  o.job = launch.job_id + "/" + std::to_string(npes_);
  o.rank = me_;
  return bootstrap::HostRelay::open(o);
}

void Runtime::attach_wait_board() {
  std::vector<WaitBoard::Other> others;
  for (int pe = 0; pe < npes_; ++pe)
    if (pe != me_ && routes_[pe].local())
      others.push_back({reinterpret_cast<const WaitSlot*>(routes_[pe].heap + kWaitSlotOffset), pe > me_});
  wait_.board.attach(reinterpret_cast<WaitSlot*>(routes_[me_].heap + kWaitSlotOffset), std::move(others));
}

void Runtime::build_device_state() {
  device_heaps_.resize(static_cast<std::size_t>(npes_));
  device_data_.resize(static_cast<std::size_t>(npes_));
  for (int pe = 0; pe < npes_; ++pe) {
    device_heaps_[static_cast<std::size_t>(pe)] = routes_[pe].heap;
    device_data_[static_cast<std::size_t>(pe)] = routes_[pe].data;
  }
  device_.my_pe = me_;
  device_.n_pes = npes_;
  device_.heap_lo = heap_lo_;
  device_.heap_size = heap_size_;
  device_.data_lo = data_lo_;
  device_.data_size = data_size_;
  device_.heap = device_heaps_.data();
  device_.data = device_data_.data();
  device_.remote = remote_ != nullptr;  // the device API's operations on other hosts' PEs
  device_.runtime = this;               // go through src/stream/device_remote.cpp
}

void Runtime::agree_on_rings() {
  const auto n = static_cast<std::size_t>(npes_);
  ring_book_.sent.assign(n, 0);
  ring_book_.credit.assign(n, 0);
  ring_book_.taken.assign(n, 0);
  // Every PE says whether it allows rings (SHMEM_COLL_RINGS, its thread level); all must.
  constexpr int kThreadMultiple = 3;  // SHMEM_THREAD_MULTIPLE
  const bool allowed =
      thread_level_ < kThreadMultiple &&
      (cfg_.coll_rings == CollRingsMode::kOn || (cfg_.coll_rings == CollRingsMode::kAuto && !wait_.oversubscribed));
  // Never between hosts; and there a vote over the world would read remote PEs (and make an
  // endpoint to each): every PE has a remote peer or none, so all skip it alike.
  if (npes_ == 1 || remote_) {
    ring_book_.usable = false;
    return;
  }
  const std::uint64_t mine = allowed ? 1 : 0;
  std::uint64_t all = 0;
  world_team_->and_words(&mine, 1, &all);
  ring_book_.usable = all == 1;
}

void Runtime::create_predefined_teams() {
  slots_ = std::make_unique<TeamSlots>();
  set_layouts_ = std::make_unique<SetLayouts>();
  std::vector<int> all(static_cast<std::size_t>(npes_)), local;
  for (int pe = 0; pe < npes_; ++pe) {
    all[static_cast<std::size_t>(pe)] = pe;
    if (routes_[pe].local()) local.push_back(pe);
  }
  slots_->take(0);
  slots_->take(1);
  world_team_ = add_team(std::make_unique<Team>(*this, 0, std::move(all), true, "shmem_init"));
  shared_team_ = add_team(std::make_unique<Team>(*this, 1, std::move(local), true, "shmem_init"));
  default_ctx_.team = world_team_;
}

std::vector<std::string> Runtime::store_allgather(const std::string& tag, const std::string& mine) {
  return boot_->allgather(tag, mine);
}

namespace {

// The kernel instance this process runs on: PEs can share memory only within one.
std::string boot_id() {
  char buf[64] = {};
  if (FILE* f = std::fopen("/proc/sys/kernel/random/boot_id", "r")) {
    if (!std::fgets(buf, sizeof buf, f)) buf[0] = 0;
    std::fclose(f);
  }
  std::string id = buf;
  while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
  return id;
}

// The network namespace this process runs in ("net:[4026531840]"; "" when unreadable): PEs
// reach each other's abstract Unix sockets only within one.
std::string netns_id() {
  char buf[64] = {};
  const ssize_t n = ::readlink("/proc/self/ns/net", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
}

}  // namespace

// Every PE's host: its key (host name, kernel, network namespace, CPU share) to boot_, its
// host's entry back (core/boot_data.hpp); the whole table too where that costs nothing (one
// host, PMIx), else connect_peers() has it from the host's leader.
boot::HostSeen Runtime::find_hosts() {
  const boot::NodeKey mine{hostname(), boot_id(), netns_id(), cpus::share()};
  boot::HostSeen seen = boot_->hosts(mine);
  host_index_.clear();
  if (seen.count == 1 || boot_->table_at_hand()) {
    host_table_ = seen.count == 1 ? boot::HostTable{seen.entry} : boot_->host_table();
    host_index_ = boot::host_index(host_table_, npes_);
  } else {
    host_table_ = boot::HostTable{seen.entry};  // this host alone, until the table comes
  }
  return seen;
}

// The whole host table where find_hosts() did not have it. `area`: the host leader's address
// table (nullptr where the host's PEs did not all meet: then every PE reads the store); the
// leader takes the table from `leader_gets` (the ring's lines, or the store: O(hosts) bytes per
// host, not per PE) and hands it to its PEs there; the store wherever that fails.
void Runtime::complete_host_table(char* area, bool leader,
                                  const std::function<std::optional<boot::HostTable>()>& leader_gets) {
  std::optional<boot::HostTable> t;
  if (area && leader) {
    t = leader_gets();
    if (!t) t = boot_->host_table();
    addr::put_hosts(area, npes_, boot::encode(*t));
  } else if (area) {
    if (auto text = addr::wait_hosts(*this, area, npes_)) t = boot::decode_table(*text, npes_);
  }
  host_table_ = t ? std::move(*t) : boot_->host_table();
  host_index_ = boot::host_index(host_table_, npes_);
}

// Node detection. PEs are node-local when they report the same host name, kernel and network
// namespace and the memfd exchange between them works: the exchange runs over abstract Unix
// sockets, which exist only within one network namespace, so PEs in two network namespaces (or
// two UTS namespaces, which give them different host names) are on different hosts. Everyone
// else is remote.
void Runtime::connect_peers() {
  const auto timeout = to_ms(control_timeout_s_);
  // PEs under one kernel share its CPUs even when they cannot map each other's memory
  // (containers, network namespaces), while PEs on other machines do not: whether PEs outnumber
  // CPUs is decided from the shares of every PE under each kernel (its boot id; "" when
  // unreadable, then every such PE counts as sharing one machine), by PE 0 or under PMIx by
  // every PE from the same keys, so that all decide alike.
  const boot::HostSeen seen = find_hosts();
  const int my_host = seen.index;
  const boot::HostEntry& here = seen.entry;
  std::vector<int> candidates;
  for (const auto& [first, last] : here.ranges)
    for (int pe = first; pe <= last; ++pe)
      if (pe != me_) candidates.push_back(pe);
  wait_.oversubscribed = here.oversubscribed;
  wait_.configure_spin(cfg_.wait_spin);
  if (job_id_.empty()) job_id_ = std::to_string(getppid());
  if (instance_id_ != 0) job_id_ += "-i" + std::to_string(instance_id_);
  auto ex = transport::listen_node(job_id_, me_, secret_);
  boot_->barrier("shm-listen");
  transport::SegmentDesc heap{heap_.fd.get(), heap_.size, heap_lo_};
  transport::SegmentDesc data{data_->fd, data_->size, data_lo_};
  auto segs = ex->exchange(candidates, heap, data, timeout);
  const bool reached_all = segs.size() == candidates.size();
  for (auto& s : segs) {
    if (s.heap.size != heap_.size)
      throw Error(Errc::kInvalidValue, "PE " + std::to_string(s.pe) + " has a symmetric heap of " +
                                           std::to_string(s.heap.size) + " bytes and PE " + std::to_string(me_) +
                                           " of " + std::to_string(heap_.size) +
                                           ": every PE must use the same SHMEM_SYMMETRIC_SIZE");
    if (s.data.size != data_->size)
      throw Error(Errc::kInvalidValue, "PE " + std::to_string(s.pe) +
                                           " runs a different executable (static data sizes differ): all PEs must run the same program");
    peer_maps_.push_back(Segment::attach(std::move(s.heap_fd), s.heap.size));
    routes_[s.pe].heap = peer_maps_.back().map.bytes();
    if (s.data_fd) {
      peer_maps_.push_back(Segment::attach(std::move(s.data_fd), s.data.size));
      routes_[s.pe].data = peer_maps_.back().map.bytes();
    }
  }
  std::vector<char> remote(static_cast<std::size_t>(npes_), 0);
  bool any_remote = false;
  for (int pe = 0; pe < npes_; ++pe)
    if (pe != me_ && !routes_[pe].local()) remote[static_cast<std::size_t>(pe)] = 1, any_remote = true;
  // Node-locality is an equivalence relation, so either every PE has a remote peer or none has.
  if (!any_remote) return;
  // Every PE's host, as the lowest world PE on it (hierarchical collectives group by it): the
  // table's, unless some PE could not reach a PE of its host (PEs of one host started with
  // different job ids, e.g. by different parents): then each PE's lowest reachable one, which
  // takes an allgather (through the store: O(N^2) bytes, for that case only).
  int lowest = me_;
  for (int pe = 0; pe < me_; ++pe)
    if (routes_[pe].local()) lowest = std::min(lowest, pe);
  node_of_.resize(static_cast<std::size_t>(npes_));
  const bool placed = boot_->all_placed(reached_all);
  const int leader = here.lowest();
  // The whole host table: at hand already (one host, PMIx), carried round by the host leaders'
  // ring below with the addresses (O(N) store bytes in all), or read from the store by the
  // leader (a host's line too long for the ring) or, where PEs did not all meet, by every PE.
  const bool by_ring = placed && host_index_.empty() && seen.ring_table;
  char* table = placed ? routes_[leader].heap + addr_off_ : nullptr;
  if (host_index_.empty() && !by_ring)
    complete_host_table(table, leader == me_, [&] { return std::optional<boot::HostTable>(boot_->host_table()); });
  if (!placed) {
    const auto ids = boot_->allgather("host-id", std::to_string(lowest));
    for (int pe = 0; pe < npes_; ++pe)
      node_of_[static_cast<std::size_t>(pe)] = std::stoi(ids[static_cast<std::size_t>(pe)]);
  }
  // What a wait for another host depends on also runs on threads the wait board cannot see
  // (the transport's progress thread, the kernel's network processing): after the spin, hand
  // the CPU over as with SHMEM_THREAD_MULTIPLE rather than spin on. (Spinning on doubled the
  // cross-host get and put+quiet latencies: 24-30 -> 50-56 us, bench/perf.c on 2 hosts.)
  wait_.threads_share = true;
  x_set_pairs_.assign(static_cast<std::size_t>(npes_), XPair{});
  // UCX over TCP holds a socket or two per remote peer it talks to: raise the soft open-file
  // limit to what talking to all of them needs; the lowest PE of each host says so when the
  // hard limit is too low.
  std::uint64_t nremote = 0;
  for (char r : remote) nremote += r != 0;
  const std::uint64_t fds = 3 * nremote + 256;
  const util::FdLimit lim = util::raise_fd_limit(fds);
  if (!lim.enough && lowest == me_)
    SHMEM_WARN("init", "%s", util::fd_limit_advice(lim, fds, "PE " + std::to_string(me_), "3 per remote PE").c_str());
  // The transport's addresses: through the host leaders' table where the host table holds
  // (every PE reached its host's PEs), else through the store alone.
  addr_exchange_ = std::make_unique<addr::TableExchange>(*boot_, table, me_);
  start_transport(remote);
  // A host leader's collective area takes the other leaders' writes from here on (the address
  // table now, the world team's channel next); nobody else's does until it leads some team.
  if (leader == me_) remote_->expose_lazy();
  if (table && leader == me_)
    addr::share(*this, *remote_,
                addr::Ring{my_host, seen.count, seen.next_leader, &here, by_ring ? nullptr : &host_table_}, table,
                npes_, addr_off_);
  if (by_ring) complete_host_table(table, leader == me_, [&] { return addr::ring_hosts(table, npes_, seen.count); });
  if (placed)
    for (int pe = 0; pe < npes_; ++pe)
      node_of_[static_cast<std::size_t>(pe)] =
          host_table_[static_cast<std::size_t>(host_index_[static_cast<std::size_t>(pe)])].lowest();
}

void Runtime::start_transport(const std::vector<char>& remote) {
  transport::Setup s;
  s.me = me_;
  s.npes = npes_;
  s.remote = remote;
  s.host_of = [this](int pe) { return host_of(pe); };
  s.heap_base = heap_.map.data();
  s.heap_size = heap_.size;
  s.data_base = data_->base;
  s.data_size = data_->size;
  s.heap_lazy_from = x_off_;  // the cross-host areas and the address table: where used
  s.lazy_key_off = kLazyKeyOffset;
  s.lazy_key_bytes = kLazyKeyBytes;
  s.wait_timeout_s = cfg_.wait_timeout;
  s.thread_level = thread_level_;
  s.progress_thread = cfg_.progress_thread;
  s.pes_outnumber_cpus = wait_.oversubscribed;
  s.exchange = addr_exchange_.get();
  s.fatal = [this](const std::string& msg) {
    log::write(log::Level::kFatal, "transport", "%s", msg.c_str());
    abort_job(1);
  };
  s.log = [](int level, const std::string& msg) {
    const log::Level l = level <= 0 ? log::Level::kDebug : level == 1 ? log::Level::kInfo : log::Level::kWarn;
    if (log::enabled(l)) log::write(l, "transport", "%s", msg.c_str());
  };
  remote_ = transport::create_remote(cfg_.transport, s);
  for (int pe = 0; pe < npes_; ++pe)
    if (remote[static_cast<std::size_t>(pe)]) routes_[pe].remote = remote_.get();
  if (remote_->waits_need_progress()) {
    wait_.poll = [](void* t, bool continual) { static_cast<transport::RemoteTransport*>(t)->progress(continual); };
    wait_.poll_arg = remote_.get();
    wait_.idle = [](void* t, long max_ns) { static_cast<transport::RemoteTransport*>(t)->idle(max_ns); };
    wait_.activity = remote_->activity();
  }
  int nlocal = 1;
  for (int pe = 0; pe < npes_; ++pe) nlocal += pe != me_ && routes_[pe].local();
  SHMEM_INFO_LOG("init", "PE %d on host '%s': %d node-local PE%s over shared memory, %d remote over %s", me_,
                 host_of(me_).c_str(), nlocal, nlocal == 1 ? "" : "s", npes_ - nlocal, remote_->describe().c_str());
}

// Called before finalize's store rendezvous, which no PE passes before every PE has called
// this: so no PE tears UCX down while a peer would still report its departure as a failure.
void Runtime::close_transport() noexcept {
  if (addr_exchange_)
    SHMEM_INFO_LOG("finalize", "PE %d: %llu transport address%s fetched from the bootstrap store", me_,
                   static_cast<unsigned long long>(addr_exchange_->store_fetches()),
                   addr_exchange_->store_fetches() == 1 ? "" : "es");
  if (remote_) remote_->closing();
}

Runtime::~Runtime() = default;

bool Runtime::is_symmetric(const void* addr, std::size_t bytes) const noexcept {
  const auto a = reinterpret_cast<std::uintptr_t>(addr);
  const std::uintptr_t user_lo = heap_lo_ + kInternalBytes;
  if (a >= user_lo && a < heap_lo_ + heap_size_) {
    auto& self = const_cast<Runtime&>(*this);
    std::lock_guard<std::mutex> g(self.heap_mu_);
    return alloc_.find_containing(a - user_lo, bytes ? bytes : 1).has_value();
  }
  if (a >= data_lo_ && a < data_lo_ + data_size_) return a + bytes <= data_lo_ + data_size_;
  return false;
}

std::size_t Runtime::room_after(const void* addr, const char** region) const noexcept {
  const auto a = reinterpret_cast<std::uintptr_t>(addr);
  if (a - heap_lo_ < heap_size_) {
    *region = "symmetric heap";
    return a - heap_lo_ < heap_end_ ? heap_lo_ + heap_end_ - a : 0;
  }
  if (a - data_lo_ < data_size_) {
    *region = "static data";
    return data_lo_ + data_size_ - a;
  }
  *region = "";
  return 0;
}

std::string Runtime::describe(const void* addr, bool with_address) const {
  const auto a = reinterpret_cast<std::uintptr_t>(addr);
  char buf[96];
  const char* where = nullptr;
  std::size_t off = 0;
  if (a >= heap_lo_ + kInternalBytes && a < heap_lo_ + heap_size_) {
    where = "symmetric heap";
    off = a - heap_lo_ - kInternalBytes;
  } else if (a >= heap_lo_ && a < heap_lo_ + heap_size_) {
    where = "runtime-internal area";
    off = a - heap_lo_;
  } else if (a >= data_lo_ && a < data_lo_ + data_size_) {
    where = "static data";
    off = a - data_lo_;
  }
  if (where != nullptr && with_address)
    std::snprintf(buf, sizeof buf, "%p (%s +0x%zx)", addr, where, off);
  else if (where != nullptr)
    std::snprintf(buf, sizeof buf, "%s +0x%zx", where, off);
  else
    std::snprintf(buf, sizeof buf, "%p (outside the symmetric heap and static data)", addr);
  return buf;
}

void Runtime::print_info() const {
  std::printf("%s, OpenSHMEM 1.6, %d PE%s, symmetric heap %zu bytes per PE\n", core::library_name(), npes_,
              npes_ == 1 ? "" : "s", static_cast<std::size_t>(cfg_.symmetric_size));
  int nlocal = 0;
  for (int pe = 0; pe < npes_; ++pe) nlocal += routes_[pe].local();
  std::printf("Transports: %d PE%s on this host over shared memory", nlocal, nlocal == 1 ? "" : "s");
  if (remote_) std::printf("; %d on other hosts over %s", npes_ - nlocal, remote_->describe().c_str());
  std::printf("\n");
  if (cfg_.info) {
    std::printf("Environment variables:\n");
    for (const auto& v : config_vars()) {
      std::string value = config_raw(v.name);
      if (std::strcmp(v.name, "SHMEM_JOB_SECRET") == 0 && !value.empty()) value = "(set, hidden)";
      std::printf("  %-26s = %-12s %s\n", v.name, value.c_str(), v.description);
    }
  }
  std::fflush(stdout);
}

void* Runtime::heap_alloc(std::size_t size, std::size_t alignment, const char* func) {
  if (size == 0) return nullptr;
  if (alignment > kMaxHeapAlign) {
    SHMEM_ERROR("heap", "%s: alignment %zu is larger than the supported maximum %zu", func, alignment, kMaxHeapAlign);
    barrier();
    return nullptr;
  }
  std::optional<std::size_t> off;
  {
    std::lock_guard<std::mutex> g(heap_mu_);
    off = alloc_.allocate(size, alignment);
    if (!off)
      SHMEM_ERROR("heap",
                  "%s(%zu): the symmetric heap is exhausted (%zu of %zu bytes in use, largest free block %zu); "
                  "raise SHMEM_SYMMETRIC_SIZE",
                  func, size, alloc_.bytes_in_use(), alloc_.capacity(), alloc_.largest_free());
  }
  barrier();
  return off ? reinterpret_cast<void*>(heap_lo_ + kInternalBytes + *off) : nullptr;
}

void Runtime::heap_free(void* p, const char* func) {
  if (!p) return;
  barrier();  // nobody may still be using the object
  std::lock_guard<std::mutex> g(heap_mu_);
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  if (a < heap_lo_ + kInternalBytes || !alloc_.release(a - heap_lo_ - kInternalBytes))
    SHMEM_ERROR("heap", "%s(%p): not the start of a live symmetric allocation; ignored", func, p);
}

void* Runtime::heap_realloc(void* p, std::size_t size, const char* func) {
  if (!p) return heap_alloc(size, HeapAllocator::kMinAlign, func);
  if (size == 0) {
    heap_free(p, func);
    return nullptr;
  }
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  const std::size_t off = a - heap_lo_ - kInternalBytes;
  barrier();
  void* result = nullptr;
  {
    std::lock_guard<std::mutex> g(heap_mu_);
    const std::size_t old = alloc_.size_of(off);
    if (a < heap_lo_ + kInternalBytes || old == 0) {
      SHMEM_ERROR("heap", "%s(%p): not the start of a live symmetric allocation", func, p);
    } else if (alloc_.resize_in_place(off, size)) {
      result = p;
    } else if (auto n = alloc_.allocate(size)) {
      result = reinterpret_cast<void*>(heap_lo_ + kInternalBytes + *n);
      std::memcpy(result, p, std::min(old, size));
      alloc_.release(off);
    } else {
      SHMEM_ERROR("heap", "%s(%p, %zu): the symmetric heap is exhausted; raise SHMEM_SYMMETRIC_SIZE", func, p, size);
    }
  }
  barrier();
  return result;
}

}  // namespace shmem
