// The device API in CUDA kernels on the GPU symmetric heap, between real PEs (run by gpu_run.sh
// under oshrun at 2, 4 and 8 PEs on one GPU). Every value is checked on the host after the
// kernels: ring put+signal (thread, block and warp forms), get/g/p/iput/iget, every atomic family
// (64/32/16/8-bit integers, float, double) with exact totals, compare-and-swap tickets, barriers
// from one thread, one block and a cooperative grid on the world and on split teams, and host RMA
// on GPU symmetric memory.
//   cuda_device_pe --probe   exits 77 (SKIPPED) where there is no CUDA device, 0 where there is.
#include <shmem.h>
#include <shmemx.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <shmem/device/device.hpp>

#include "check.h"
#include "gpu_probe.cuh"

namespace dev = shmem::device;

namespace {

constexpr int kWords = 4096;  // longs per ring message
constexpr int kThreads = 256;
constexpr int kBlocks = 4;
constexpr int kRounds = 50;

struct Sym {  // GPU symmetric objects (all from shmemx_cuda_malloc)
  long* ring;             // kWords, written by the left neighbour
  long* src;              // kWords, this PE's pattern
  std::uint64_t* sig;     // 4 signals: thread, block, warp ring; barrier rounds
  long long* count64;
  int* count32;
  short* count16;
  unsigned char* count8;  // 4 bytes: one per lane of a word, so neighbours' CAS loops interleave
  float* countf;
  double* countd;
  unsigned long long* tickets;
  long* strided;          // 2 * kWords
  int* errors;            // device-side check failures of this PE's kernels
  std::uint64_t* team_count;  // barrier rounds on a team: counted on the team's PE 0
};

#define CUDA_OK(call)                                                                                  \
  do {                                                                                                 \
    cudaError_t e_ = (call);                                                                           \
    CHECKF(e_ == cudaSuccess, "%s: %s", #call, cudaGetErrorString(e_));                               \
  } while (0)

__device__ long pattern(int pe, int i) { return static_cast<long>(pe) * 1000003L + i; }

// Ring: every PE writes its pattern into its right neighbour's ring with the three forms in turn,
// signalling each; then checks what its left neighbour wrote.
__global__ void ring_kernel(Sym s, int form) {
  const dev::Block b = dev::this_block();
  const int me = dev::my_pe(), n = dev::n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
  for (int i = b.thread_id; i < kWords; i += b.block_dim) s.src[i] = pattern(me, i) + form;
  __syncthreads();
  if (form == 0 && b.thread_id == 0)
    dev::putmem_signal(s.ring, s.src, kWords * sizeof(long), s.sig + 0, std::uint64_t{1}, SHMEM_SIGNAL_ADD, right);
  if (form == 1) dev::putmem_signal_block(b, s.ring, s.src, kWords * sizeof(long), s.sig + 1, std::uint64_t{1}, SHMEM_SIGNAL_ADD, right);
  if (form == 2 && b.thread_id < 32)
    dev::putmem_signal_warp(s.ring, s.src, kWords * sizeof(long), s.sig + 2, std::uint64_t{1}, SHMEM_SIGNAL_ADD, right);
  if (b.thread_id == 0) dev::signal_wait_until(s.sig + form, SHMEM_CMP_GE, std::uint64_t{1});
  __syncthreads();
  for (int i = b.thread_id; i < kWords; i += b.block_dim)
    if (s.ring[i] != pattern(left, i) + form) atomicAdd(s.errors, 1);
  __syncthreads();
  if (b.thread_id == 0) *(s.sig + form) = 0;
  dev::barrier_all_block(b);  // nobody starts the next form's puts before every PE has checked
}

// One warp as a 16 x 2 block: lanes come from the linearised thread index (threadIdx.x & 31
// gave two threads of each lane 0..15 and none of 16..31: half the data, two signals).
__global__ void warp_2d_kernel(Sym s) {
  const int me = dev::my_pe(), right = (me + 1) % dev::n_pes();
  dev::putmem_signal_warp(s.ring, s.src, kWords * sizeof(long), s.sig + 3, std::uint64_t{1}, SHMEM_SIGNAL_ADD, right);
}

// get, g, p, iput, iget against the right neighbour (whose src holds pattern(right, i) + 2 after
// the ring's last form).
__global__ void rma_kernel(Sym s, long* scratch) {
  const int me = dev::my_pe(), n = dev::n_pes(), right = (me + 1) % n;
  dev::getmem(scratch, s.src, 64 * sizeof(long), right);
  for (int i = 0; i < 64; ++i)
    if (scratch[i] != pattern(right, i) + 2) atomicAdd(s.errors, 1);
  if (dev::g(s.src + 7, right) != pattern(right, 7) + 2) atomicAdd(s.errors, 1);
  dev::p(s.strided + kWords + me, static_cast<long>(me + 1), right);  // read back by the host
  dev::iput(s.strided, s.src, 2, 1, 32, right);                         // src[i] -> right's strided[2i]
  dev::quiet();
  dev::barrier_all();
  dev::iget(scratch, s.strided, 1, 2, 32, me);                          // my strided[2i], from my left
  const int left = (me + n - 1) % n;
  for (int i = 0; i < 32; ++i)
    if (scratch[i] != pattern(left, i) + 2) atomicAdd(s.errors, 1);
}

// Every thread of every block of every PE adds to PE 0's counters; fetch_inc tickets must be a
// permutation.
__global__ void amo_kernel(Sym s) {
  const dev::Block b = dev::this_block();
  const int lane = b.thread_id & 3;
  for (int r = 0; r < kRounds; ++r) {
    dev::atomic_add(s.count64, 1LL, 0);
    dev::atomic_fetch_add(s.count32, 1, 0);
    dev::atomic_add(s.count16, short{1}, 0);
    dev::atomic_add(s.count8 + lane, static_cast<unsigned char>(1), 0);
    dev::atomic_add(s.countf, 1.0f, 0);
    dev::atomic_fetch_add(s.countd, 0.5, 0);
  }
  const unsigned long long t = dev::atomic_fetch_inc(s.tickets, 0);  // tickets[0]: the next ticket
  dev::atomic_or(s.tickets + 1 + t / 64, 1ull << (t % 64), 0);        // mark it taken
  dev::atomic_compare_swap(s.tickets + 1 + 128, 0ull, static_cast<unsigned long long>(dev::my_pe() + 1), 0);
}

// Barriers: each round, one thread per PE adds to PE 0's word, then every PE must see n * round.
__device__ void barrier_rounds(const Sym& s, int scope, const dev::Block& b) {
  const int n = dev::n_pes();
  for (int r = 1; r <= kRounds; ++r) {
    if (b.block_id == 0 && b.thread_id == 0) dev::atomic_add(s.sig + 3, std::uint64_t{1}, 0);
    if (scope == 0) {
      if (b.block_id == 0 && b.thread_id == 0) dev::barrier_all();
      __syncthreads();
    } else if (scope == 1) {
      dev::barrier_all_block(b);
    } else {
      dev::barrier_all_grid(b);
    }
    if (b.thread_id == 0 && dev::atomic_fetch(s.sig + 3, 0) < static_cast<std::uint64_t>(n) * r)
      atomicAdd(s.errors, 1);
    if (scope == 2) dev::sync_all_grid(b);
    else if (b.block_id == 0 && b.thread_id == 0) dev::sync_all();
    __syncthreads();
  }
}
__global__ void barrier_kernel(Sym s, int scope) { barrier_rounds(s, scope, dev::this_block()); }

// Teams in kernels: `team` holds the world PEs of this PE's parity (split on the host after the
// GPU heap existed), SHMEM_TEAM_SHARED every PE (this host; made before the heap). Queries and
// translations, then barrier rounds on the team at `scope` (0 thread, 1 block, 2 grid): each
// round one thread per member adds to the team PE 0's counter, and after the barrier every
// member must see all of the round's adds.
__device__ void team_rounds(const Sym& s, shmem_team_t team, int scope, const dev::Block& b) {
  const int me = dev::my_pe(), n = dev::n_pes();
  const int parity = me % 2, tn = (n - parity + 1) / 2;
  if (b.block_id == 0 && b.thread_id == 0) {
    if (dev::team_my_pe(team) != me / 2 || dev::team_n_pes(team) != tn) atomicAdd(s.errors, 1);
    if (dev::team_translate_pe(team, tn - 1, SHMEM_TEAM_WORLD) != 2 * (tn - 1) + parity) atomicAdd(s.errors, 1);
    if (dev::team_translate_pe(SHMEM_TEAM_WORLD, me, team) != me / 2) atomicAdd(s.errors, 1);
    if (dev::team_translate_pe(team, 0, SHMEM_TEAM_SHARED) != parity) atomicAdd(s.errors, 1);
    if (dev::team_my_pe(SHMEM_TEAM_SHARED) != me || dev::team_n_pes(SHMEM_TEAM_SHARED) != n) atomicAdd(s.errors, 1);
    if (n > 1 && dev::team_translate_pe(SHMEM_TEAM_WORLD, 1 - parity, team) != -1) atomicAdd(s.errors, 1);
  }
  for (int r = 1; r <= kRounds; ++r) {
    if (b.block_id == 0 && b.thread_id == 0) dev::atomic_add(s.team_count, std::uint64_t{1}, parity);
    if (scope == 0) {
      if (b.block_id == 0 && b.thread_id == 0) dev::barrier(team);
      __syncthreads();
    } else if (scope == 1) {
      dev::barrier_block(b, team);
    } else {
      dev::barrier_grid(b, team);
    }
    if (b.thread_id == 0 && dev::atomic_fetch(s.team_count, parity) < static_cast<std::uint64_t>(tn) * r)
      atomicAdd(s.errors, 1);
    if (scope == 2) dev::sync_grid(b, team);
    else if (b.block_id == 0 && b.thread_id == 0) dev::sync(team);
    __syncthreads();
  }
}
__global__ void team_kernel(Sym s, shmem_team_t team, int scope) { team_rounds(s, team, scope, dev::this_block()); }

// `rounds` device barriers on `team` from one thread; *slot = the team's slot in the device table.
__global__ void pair_kernel(shmem_team_t team, int rounds, int* slot) {
  const dev::cuda::GpuTeam* t = dev::cuda::detail::find_team(team);
  *slot = t ? t->slot : -1;
  for (int r = 0; r < rounds; ++r) dev::barrier(team);
}

template <class T>
T* cuda_alloc(std::size_t n) {
  void* p = shmemx_cuda_calloc(n, sizeof(T));
  CHECKF(p != nullptr, "shmemx_cuda_calloc(%zu, %zu) failed", n, sizeof(T));
  return static_cast<T*>(p);
}

template <class T>
T read_back(const T* gpu) {
  T v{};
  CUDA_OK(cudaMemcpy(&v, gpu, sizeof v, cudaMemcpyDeviceToHost));
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  if (const int rc = gpu_probe(argc, argv); rc >= 0) return rc;
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  Sym s{};
  s.ring = cuda_alloc<long>(kWords);
  s.src = cuda_alloc<long>(kWords);
  s.sig = cuda_alloc<std::uint64_t>(4);
  s.count64 = cuda_alloc<long long>(1);
  s.count32 = cuda_alloc<int>(1);
  s.count16 = cuda_alloc<short>(1);
  s.count8 = cuda_alloc<unsigned char>(4);
  s.countf = cuda_alloc<float>(1);
  s.countd = cuda_alloc<double>(1);
  s.tickets = cuda_alloc<unsigned long long>(1 + 128 + 1);
  s.strided = cuda_alloc<long>(2 * kWords);
  s.errors = cuda_alloc<int>(1);
  s.team_count = cuda_alloc<std::uint64_t>(1);
  long* scratch = nullptr;
  CUDA_OK(cudaMalloc(&scratch, 64 * sizeof(long)));
  shmem_barrier_all();

  for (int form = 0; form < 3; ++form) {
    ring_kernel<<<1, kThreads>>>(s, form);
    CUDA_OK(cudaDeviceSynchronize());
  }
  CHECK_EQ(read_back(s.errors), 0);
  shmem_barrier_all();

  rma_kernel<<<1, 1>>>(s, scratch);
  CUDA_OK(cudaDeviceSynchronize());
  shmem_barrier_all();
  CHECK_EQ(read_back(s.errors), 0);
  const int left = (me + n - 1) % n;
  CHECK_EQ(read_back(s.strided + kWords + left), static_cast<long>(left + 1));

  amo_kernel<<<kBlocks, kThreads>>>(s);
  CUDA_OK(cudaDeviceSynchronize());
  shmem_barrier_all();
  if (me == 0) {
    const long long adds = static_cast<long long>(n) * kBlocks * kThreads * kRounds;
    CHECK_EQ(read_back(s.count64), adds);
    CHECK_EQ(read_back(s.count32), static_cast<int>(adds));
    CHECK_EQ(read_back(s.count16), static_cast<short>(adds));  // wraps like the 16-bit word does
    unsigned char lanes[4];
    CUDA_OK(cudaMemcpy(lanes, s.count8, 4, cudaMemcpyDeviceToHost));
    for (int l = 0; l < 4; ++l) CHECK_EQ(static_cast<int>(lanes[l]), static_cast<int>(static_cast<unsigned char>(adds / 4)));
    CHECK_EQ(read_back(s.countf), static_cast<float>(adds));  // exact: below 2^24
    CHECK_EQ(read_back(s.countd), 0.5 * static_cast<double>(adds));
    std::vector<unsigned long long> t(1 + 128 + 1);
    CUDA_OK(cudaMemcpy(t.data(), s.tickets, t.size() * sizeof t[0], cudaMemcpyDeviceToHost));
    const unsigned long long issued = static_cast<unsigned long long>(n) * kBlocks * kThreads;
    CHECK_EQ(t[0], issued);
    unsigned long long marked = 0;
    for (int w = 0; w < 128; ++w) marked += static_cast<unsigned long long>(__builtin_popcountll(t[1 + w]));
    CHECK_EQ(marked, issued);  // every ticket taken exactly once (issued <= 8192 bits)
    CHECKF(t[129] >= 1 && t[129] <= static_cast<unsigned long long>(n), "compare_swap winner %llu", t[129]);
  }
  shmem_barrier_all();

  for (int scope = 0; scope < 3; ++scope) {
    CUDA_OK(cudaMemset(s.sig + 3, 0, sizeof(std::uint64_t)));
    shmem_barrier_all();
    if (scope < 2) {  // a plain <<<>>> launch
      barrier_kernel<<<1, kThreads>>>(s, scope);
      CUDA_OK(cudaGetLastError());
    } else {  // a __device__ lambda through the launch helper, cooperative
      const int rc = dev::launch(nullptr, kBlocks, [=] __device__(const dev::Block& b) { barrier_rounds(s, 2, b); },
                                 {.block_dim = kThreads, .cooperative = true});
      CHECK_EQ(rc, 0);
    }
    CUDA_OK(cudaDeviceSynchronize());
    shmem_barrier_all();
  }
  CHECK_EQ(read_back(s.errors), 0);

  // Teams other than the world in kernels: the PEs of each parity.
  shmem_team_t parity_team = SHMEM_TEAM_INVALID;
  shmem_team_t other = SHMEM_TEAM_INVALID;
  shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, nullptr, 0, me % 2 == 0 ? &parity_team : &other);
  if (n > 1) shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, n / 2, nullptr, 0, me % 2 == 1 ? &parity_team : &other);
  CHECKF(parity_team != SHMEM_TEAM_INVALID, "the split gave PE %d no team", me);
  for (int scope = 0; scope < 3 && parity_team != SHMEM_TEAM_INVALID; ++scope) {
    CUDA_OK(cudaMemset(s.team_count, 0, sizeof(std::uint64_t)));
    shmem_barrier_all();
    if (scope < 2) {
      team_kernel<<<1, kThreads>>>(s, parity_team, scope);
      CUDA_OK(cudaGetLastError());
    } else {
      const int rc = dev::launch(
          nullptr, kBlocks, [=] __device__(const dev::Block& b) { team_rounds(s, parity_team, 2, b); },
          {.block_dim = kThreads, .cooperative = true});
      CHECK_EQ(rc, 0);
    }
    CUDA_OK(cudaDeviceSynchronize());
    shmem_barrier_all();
  }
  CHECK_EQ(read_back(s.errors), 0);
  if (parity_team != SHMEM_TEAM_INVALID) shmem_team_destroy(parity_team);

  // A team slot reused by other members: {0, 1} takes the lowest free slot for three device
  // barriers and is destroyed; {1, 2} then gets that slot, and its barrier cell, again. PE 1 has
  // been through more barriers on the cell than PE 2, which the barrier must not depend on (it
  // kept a per-PE epoch there, and PE 1 then waited for a flag PE 2 never raised that high).
  if (n >= 3) {
    int* slot = nullptr;
    CUDA_OK(cudaMalloc(&slot, sizeof(int)));
    int slots[2] = {-1, -1};
    for (int pair = 0; pair < 2; ++pair) {
      shmem_team_t t = SHMEM_TEAM_INVALID;
      CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, pair, 1, 2, nullptr, 0, &t), 0);
      if (t != SHMEM_TEAM_INVALID) {
        pair_kernel<<<1, 1>>>(t, pair == 0 ? 3 : 1, slot);
        CUDA_OK(cudaDeviceSynchronize());
        CUDA_OK(cudaMemcpy(&slots[pair], slot, sizeof(int), cudaMemcpyDeviceToHost));
      }
      shmem_barrier_all();
      if (t != SHMEM_TEAM_INVALID) shmem_team_destroy(t);
    }
    if (me == 1) CHECKF(slots[0] >= 0 && slots[0] == slots[1], "team slots %d then %d: not reused", slots[0], slots[1]);
    cudaFree(slot);
  }

  // The warp form from a 2-D block: the whole ring arrives, signalled once.
  CUDA_OK(cudaMemset(s.ring, 0, kWords * sizeof(long)));
  CUDA_OK(cudaMemset(s.sig + 3, 0, sizeof(std::uint64_t)));
  shmem_barrier_all();
  warp_2d_kernel<<<1, dim3(16, 2)>>>(s);
  CUDA_OK(cudaDeviceSynchronize());
  shmem_barrier_all();
  {
    std::vector<long> ring(kWords);
    CUDA_OK(cudaMemcpy(ring.data(), s.ring, kWords * sizeof(long), cudaMemcpyDeviceToHost));
    const long l = (me + n - 1) % n;
    for (int i = 0; i < kWords; ++i) CHECK_EQ_AT(ring[i], l * 1000003L + i + 2, "2-D warp ring[%d]", i);
    CHECK_EQ(read_back(s.sig + 3), std::uint64_t{1});
  }

  // Host RMA on GPU symmetric memory: a host put into the right neighbour's GPU ring.
  std::vector<long> host(kWords);
  for (int i = 0; i < kWords; ++i) host[i] = -(static_cast<long>(me) * 7 + i);
  shmem_long_put(s.ring, host.data(), kWords, (me + 1) % n);
  shmem_barrier_all();
  std::vector<long> got(kWords);
  CUDA_OK(cudaMemcpy(got.data(), s.ring, kWords * sizeof(long), cudaMemcpyDeviceToHost));
  for (int i = 0; i < kWords; ++i) CHECK_EQ_AT(got[i], -(static_cast<long>(left) * 7 + i), "ring[%d]", i);
  const int right = (me + 1) % n;
  CHECK_EQ(shmem_long_g(s.src + 5, right), static_cast<long>(right) * 1000003L + 5 + 2);

  cudaFree(scratch);
  shmemx_cuda_free(s.team_count);
  shmemx_cuda_free(s.errors);
  shmemx_cuda_free(s.strided);
  shmemx_cuda_free(s.tickets);
  shmemx_cuda_free(s.countd);
  shmemx_cuda_free(s.countf);
  shmemx_cuda_free(s.count8);
  shmemx_cuda_free(s.count16);
  shmemx_cuda_free(s.count32);
  shmemx_cuda_free(s.count64);
  shmemx_cuda_free(s.sig);
  shmemx_cuda_free(s.src);
  shmemx_cuda_free(s.ring);
  return check_finish("cuda_device_pe");
}
