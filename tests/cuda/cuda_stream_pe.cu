// Stream-ordered operations on a CUDA stream (shmemx_stream_create_cuda) over GPU symmetric memory,
// between real PEs (gpu_run.sh: SKIPPED without a GPU). Kernels enqueued on the same CUDA stream
// before and after each operation check the order both ways: an operation sees the data of the
// kernel before it, and the kernel after it sees the operation's result. A last round runs the
// collectives on the even and odd PEs' teams (team members are not world PEs there). A put-with-
// signal reads its payload from pinned host memory, and is refused from pageable memory.
#include <shmem.h>
#include <shmemx.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "check.h"
#include "gpu_probe.cuh"

namespace {

constexpr int kN = 1000;     // ints per PE (not a multiple of 16 bytes: the copies' tails run too)
constexpr int kBig = 40003;  // ints per PE of the second pass (160 KB: more than one block's worth)

#define CUDA_OK(call)                                                                    \
  do {                                                                                   \
    cudaError_t e_ = (call);                                                             \
    CHECKF(e_ == cudaSuccess, "%s: %s", #call, cudaGetErrorString(e_));                 \
  } while (0)

__global__ void fill(int* p, int n, int base) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) p[i] = base + i;
}
__global__ void fill_d(double* p, int n, int me) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) p[i] = me * 0.5 + i;
}
// Counts elements of p[0, n) that differ from base + i (the order check after a wait).
__global__ void count_wrong(const int* p, int n, int base, int* wrong) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    if (p[i] != base + i) atomicAdd(wrong, 1);
}

// The reduction sweep's element i on PE p: 8-bit integers that wrap when summed, floats of
// exponents far apart (so their sum rounds, and only the member order gives the expected bits),
// 64-bit words for xor. The host computes the same values.
struct V8 {
  __host__ __device__ static std::int8_t at(int p, std::size_t i) {
    return static_cast<std::int8_t>(static_cast<unsigned>(p * 37 + i * 11) & 0xff);
  }
};
struct VF {
  __host__ __device__ static float at(int p, std::size_t i) {
    return ldexpf(static_cast<float>((p * 131 + i * 7) % 1000 + 1), static_cast<int>((p * 5 + i) % 40) - 20);
  }
};
struct VX {
  __host__ __device__ static std::uint64_t at(int p, std::size_t i) {
    return (static_cast<std::uint64_t>(p) + 1) * 0x9E3779B97F4A7C15ull ^ i;
  }
};
template <class V, class T>
__global__ void fill_v(T* p, std::size_t n, int pe) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) p[i] = V::at(pe, i);
}

template <class T>
T* gpu(std::size_t n) {
  void* p = shmemx_cuda_calloc(n, sizeof(T));
  CHECKF(p != nullptr, "shmemx_cuda_calloc(%zu, %zu)", n, sizeof(T));
  return static_cast<T*>(p);
}
template <class T>
std::vector<T> host(const T* p, std::size_t n) {
  std::vector<T> v(n);
  CUDA_OK(cudaMemcpy(v.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  if (const int rc = gpu_probe(argc, argv); rc >= 0) return rc;
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
  int* src = gpu<int>(kBig);
  int* all = gpu<int>(static_cast<std::size_t>(kBig) * n);
  int* a2a_src = gpu<int>(static_cast<std::size_t>(kBig) * n);
  int* a2a_dst = gpu<int>(static_cast<std::size_t>(kBig) * n);
  int* bcast = gpu<int>(kBig);
  int* isum = gpu<int>(kBig);
  double* dsrc = gpu<double>(kBig);
  double* dmax = gpu<double>(kBig);
  int* inbox = gpu<int>(kBig);
  auto* sig = gpu<std::uint64_t>(1);
  int* wrong = gpu<int>(1);

  cudaStream_t cs;
  CUDA_OK(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
  shmemx_stream_t st;
  CHECK_EQ(shmemx_stream_create_cuda(&st, cs), 0);
  CHECKF(shmemx_stream_cuda_handle(st) == cs, "shmemx_stream_cuda_handle returns the wrapped stream");

  // Both launch forms of the collectives (stream_plan.hpp): kN ints is one block that passes its
  // own barriers; kBig ints reads more than kFusedBytes per PE, so a barrier kernel and a grid.
  for (const int cnt : {kN, kBig}) {
    for (int round = 1; round <= 3; ++round) {
      const int base = me * 100000 + round * 1000;
      fill<<<4, 256, 0, cs>>>(src, cnt, base);  // before the collectives on the same stream
      for (int q = 0; q < n; ++q) fill<<<4, 256, 0, cs>>>(a2a_src + q * cnt, cnt, me * 100000 + q * 10 + round);
      fill_d<<<4, 256, 0, cs>>>(dsrc, cnt, me + round);
      shmemx_fcollectmem_on_stream(SHMEM_TEAM_WORLD, all, src, cnt * sizeof(int), st);
      shmemx_alltoallmem_on_stream(SHMEM_TEAM_WORLD, a2a_dst, a2a_src, cnt * sizeof(int), st);
      shmemx_broadcastmem_on_stream(SHMEM_TEAM_WORLD, bcast, src, cnt * sizeof(int), 1 % n, st);
      shmemx_int_sum_reduce_on_stream(SHMEM_TEAM_WORLD, isum, src, cnt, st);
      shmemx_double_max_reduce_on_stream(SHMEM_TEAM_WORLD, dmax, dsrc, cnt, st);
      // put+signal to the right, wait for the left's, then a kernel on the stream checks the data.
      shmemx_putmem_signal_on_stream(inbox, src, cnt * sizeof(int), sig, static_cast<std::uint64_t>(round),
                                     SHMEM_SIGNAL_SET, right, st);
      shmemx_signal_wait_until_on_stream(sig, SHMEM_CMP_GE, static_cast<std::uint64_t>(round), st);
      count_wrong<<<4, 256, 0, cs>>>(inbox, cnt, left * 100000 + round * 1000, wrong);
      shmemx_barrier_all_on_stream(st);  // nobody refills src before every PE read it
      CHECK_EQ(shmemx_stream_synchronize(st), 0);

      const auto got_all = host(all, static_cast<std::size_t>(cnt) * n);
      for (int p = 0; p < n; ++p)
        for (int i = 0; i < cnt; ++i) CHECK_EQ_AT(got_all[p * cnt + i], p * 100000 + round * 1000 + i, "fcollect[%d][%d]", p, i);
      const auto got_a2a = host(a2a_dst, static_cast<std::size_t>(cnt) * n);
      for (int p = 0; p < n; ++p)
        for (int i = 0; i < cnt; ++i) CHECK_EQ_AT(got_a2a[p * cnt + i], p * 100000 + me * 10 + round + i, "alltoall[%d][%d]", p, i);
      const auto got_b = host(bcast, cnt);
      for (int i = 0; i < cnt; ++i) CHECK_EQ_AT(got_b[i], (1 % n) * 100000 + round * 1000 + i, "broadcast[%d]", i);
      const auto got_s = host(isum, cnt);
      for (int i = 0; i < cnt; ++i) {
        long want = 0;
        for (int p = 0; p < n; ++p) want += p * 100000 + round * 1000 + i;
        CHECK_EQ_AT(static_cast<long>(got_s[i]), want, "sum[%d]", i);
      }
      const auto got_m = host(dmax, cnt);
      for (int i = 0; i < cnt; ++i) CHECK_EQ_AT(got_m[i], (n - 1 + round) * 0.5 + i, "max[%d]", i);
      CHECK_EQ(host(wrong, 1)[0], 0);
    }
  }

  // Reductions of every launch form (stream_plan.hpp): one block (one-shot, or two-shot in place),
  // a grid one-shot, a grid two-shot (more than one_shot_limit(2) = 8 MiB), in place and not, at
  // element offsets that leave dest and source 16-byte aligned alike (the vector loop after a
  // head) or not (the element loop). Every element is checked against the host's reduction in
  // member order: float sums equal to the bit.
  {
    constexpr std::size_t kMaxElems = (9u << 20) / sizeof(float) + 5;  // 9 MiB + 20 B of floats
    auto* fa = gpu<float>(kMaxElems + 32);
    auto* fb = gpu<float>(kMaxElems + 32);
    auto* ba = gpu<std::int8_t>(kMaxElems + 32);
    auto* bb = gpu<std::int8_t>(kMaxElems + 32);
    auto* xa = gpu<std::uint64_t>(40003 + 2);
    auto* xb = gpu<std::uint64_t>(40003 + 2);
    struct Case {
      std::size_t count;
      int src_off, dst_off;  // elements from the allocation's start (1..16); -1: in place (dst = src)
    };
    // Fewer elements than members (two-shot chunks left empty) and than a 16-byte head, one
    // block, grids one- and two-shot, in place and not, aligned alike and not.
    const Case cases[] = {{3, 1, -1},      {5, 1, 2},        {1000, 16, 16},       {1000, 1, -1},
                          {40003, 1, 1},   {40003, 1, 2},    {40003, 3, -1},       {kMaxElems, 16, 16},
                          {kMaxElems, 1, -1}, {300000, 2, 1}};
    constexpr unsigned char kPad = 0xA5;  // every byte around a destination keeps it
    for (const Case& c : cases) {
      float* fs = fa + c.src_off;
      float* fd = c.dst_off < 0 ? fs : fb + c.dst_off;
      std::int8_t* bs = ba + c.src_off;
      std::int8_t* bd = c.dst_off < 0 ? bs : bb + c.dst_off;
      for (void* p : {static_cast<void*>(fa), static_cast<void*>(fb)})
        CUDA_OK(cudaMemsetAsync(p, kPad, (kMaxElems + 32) * sizeof(float), cs));
      for (void* p : {static_cast<void*>(ba), static_cast<void*>(bb)}) CUDA_OK(cudaMemsetAsync(p, kPad, kMaxElems + 32, cs));
      fill_v<VF><<<64, 256, 0, cs>>>(fs, c.count, me);
      fill_v<V8><<<64, 256, 0, cs>>>(bs, c.count, me);
      shmemx_float_sum_reduce_on_stream(SHMEM_TEAM_WORLD, fd, fs, c.count, st);
      shmemx_int8_sum_reduce_on_stream(SHMEM_TEAM_WORLD, bd, bs, c.count, st);
      const std::size_t xn = c.count < 40003 ? c.count : 40003;
      std::uint64_t* xs = xa + (c.src_off & 1);
      std::uint64_t* xd = c.dst_off < 0 ? xs : xb + (c.dst_off & 1);
      fill_v<VX><<<64, 256, 0, cs>>>(xs, xn, me);
      shmemx_uint64_xor_reduce_on_stream(SHMEM_TEAM_WORLD, xd, xs, xn, st);
      shmemx_barrier_all_on_stream(st);  // nobody refills a source before every PE read it
      CHECK_EQ(shmemx_stream_synchronize(st), 0);
      // Each destination with the element before it and the one after it (padding: kPad bytes).
      const auto gf_pad = host(fd - 1, c.count + 2);
      const auto gb_pad = host(bd - 1, c.count + 2);
      const float* gf = gf_pad.data() + 1;
      const std::int8_t* gb = gb_pad.data() + 1;
      const auto gx = host(xd, xn);
      int bad = 0;
      for (const std::size_t i : {std::size_t{0}, c.count + 1}) {
        unsigned char fbytes[sizeof(float)];
        std::memcpy(fbytes, &gf_pad[i], sizeof fbytes);
        for (const unsigned char b : fbytes) CHECKF(b == kPad, "reduce of %zu: a float next to dest was written", c.count);
        CHECKF(static_cast<unsigned char>(gb_pad[i]) == kPad, "reduce of %zu: an int8 next to dest was written", c.count);
      }
      for (std::size_t i = 0; i < c.count && bad < 5; ++i) {
        float wf = VF::at(0, i);
        unsigned wb = static_cast<std::uint8_t>(V8::at(0, i));
        for (int p = 1; p < n; ++p) {
          wf = wf + VF::at(p, i);
          wb += static_cast<std::uint8_t>(V8::at(p, i));
        }
        if (std::memcmp(&gf[i], &wf, sizeof wf) != 0 || gb[i] != static_cast<std::int8_t>(wb & 0xff)) {
          ++bad;
          CHECKF(false, "reduce of %zu at offsets %d/%d: element %zu: float %a (want %a), int8 %d (want %d)",
                 c.count, c.src_off, c.dst_off, i, gf[i], wf, gb[i], static_cast<std::int8_t>(wb & 0xff));
        }
      }
      for (std::size_t i = 0; i < xn && bad < 5; ++i) {
        std::uint64_t w = 0;
        for (int p = 0; p < n; ++p) w ^= VX::at(p, i);
        if (gx[i] != w) {
          ++bad;
          CHECKF(false, "xor reduce of %zu: element %zu: %llx (want %llx)", xn, i,
                 static_cast<unsigned long long>(gx[i]), static_cast<unsigned long long>(w));
        }
      }
    }
    shmem_barrier_all();
    for (void* p : {static_cast<void*>(xb), static_cast<void*>(xa), static_cast<void*>(bb), static_cast<void*>(ba),
                    static_cast<void*>(fb), static_cast<void*>(fa)})
      shmemx_cuda_free(p);
  }

  // The kernel of a put-with-signal reads its payload at its address: from pinned host memory it
  // arrives; from pageable host memory it is refused before anything is enqueued (no signal
  // either), unless the device reads pageable memory (HMM, ATS), where it arrives too.
  {
    int* pinned = nullptr;
    CUDA_OK(cudaMallocHost(&pinned, kN * sizeof(int)));
    std::vector<int> pageable(kN);
    for (int i = 0; i < kN; ++i) pinned[i] = pageable[i] = me * 100000 + 9000 + i;
    int dev = 0, hmm = 0;
    CUDA_OK(cudaGetDevice(&dev));
    CUDA_OK(cudaDeviceGetAttribute(&hmm, cudaDevAttrPageableMemoryAccess, dev));
    for (int k = 0; k < 2; ++k) {
      const std::uint64_t round = 4 + static_cast<std::uint64_t>(k);
      shmemx_putmem_signal_on_stream(inbox, k == 0 ? pinned : pageable.data(), kN * sizeof(int), sig, round,
                                     SHMEM_SIGNAL_SET, right, st);
      if (k == 1 && !hmm) {
        CHECK_EQ(shmemx_stream_synchronize(st), SHMEMX_ERR_INVALID_ARGUMENT);
        continue;
      }
      shmemx_signal_wait_until_on_stream(sig, SHMEM_CMP_GE, round, st);
      count_wrong<<<4, 256, 0, cs>>>(inbox, kN, left * 100000 + 9000, wrong);
      shmemx_barrier_all_on_stream(st);  // nobody puts into inbox again before its owner checked it
      CHECK_EQ(shmemx_stream_synchronize(st), 0);
      CHECK_EQ(host(wrong, 1)[0], 0);
    }
    shmem_barrier_all();
    CUDA_OK(cudaFreeHost(pinned));
  }

  // Teams of the even and of the odd PEs: member i of my team is world PE 2 i + parity.
  shmem_team_t even = SHMEM_TEAM_INVALID, odd = SHMEM_TEAM_INVALID;
  CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, nullptr, 0, &even), 0);
  if (n > 1) CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, n / 2, nullptr, 0, &odd), 0);
  const shmem_team_t mine = me % 2 == 0 ? even : odd;
  const int parity = me % 2, tn = shmem_team_n_pes(mine);
  CHECK_EQ(shmem_team_my_pe(mine), me / 2);
  fill<<<4, 256, 0, cs>>>(src, kN, me * 100000 + 7000);
  shmemx_barrier_on_stream(mine, st);
  shmemx_fcollectmem_on_stream(mine, all, src, kN * sizeof(int), st);
  shmemx_int_sum_reduce_on_stream(mine, isum, src, kN, st);
  shmemx_broadcastmem_on_stream(mine, bcast, src, kN * sizeof(int), tn - 1, st);
  shmemx_barrier_on_stream(mine, st);
  CHECK_EQ(shmemx_stream_synchronize(st), 0);
  const auto team_all = host(all, static_cast<std::size_t>(kN) * tn);
  const auto team_sum = host(isum, kN);
  const auto team_b = host(bcast, kN);
  for (int i = 0; i < kN; ++i) {
    long want = 0;
    for (int m = 0; m < tn; ++m) {
      const int pe = 2 * m + parity;
      CHECK_EQ_AT(team_all[m * kN + i], pe * 100000 + 7000 + i, "team fcollect[%d][%d]", m, i);
      want += pe * 100000 + 7000 + i;
    }
    CHECK_EQ_AT(static_cast<long>(team_sum[i]), want, "team sum[%d]", i);
    CHECK_EQ_AT(team_b[i], (2 * (tn - 1) + parity) * 100000 + 7000 + i, "team broadcast[%d]", i);
  }
  shmem_barrier_all();  // nobody frees what a peer may still read
  if (odd != SHMEM_TEAM_INVALID) shmem_team_destroy(odd);
  if (even != SHMEM_TEAM_INVALID) shmem_team_destroy(even);

  // A team slot reused by other members: {0, 1} takes the lowest free slot (the even and odd
  // teams' are free again) for three barriers on the stream and is destroyed; {1, 2} then gets
  // the same slot, and its stream barrier cell. PE 1 has been through more barriers on the cell
  // than PE 2, which the barrier must not depend on (it kept a per-PE epoch there, and PE 1 then
  // waited for a flag PE 2 never raised that high: a timeout reported by the synchronize).
  if (n >= 3) {
    for (int pair = 0; pair < 2; ++pair) {
      shmem_team_t t = SHMEM_TEAM_INVALID;
      CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, pair, 1, 2, nullptr, 0, &t), 0);
      if (t != SHMEM_TEAM_INVALID) {
        for (int r = 0; r < (pair == 0 ? 3 : 1); ++r) shmemx_barrier_on_stream(t, st);
        CHECK_EQ(shmemx_stream_synchronize(st), 0);
      }
      shmem_barrier_all();
      if (t != SHMEM_TEAM_INVALID) shmem_team_destroy(t);
    }
  }

  CHECK_EQ(shmemx_stream_destroy(st), 0);
  CUDA_OK(cudaStreamDestroy(cs));
  for (void* p : {static_cast<void*>(wrong), static_cast<void*>(sig), static_cast<void*>(inbox),
                  static_cast<void*>(dmax), static_cast<void*>(dsrc), static_cast<void*>(isum),
                  static_cast<void*>(bcast), static_cast<void*>(a2a_dst), static_cast<void*>(a2a_src),
                  static_cast<void*>(all), static_cast<void*>(src)})
    shmemx_cuda_free(p);
  return check_finish("cuda_stream_pe");
}
