// Kernel launch on the worker pool, and the in-kernel helpers the device headers call:
// block/grid sync, error reporting, the current block, team views.
//
// Scheduling: a block's threads always run together, so a launch is carried out by "gangs" of
// block_dim pool threads. A normal launch uses min(grid, max(1, pool / block_dim)) gangs and
// gang g runs blocks g, g + gangs, ... one after another (a block sync separates them). A
// cooperative launch uses one gang per block, so all blocks run at once.
#include <algorithm>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <vector>

#include "base/log.hpp"
#include "core/ops.hpp"
#include "core/runtime.hpp"
#include "core/team.hpp"
#include "core/team_ops.hpp"
#include "shmem/device/common.hpp"
#include "stream/barrier.hpp"
#include "stream/device_owner.hpp"
#include "stream/pool.hpp"
#include "stream/stream.hpp"

namespace shmem::stream {
namespace {

// The device synchronisation area (include/shmem/device/common.hpp) lives in the runtime's
// internal area after the runtime's own objects; one cell per team slot.
static_assert(sizeof(InternalArea) <= device::detail::kSyncAreaOffset,
              "the runtime-internal area grew into the device synchronisation area: move kSyncAreaOffset");
static_assert(device::detail::kSyncAreaOffset + device::detail::kSyncAreaBytes <= kRingsOffset,
              "the device synchronisation area runs into the broadcast rings");
static_assert(device::detail::kSyncSlots >= kMaxTeams);

struct Launch {
  shmemx_kernel_t kernel = nullptr;
  void* args = nullptr;  // what the kernel receives: the caller's pointer or args_copy
  std::unique_ptr<std::max_align_t[]> args_copy;
  void* user_args = nullptr;  // the caller's pointer, for args_release
  void (*args_release)(void*) = nullptr;
  int grid = 1;
  int block_dim = 1;
  bool cooperative = false;
  int gangs = 1;
  const device::State* state = nullptr;
  std::vector<std::unique_ptr<Barrier>> gang_barriers;
  std::unique_ptr<Barrier> grid_barrier;
  int error = 0;  // the first error (atomic builtins)

  ~Launch() {
    if (args_release) args_release(user_args);
  }
};

// What shmemx_block_t::impl_ points at (one per kernel thread).
struct BlockImpl {
  Launch* launch;
  Barrier* block_barrier;
};

thread_local const shmemx_block_t* t_current_block = nullptr;

void record(Launch& l, int code) noexcept {
  int expected = 0;
  __atomic_compare_exchange_n(&l.error, &expected, code, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

// One pool thread: thread `t` of gang `g`, running the gang's blocks in turn.
void run_thread(Launch& l, int g, int t) noexcept {
  Barrier* bar = l.gang_barriers.empty() ? nullptr : l.gang_barriers[static_cast<std::size_t>(g)].get();
  BlockImpl impl{&l, bar};
  for (int b = g; b < l.grid; b += l.gangs) {
    shmemx_block_t blk{};
    blk.block_id = b;
    blk.grid = l.grid;
    blk.thread_id = t;
    blk.block_dim = l.block_dim;
    blk.state = l.state;
    blk.impl_ = &impl;
    t_current_block = &blk;
    try {
      l.kernel(&blk, l.args);
    } catch (const std::exception& e) {
      report(SHMEMX_ERR_INTERNAL, "kernel", "block %d thread %d: %s", b, t, e.what());
      record(l, SHMEMX_ERR_INTERNAL);
    } catch (...) {
      report(SHMEMX_ERR_INTERNAL, "kernel", "block %d thread %d threw an exception", b, t);
      record(l, SHMEMX_ERR_INTERNAL);
    }
    t_current_block = nullptr;
    if (bar) bar->arrive_and_wait();  // the block ends together; its barrier is reused by the next
  }
}

void run_pool_thread(void* ctx, int i) noexcept {
  Launch& l = *static_cast<Launch*>(ctx);
  // The wait board's entry for this PE holds the CPU its host thread last waited on, and that
  // thread now sleeps (in synchronize) or runs elsewhere: publish this kernel thread's CPU, or the
  // other PEs' waits would take the stale entry for a PE queued behind them and yield to nobody,
  // and move onto this thread's CPU (core/wait_board.hpp, device_wait.cpp).
  (void)owner(l.state).wait_policy().board.look();
  run_thread(l, i / l.block_dim, i % l.block_dim);
}

int validate(const char* f, shmemx_kernel_t kernel, const shmemx_launch_attr_t* a) noexcept {
  const char* why = nullptr;
  if (kernel == nullptr) why = "kernel is NULL";
  else if (a == nullptr) why = "attr is NULL";
  else if (a->grid < 1) why = "grid must be at least 1";
  else if (a->block_dim < 0 || a->block_dim > SHMEMX_MAX_BLOCK_DIM) why = "block_dim must be 1 .. SHMEMX_MAX_BLOCK_DIM";
  else if (a->cooperative &&
           static_cast<long long>(a->grid) * (a->block_dim ? a->block_dim : 1) > SHMEMX_MAX_COOPERATIVE_THREADS)
    why = "a cooperative launch may use at most SHMEMX_MAX_COOPERATIVE_THREADS threads (grid * block_dim)";
  if (why == nullptr) return 0;
  SHMEM_ERROR("stream", "%s: %s (grid=%d, block_dim=%d); nothing was launched", f, why, a ? a->grid : 0,
              a ? a->block_dim : 0);
  return SHMEMX_ERR_INVALID_ARGUMENT;
}

int launch(const char* f, shmemx_kernel_t kernel, void* args, const shmemx_launch_attr_t* attr,
           shmemx_stream_t stream) noexcept {
  if (const int rc = validate(f, kernel, attr)) return rc;
  Runtime& rt = core::rt(f);
  resolve(stream, f);  // an invalid handle ends the job before anything is built
  std::unique_ptr<Launch> l;
  try {
    l = std::make_unique<Launch>();
    l->kernel = kernel;
    l->grid = attr->grid;
    l->block_dim = attr->block_dim ? attr->block_dim : 1;
    l->cooperative = attr->cooperative != 0;
    l->state = &rt.device_state();
    l->user_args = args;
    if (attr->args_bytes > 0 && args != nullptr) {
      const std::size_t words = (attr->args_bytes + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t);
      l->args_copy.reset(new std::max_align_t[words]);
      std::memcpy(l->args_copy.get(), args, attr->args_bytes);
      l->args = l->args_copy.get();
    } else {
      l->args = args;
    }
    const int pool = Pool::get().size();
    l->gangs = l->cooperative ? l->grid : std::min(l->grid, std::max(1, pool / l->block_dim));
    if (l->block_dim > 1) {
      l->gang_barriers.reserve(static_cast<std::size_t>(l->gangs));
      for (int g = 0; g < l->gangs; ++g)
        l->gang_barriers.push_back(std::make_unique<Barrier>(static_cast<unsigned>(l->block_dim)));
    }
    if (l->cooperative) l->grid_barrier = std::make_unique<Barrier>(static_cast<unsigned>(l->grid * l->block_dim));
  } catch (const std::exception& e) {
    SHMEM_ERROR("stream", "%s: %s; nothing was launched", f, e.what());
    return SHMEMX_ERR_OUT_OF_MEMORY;
  }
  l->args_release = attr->args_release;  // from here on the launch owns args
  submit(stream, f, [l = std::move(l), f](Runtime&) -> int {
    const int threads = l->gangs * l->block_dim;
    try {
      Pool::get().run(threads, &run_pool_thread, l.get());
    } catch (const std::exception& e) {
      return report(SHMEMX_ERR_OUT_OF_MEMORY, f, "could not start %d kernel threads: %s", threads, e.what());
    }
    return __atomic_load_n(&l->error, __ATOMIC_ACQUIRE);
  });
  return 0;
}

}  // namespace
}  // namespace shmem::stream

namespace st = shmem::stream;

extern "C" {

int shmemx_launch(shmemx_kernel_t kernel, int grid, int block_dim, void* args, size_t args_bytes,
                  shmemx_stream_t stream) noexcept {
  shmemx_launch_attr_t a{};
  a.grid = grid;
  a.block_dim = block_dim;
  a.args_bytes = args_bytes;
  return st::launch(__func__, kernel, args, &a, stream);
}

int shmemx_launch_ex(shmemx_kernel_t kernel, void* args, const shmemx_launch_attr_t* attr,
                     shmemx_stream_t stream) noexcept {
  return st::launch(__func__, kernel, args, attr, stream);
}

void shmemx_block_sync(const shmemx_block_t* block) noexcept {
  if (block == nullptr || block->impl_ == nullptr) shmem::core::fatal(__func__, "block is not a kernel's block");
  auto* impl = static_cast<st::BlockImpl*>(block->impl_);
  if (impl->block_barrier) impl->block_barrier->arrive_and_wait();
}

void shmemx_grid_sync(const shmemx_block_t* block) noexcept {
  if (block == nullptr || block->impl_ == nullptr) shmem::core::fatal(__func__, "block is not a kernel's block");
  auto* impl = static_cast<st::BlockImpl*>(block->impl_);
  st::Launch& l = *impl->launch;
  if (l.grid_barrier) {
    l.grid_barrier->arrive_and_wait();
  } else if (l.grid == 1) {
    if (impl->block_barrier) impl->block_barrier->arrive_and_wait();
  } else {
    shmem::core::fatal(__func__,
                       "a launch of %d blocks is not cooperative, so its blocks need not run at the same time and "
                       "cannot wait for each other; launch with cooperative = 1 (shmemx_launch_ex) or "
                       "LaunchOptions{.cooperative = true}",
                       l.grid);
  }
}

void shmemx_block_error(const shmemx_block_t* block, int code, const char* message) noexcept {
  if (code == 0) code = SHMEMX_ERR_INTERNAL;
  if (block == nullptr || block->impl_ == nullptr)
    shmem::core::fatal("shmem device API", "%s (outside a kernel, so the job ends)", message ? message : "error");
  st::report(code, "kernel", "block %d thread %d: %s", block->block_id, block->thread_id,
             message ? message : "error reported by the kernel");
  st::record(*static_cast<st::BlockImpl*>(block->impl_)->launch, code);
}

const shmemx_block_t* shmemx_block_current(void) noexcept { return st::t_current_block; }

int shmemx_device_threads(void) noexcept { return st::Pool::get().size(); }

int shmemx_team_view(shmem_team_t team, shmemx_team_view_t* view) noexcept {
  if (view == nullptr || team == SHMEM_TEAM_INVALID || shmem::current_runtime() == nullptr) return 1;
  shmem::Team* t = shmem::core::team_from_handle(static_cast<void*>(team), __func__);
  if (t == nullptr) return 1;
  view->slot = t->slot();
  view->my_pe = t->my_pe();
  view->n_pes = t->size();
  view->world_pes = t->world_pes().data();
  return 0;
}

}  // extern "C"
