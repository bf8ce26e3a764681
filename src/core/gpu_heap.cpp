#include "core/gpu_heap.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>

#include "base/error.hpp"
#include "base/log.hpp"
#include "core/gpu_plugin.hpp"
#include "core/ops.hpp"
#include "core/runtime.hpp"
#include "core/team.hpp"
#include "util/mono_ns.hpp"

namespace shmem::core {
namespace {

namespace dc = device::cuda;
static_assert(dc::kGpuTeams >= kMaxTeams, "the device team table has an entry per team slot");

// One GPU heap per process: the device state (and the sinks it goes to) is process-wide.
std::atomic<bool> g_heap_taken{false};

// Every PE reports its error ("" when it went well); true on every PE alike when none failed,
// else false, and the lowest failing PE logs why. One and_words reduction over the world team
// (across hosts only the host leaders talk), nothing on the store; only after a failure does
// every PE gather one word per PE, to find the lowest failing one.
bool agree(Runtime& r, const std::string& error, const char* func) noexcept {
  const std::uint64_t mine = error.empty() ? 1 : 0;
  int lowest = error.empty() ? -1 : r.my_pe();
  if (r.n_pes() > 1) {
    std::uint64_t all = 0;
    r.world_team()->and_words(&mine, 1, &all);
    if (all == 1) return true;
    std::vector<std::uint64_t> oks(static_cast<std::size_t>(r.n_pes()));
    r.world_team()->allgather_words(&mine, 1, oks.data());
    lowest = static_cast<int>(std::find(oks.begin(), oks.end(), 0) - oks.begin());
  }
  if (lowest == r.my_pe()) SHMEM_ERROR("cuda", "%s: %s", func, error.c_str());
  return lowest < 0;
}

// The largest of every PE's granularity: a reduction when all agree (the usual case: one kind
// of GPU), a gather of one word per PE otherwise. The same on every PE.
std::size_t max_granularity(Runtime& r, std::size_t mine) noexcept {
  if (r.n_pes() == 1) return mine;
  if (r.world_team()->all_equal(mine)) return mine;
  const std::uint64_t word = mine;
  std::vector<std::uint64_t> each(static_cast<std::size_t>(r.n_pes()));
  r.world_team()->allgather_words(&word, 1, each.data());
  return static_cast<std::size_t>(*std::max_element(each.begin(), each.end()));
}

// A failed plugin call: its message, or a generic one.
std::string reason(const char* err) { return err[0] ? std::string(err) : std::string("CUDA plugin call failed"); }

}  // namespace

bool GpuHeap::open(const std::string& driver, int device, int local_rank, shmem_cuda_device_info* info,
                   std::string* error) {
  try {
    p_ = &cuda_plugin();
  } catch (const Error& e) {
    *error = e.what();
    return false;
  }
  char err[512] = "";
  if (p_->open(driver.c_str(), device, local_rank, &ctx_, info, err, sizeof err) != 0) {
    ctx_ = nullptr;
    *error = reason(err);
    return false;
  }
  return true;
}

std::unique_ptr<GpuHeap> GpuHeap::create(Runtime& r, const char* func) noexcept {
  try {
    // Process-wide (docs/design.md, "Process-wide state"): the tag names keys on the job's store,
    // which outlives a Runtime (init, finalize, init under one oshrun). The same on every PE:
    // creation is collective.
    static std::atomic<unsigned> generation{0};
    const std::string tag = "cuda" + std::to_string(generation.fetch_add(1));
    const Config& cfg = r.config();
    const int n = r.n_pes();
    std::unique_ptr<GpuHeap> h(new GpuHeap());
    h->local_index_.assign(static_cast<std::size_t>(n), -1);
    std::vector<int> locals;
    for (int pe = 0; pe < n; ++pe)
      if (pe == r.my_pe() || r.is_local(pe)) {
        h->local_index_[static_cast<std::size_t>(pe)] = static_cast<int>(locals.size());
        locals.push_back(pe);
      }
    const int my_local = h->local_index_[static_cast<std::size_t>(r.my_pe())];
    // 1. The driver and the device; every PE learns every device and granularity.
    std::string error;
    shmem_cuda_device_info info{};
    if (cfg.cuda_heap_size == 0) {
      error = "SHMEM_CUDA_HEAP_SIZE=0: no GPU heap (set it to the bytes of GPU heap per PE, e.g. 1G)";
    } else if (g_heap_taken.exchange(true)) {
      error = "another shmem instance of this process has the GPU heap already (one per process)";
    } else {
      h->claimed_ = true;
      h->open(cfg.cuda_driver, static_cast<int>(cfg.cuda_device), my_local, &info, &error);
    }
    if (!agree(r, error, func)) return nullptr;
    const std::size_t granularity = max_granularity(r, std::max<std::size_t>(1, info.granularity));
    const std::size_t bytes =
        gpu_round_up(std::max<std::size_t>(cfg.cuda_heap_size, dc::kGpuInternalBytes), granularity);
    // 2. This PE's heap, exported.
    char err[512] = "";
    int fd_raw = -1;
    if (h->p_->heap_create(h->ctx_, bytes, &h->heap_, &fd_raw, err, sizeof err) != 0) {
      h->heap_ = nullptr;
      error = reason(err);
    }
    util::UniqueFd fd(fd_raw);
    if (!agree(r, error, func)) return nullptr;
    // 3. Every node-local PE's descriptor and device (the authenticated node-local exchange;
    // the device's UUID is its note), mapped.
    std::vector<int> peers(locals);
    peers.erase(std::find(peers.begin(), peers.end(), r.my_pe()));
    std::uint64_t uuid_words[2];
    std::memcpy(uuid_words, info.uuid, sizeof uuid_words);
    auto segs = r.exchange_node_fd(tag, fd.get(), bytes, uuid_words, peers);
    std::vector<unsigned char> uuids(16 * locals.size());
    std::memcpy(&uuids[16 * static_cast<std::size_t>(my_local)], info.uuid, 16);
    std::vector<int> fds(locals.size(), -1);
    fds[static_cast<std::size_t>(my_local)] = fd.get();
    for (auto& s : segs) {
      if (s.heap.size != bytes)
        error = "PE " + std::to_string(s.pe) + " has a GPU heap of " + std::to_string(s.heap.size) + " bytes and PE " +
                std::to_string(r.my_pe()) + " of " + std::to_string(bytes) +
                ": every PE must use the same SHMEM_CUDA_HEAP_SIZE";
      const auto li = static_cast<std::size_t>(h->local_index_[static_cast<std::size_t>(s.pe)]);
      fds[li] = s.heap_fd.get();
      const std::uint64_t note[2] = {s.data.size, s.data.addr};
      std::memcpy(&uuids[16 * li], note, 16);
    }
    if (error.empty() && std::count(fds.begin(), fds.end(), -1) != 0)
      error = "a node-local PE did not pass its GPU heap descriptor";
    void* base = nullptr;
    if (error.empty() &&
        h->p_->heap_map(h->heap_, static_cast<int>(locals.size()), my_local, fds.data(),
                        reinterpret_cast<const unsigned char(*)[16]>(uuids.data()), &base, err, sizeof err) != 0)
      error = reason(err);
    segs.clear();  // the descriptors: the mappings hold the memory now
    fd.reset();
    if (error.empty()) {
      GpuState& s = h->state_;
      s.my_pe = r.my_pe();
      s.n_pes = n;
      s.device = info.ordinal;
      s.my_local = my_local;
      s.n_local = static_cast<int>(locals.size());
      s.base = static_cast<char*>(base);
      s.stride = bytes;
      s.heap_size = bytes;
      s.my_heap = s.base + static_cast<std::size_t>(my_local) * bytes;
      s.timeout_ns = static_cast<std::uint64_t>(cfg.wait_timeout * 1e9);
      if (!h->finish(r, &error)) error = "setting up the GPU heap: " + error;
    }
    if (!agree(r, error, func)) return nullptr;
    r.barrier();  // every PE's internal area is zeroed before any state goes out
    h->state_.version = dc::kGpuStateVersion;
    SHMEM_DEBUG_LOG("cuda", "GPU heap: %zu bytes per PE on device %d (%s, driver %d), %d node-local PEs at %p", bytes,
                    info.ordinal, info.name, info.driver_version, h->state_.n_local,
                    static_cast<void*>(h->state_.base));
    publish_gpu_state(h->state_);
    return h;
  } catch (const std::exception& e) {
    fatal(func, "creating the GPU heap: %s", e.what());
  }
}

// The device-side pieces of the state: the local index table, the status record, the zeroed
// internal area.
bool GpuHeap::finish(Runtime& r, std::string* error) {
  char err[512] = "";
  const std::size_t table = sizeof(std::int32_t) * local_index_.size();
  void* status_dev = nullptr;
  void* status_host = nullptr;
  if (p_->device_alloc(ctx_, table, &index_dev_, err, sizeof err) != 0) {
    index_dev_ = nullptr;
    *error = reason(err);
    return false;
  }
  std::vector<std::int32_t> index(local_index_.begin(), local_index_.end());
  if (p_->copy(ctx_, index_dev_, index.data(), table, err, sizeof err) != 0 ||
      p_->host_alloc(ctx_, sizeof(GpuStatus), &status_host, &status_dev, err, sizeof err) != 0) {
    *error = reason(err);
    return false;
  }
  status_host_ = static_cast<GpuStatus*>(status_host);
  status_host_->pe = r.my_pe();
  status_host_->target_pe = -1;
  const std::size_t teams = sizeof(dc::GpuTeam) * dc::kGpuTeams;
  if (p_->memset8(ctx_, state_.my_heap, 0, dc::kGpuInternalBytes, err, sizeof err) != 0 ||
      p_->device_alloc(ctx_, teams, &teams_dev_, err, sizeof err) != 0 ||
      p_->memset8(ctx_, teams_dev_, 0, teams, err, sizeof err) != 0) {
    *error = reason(err);
    return false;
  }
  state_.teams = static_cast<const dc::GpuTeam*>(teams_dev_);
  state_.local_index = static_cast<const std::int32_t*>(index_dev_);
  state_.status = static_cast<GpuStatus*>(status_dev);
  alloc_ = HeapAllocator(state_.heap_size - dc::kGpuInternalBytes);
  return true;
}

GpuHeap::~GpuHeap() {
  if (state_.version != 0) publish_gpu_state(GpuState{});
  if (p_ && ctx_) {
    if (status_host_) p_->host_free(ctx_, status_host_);
    if (index_dev_) p_->device_free(ctx_, index_dev_);
    if (teams_dev_) p_->device_free(ctx_, teams_dev_);
    for (auto& entry : team_members_) p_->device_free(ctx_, entry.second);
    if (heap_) p_->heap_destroy(heap_);
    p_->close(ctx_);
  }
  if (claimed_) g_heap_taken.store(false);
}

void* GpuHeap::alloc(std::size_t size, std::size_t alignment) {
  std::lock_guard<std::mutex> lock(mu_);
  auto off = alloc_.allocate(size, alignment);
  return off ? user_base() + *off : nullptr;
}

bool GpuHeap::release(void* p) {
  std::lock_guard<std::mutex> lock(mu_);
  return alloc_.release(static_cast<std::size_t>(static_cast<char*>(p) - user_base()));
}

std::size_t GpuHeap::largest_free() const {
  std::lock_guard<std::mutex> lock(mu_);
  return alloc_.largest_free();
}

GpuHeap::TakenStatus GpuHeap::take_status(bool context_lost) const {
  // A kernel that claimed the record writes a dozen words to it next: microseconds, unless it died.
  constexpr std::uint64_t kCompleteWithinNs = 100'000'000;
  std::lock_guard<std::mutex> lock(status_mu_);
  GpuStatus& s = *status_host_;
  std::atomic_ref<std::uint32_t> code(s.code), ready(s.ready);
  TakenStatus t;
  t.record.code = code.load(std::memory_order_acquire);
  if (t.record.code == dc::kGpuErrNone) return t;
  t.repeat = status_returned_;
  // Once per claim, and only while a kernel may still complete it.
  const std::uint64_t since = util::mono_ns();
  while (!context_lost && !t.repeat && ready.load(std::memory_order_acquire) != 1 &&
         util::mono_ns() - since < kCompleteWithinNs)
    std::this_thread::yield();
  t.complete = ready.load(std::memory_order_acquire) == 1;
  if (!t.complete && !context_lost) {  // its writer may still finish it: not ours to clear
    status_returned_ = true;
    return t;
  }
  if (t.complete) {
    t.record = s;
    t.record.routine[sizeof t.record.routine - 1] = '\0';
  }
  t.abandoned = !t.complete;
  const std::int32_t pe = s.pe;
  std::memset(reinterpret_cast<char*>(&s) + offsetof(GpuStatus, pe), 0, sizeof s - offsetof(GpuStatus, pe));
  s.pe = pe;
  s.target_pe = -1;
  ready.store(0, std::memory_order_relaxed);
  code.store(dc::kGpuErrNone, std::memory_order_release);  // last: only now may a kernel claim it again
  status_returned_ = false;
  return t;
}

bool GpuHeap::copy(void* dst, const void* src, std::size_t bytes, std::string* error) const {
  char err[512] = "";
  if (p_->copy(ctx_, dst, src, bytes, err, sizeof err) == 0) return true;
  *error = reason(err);
  return false;
}

bool GpuHeap::copy_2d(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch, std::size_t block,
                      std::size_t count, std::string* error) const {
  char err[512] = "";
  if (p_->copy_2d(ctx_, dst, dst_pitch, src, src_pitch, block, count, err, sizeof err) == 0) return true;
  *error = reason(err);
  return false;
}

bool GpuHeap::fill(void* dst, unsigned char value, std::size_t bytes, std::string* error) const {
  char err[512] = "";
  if (p_->memset8(ctx_, dst, value, bytes, err, sizeof err) == 0) return true;
  *error = reason(err);
  return false;
}

bool GpuHeap::stream_sync(void* stream, std::string* error, bool* lost) const {
  char err[512] = "";
  const int rc = p_->stream_sync(ctx_, stream, err, sizeof err);
  if (lost) *lost = rc == SHMEM_CUDA_CONTEXT_LOST;
  if (rc == 0) return true;
  *error = reason(err);
  return false;
}

bool GpuHeap::stream_op(void* stream, const shmem_cuda_stream_op& op, std::string* error) const {
  char err[512] = "";
  if (p_->stream_op(ctx_, stream, &op, err, sizeof err) == 0) return true;
  *error = reason(err);
  return false;
}

bool GpuHeap::atomic(void* addr, int pe, int width, int op, std::uint64_t value, std::uint64_t cond, std::uint64_t* old,
                     std::string* error) const {
  char err[512] = "";
  if (p_->atomic(ctx_, addr, pe, width, op, value, cond, old, err, sizeof err) == 0) return true;
  *error = reason(err);
  return false;
}

bool GpuHeap::kernel_access(const void* addr, int* access, int* device, std::string* error) const {
  char err[512] = "";
  if (p_->kernel_access(ctx_, addr, access, device, err, sizeof err) == 0) return true;
  *error = reason(err);
  return false;
}

const int* GpuHeap::team_members(const std::vector<int>& world_pes, std::string* error) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [members, dev] : team_members_)
    if (members == world_pes) return static_cast<const int*>(dev);
  char err[512] = "";
  void* dev = nullptr;
  const std::size_t bytes = world_pes.size() * sizeof(int);
  if (p_->device_alloc(ctx_, bytes, &dev, err, sizeof err) != 0 ||
      p_->copy(ctx_, dev, world_pes.data(), bytes, err, sizeof err) != 0) {
    if (dev) p_->device_free(ctx_, dev);
    *error = reason(err);
    return nullptr;
  }
  team_members_.emplace_back(world_pes, dev);
  return static_cast<const int*>(dev);
}

bool GpuHeap::set_team(int slot, std::uint64_t handle, int me, const std::vector<int>& world_pes, std::string* error) {
  if (slot < 0 || slot >= dc::kGpuTeams) {
    *error = "team slot " + std::to_string(slot) + " is outside the device team table";
    return false;
  }
  dc::GpuTeam t{};
  t.handle = handle;
  t.n = static_cast<std::int32_t>(world_pes.size());
  t.me = me;
  t.slot = slot;
  t.members = team_members(world_pes, error);
  if (!t.members) return false;
  char err[512] = "";
  if (p_->copy(ctx_, static_cast<dc::GpuTeam*>(teams_dev_) + slot, &t, sizeof t, err, sizeof err) == 0) return true;
  *error = reason(err);
  return false;
}

bool GpuHeap::clear_team(int slot, std::string* error) {
  const dc::GpuTeam none{};
  char err[512] = "";
  if (slot < 0 || slot >= dc::kGpuTeams ||
      p_->copy(ctx_, static_cast<dc::GpuTeam*>(teams_dev_) + slot, &none, sizeof none, err, sizeof err) == 0)
    return true;
  *error = reason(err);
  return false;
}

}  // namespace shmem::core
