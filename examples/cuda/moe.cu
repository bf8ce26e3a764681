// MoE dispatch and combine on the GPU (expert parallelism; examples/moe/README.md describes the
// pattern and its CPU form). Every PE holds `tokens` tokens of `hidden` floats and hosts
// `experts_per_pe` experts (expert e lives on PE e / experts_per_pe); a deterministic router gives
// each token `topk` distinct experts and a gate weight for each. Per iteration, on one stream:
//   dispatch (cooperative kernel): an alltoall of row counts (put_signal), each destination
//     answers every source with the offset of its region in the receive buffer (regions in
//     source-PE order), then each source pushes its rows there (one warp per row) followed by
//     their Meta records and a ready signal (putmem_signal_block);
//   experts (plain <<<>>> kernel): y = x * scale(e) + bias(e) for every received row;
//   combine (cooperative kernel): every result row goes back to its token's owner, into slot
//     (token, k) of its `combined` buffer, then one signal per owner; once all PEs have signalled,
//     each PE sums its tokens' results with the gate weights, in slot order.
// Every PE signals every PE in each step, even with no rows, so a PE that receives nothing (odd
// iterations leave one PE's experts without tokens) still knows when it has everything. Signals
// are set to the iteration number and never reset; the host barrier between iterations keeps the
// iterations apart. The dispatch and combine launches are cooperative: a block waits for blocks
// of other PEs which may wait for this PE's other blocks, so every block must be resident.
//
// The check is bitwise: tokens are integers in -32..31, expert outputs integers below 2^13 and
// weights multiples of 1/64, so every float operation is exact and each PE's outputs must equal
// its own host reference exactly.
//   oshrun -n 4 build/examples/cuda/moe [-t tokens] [-d hidden] [-e experts_per_pe] [-k topk] [-g blocks]
//                                       [-i iterations]
#include <shmem/device/device.hpp>
#include <utility>
#include <vector>

#include "common.cuh"

namespace dev = shmem::device;
using namespace cuda_examples;

namespace {

struct Meta {  // travels with every row: which token of the source, which of its k slots, which expert
  int token, slot, expert, pad;
};

__host__ __device__ float expert_scale(int e) { return static_cast<float>(1 + e % 7); }
__host__ __device__ float expert_bias(int e) { return static_cast<float>(e + 1); }

struct Layer {  // what the kernels see (by value); "sym" arrays are in the GPU symmetric heap
  int tokens, hidden, topk, experts_per_pe;
  std::uint64_t epoch;
  const float* x;                       // tokens × hidden
  const float* weight;                  // tokens × topk gate weights
  const Meta* send_meta;                // this PE's (token, slot, expert) pairs grouped by destination
  const std::int64_t* send_first;       // npes + 1: destination d's pairs are [first[d], first[d + 1])
  const std::int64_t* send_count;       // npes
  std::int64_t *region_off, *region_cnt;  // npes: where source s's rows are in recv_x (set by dispatch)
  float* y;                             // expert outputs, one row per received row
  float* out;                           // tokens × hidden: the layer's output
  int* errors;                          // records that name no pair of this PE
  std::int64_t* counts;                 // sym, npes: rows source s sends me
  std::int64_t* offsets;                // sym, npes: where my rows start at destination d
  float* recv_x;                        // sym, capacity × hidden
  Meta* recv_meta;                      // sym, capacity
  float* combined;                      // sym, tokens × topk × hidden
  std::uint64_t *count_sig, *offset_sig, *data_sig, *combine_sig;  // sym, npes each (slot = sender)
};

__device__ bool valid(const Layer& l, const Meta& m, int me) {
  return m.expert >= 0 && m.expert / l.experts_per_pe == me && m.token >= 0 && m.token < l.tokens && m.slot >= 0 &&
         m.slot < l.topk;
}
__device__ int warp_id() { return static_cast<int>(threadIdx.x / 32); }
__device__ int n_warps() { return static_cast<int>(blockDim.x / 32); }

__device__ void dispatch(const Layer& l, const dev::Block& b) {
  const int me = dev::my_pe(), np = dev::n_pes();
  const std::size_t row_bytes = static_cast<std::size_t>(l.hidden) * sizeof(float);
  // 1. Counts: block b tells the destinations b, b + grid, ... how many rows they get from me.
  if (b.thread_id == 0)
    for (int d = b.block_id; d < np; d += b.grid)
      dev::put_signal(l.counts + me, l.send_count + d, 1, l.count_sig + me, l.epoch, SHMEM_SIGNAL_SET, d);
  // 2. Offsets: once every count is in, block b answers the sources b, b + grid, ...
  if (b.thread_id == 0) {
    std::int64_t start = 0;
    for (int s = 0; s < np; ++s) {
      dev::signal_wait_until(l.count_sig + s, SHMEM_CMP_GE, l.epoch);
      if (s % b.grid == b.block_id) {
        l.region_off[s] = start;
        l.region_cnt[s] = l.counts[s];
        dev::put_signal(l.offsets + me, l.region_off + s, 1, l.offset_sig + me, l.epoch, SHMEM_SIGNAL_SET, s);
      }
      start += l.counts[s];
    }
  }
  // 3. Rows: block b serves the destinations me+1+b, me+1+b+grid, ... (the PEs start apart).
  for (int i = b.block_id; i < np; i += b.grid) {
    const int d = (me + 1 + i) % np;
    if (b.thread_id == 0) dev::signal_wait_until(l.offset_sig + d, SHMEM_CMP_GE, l.epoch);
    __syncthreads();
    const std::int64_t at = l.offsets[d], first = l.send_first[d], n = l.send_first[d + 1] - first;
    for (std::int64_t j = warp_id(); j < n; j += n_warps()) {
      const std::int64_t token = l.send_meta[first + j].token;
      dev::putmem_warp(l.recv_x + (at + j) * l.hidden, l.x + token * l.hidden, row_bytes, d);
    }
    // The records and the ready signal, after every warp's rows (the block form synchronises
    // the block and fences before signalling).
    dev::put_signal_block(b, l.recv_meta + at, l.send_meta + first, static_cast<std::size_t>(n), l.data_sig + me,
                          l.epoch, SHMEM_SIGNAL_SET, d);
  }
  // 4. Arrivals: block b waits for the sources b, b + grid, ...; the kernel's end publishes them.
  if (b.thread_id == 0)
    for (int s = b.block_id; s < np; s += b.grid) dev::signal_wait_until(l.data_sig + s, SHMEM_CMP_GE, l.epoch);
}

__global__ void experts(Layer l) {
  const int me = dev::my_pe(), np = dev::n_pes();
  const std::int64_t rows = l.region_off[np - 1] + l.region_cnt[np - 1];
  for (std::int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const Meta m = l.recv_meta[r];
    if (!valid(l, m, me)) {
      if (threadIdx.x == 0) atomicAdd(l.errors, 1);
      continue;
    }
    const float s = expert_scale(m.expert), c = expert_bias(m.expert);
    for (int i = threadIdx.x; i < l.hidden; i += blockDim.x) l.y[r * l.hidden + i] = l.recv_x[r * l.hidden + i] * s + c;
  }
}

__device__ void combine(const Layer& l, const dev::Block& b) {
  const int me = dev::my_pe(), np = dev::n_pes();
  const std::size_t row_bytes = static_cast<std::size_t>(l.hidden) * sizeof(float);
  // 1. Results back to their owners, into slot (token, k); then one signal per owner.
  for (int i = b.block_id; i < np; i += b.grid) {
    const int s = (me + 1 + i) % np;
    const std::int64_t lo = l.region_off[s], n = l.region_cnt[s];
    for (std::int64_t r = lo + warp_id(); r < lo + n; r += n_warps()) {
      const Meta m = l.recv_meta[r];
      if (valid(l, m, me))  // a bad record is counted by the expert kernel
        dev::putmem_warp(l.combined + (static_cast<std::int64_t>(m.token) * l.topk + m.slot) * l.hidden,
                         l.y + r * l.hidden, row_bytes, s);
    }
    __syncthreads();  // every warp's rows, then thread 0 fences them before its signal
    if (b.thread_id == 0) {
      dev::fence();
      dev::signal_op(l.combine_sig + me, l.epoch, SHMEM_SIGNAL_SET, s);
    }
  }
  // 2. Once every PE has returned its results: the weighted sums of this block's tokens.
  if (b.thread_id == 0)
    for (int s = 0; s < np; ++s) dev::signal_wait_until(l.combine_sig + s, SHMEM_CMP_GE, l.epoch);
  __syncthreads();
  for (int t = b.block_id; t < l.tokens; t += b.grid)
    for (int i = b.thread_id; i < l.hidden; i += b.block_dim) {
      float acc = 0.0f;
      for (int j = 0; j < l.topk; ++j)
        acc += l.weight[t * l.topk + j] * l.combined[(static_cast<std::int64_t>(t) * l.topk + j) * l.hidden + i];
      l.out[static_cast<std::int64_t>(t) * l.hidden + i] = acc;
    }
}

// The host side of one iteration: tokens, routes (k distinct experts each; on odd iterations none
// on the idle PE when the others host enough), and the pairs grouped by destination PE.
struct Batch {
  std::vector<float> x, weight;
  std::vector<int> expert;
  std::vector<Meta> meta;
  std::vector<std::int64_t> first, count;
};
Batch make_batch(int tokens, int hidden, int topk, int epp, int me, int np, int it) {
  Batch bt;
  bt.x.resize(static_cast<std::size_t>(tokens) * hidden);
  for (std::size_t v = 0; v < bt.x.size(); ++v)
    bt.x[v] = static_cast<float>(static_cast<int>(mix(me, v, it, 3) % 64) - 32);
  const int idle = np > 1 && it % 2 == 1 && (np - 1) * epp >= topk ? (it / 2) % np : -1;
  std::vector<int> candidates, pool;
  for (int e = 0; e < np * epp; ++e)
    if (e / epp != idle) candidates.push_back(e);
  bt.expert.resize(static_cast<std::size_t>(tokens) * topk);
  bt.weight.resize(bt.expert.size());
  for (int t = 0; t < tokens; ++t) {
    pool = candidates;  // a partial Fisher-Yates draw
    for (int j = 0; j < topk; ++j) {
      const std::uint64_t h = mix(me, t, j, it + 1000003);
      std::swap(pool[j], pool[j + h % (pool.size() - j)]);
      bt.expert[t * topk + j] = pool[j];
      bt.weight[t * topk + j] = static_cast<float>(1 + (h >> 32) % 64) / 64.0f;
    }
  }
  bt.count.assign(np, 0);
  for (int e : bt.expert) ++bt.count[e / epp];
  bt.first.assign(np + 1, 0);
  for (int d = 0; d < np; ++d) bt.first[d + 1] = bt.first[d] + bt.count[d];
  bt.meta.resize(bt.expert.size());
  std::vector<std::int64_t> next(bt.first.begin(), bt.first.end() - 1);
  for (int t = 0; t < tokens; ++t)
    for (int j = 0; j < topk; ++j) {
      const int e = bt.expert[t * topk + j];
      bt.meta[next[e / epp]++] = Meta{t, j, e, 0};
    }
  return bt;
}

template <class T>
void upload(T* dst, const std::vector<T>& v) {
  EXAMPLE_CUDA_CHECK(cudaMemcpy(dst, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
}

int run(int argc, char** argv) {
  Options opt(argc, argv, "[-t tokens] [-d hidden] [-e experts_per_pe] [-k topk] [-g blocks] [-i iterations]");
  const int tokens = static_cast<int>(opt.get("-t", 256, 1, 1 << 16));
  const int hidden = static_cast<int>(opt.get("-d", 1024, 1, 1 << 16));
  const int epp = static_cast<int>(opt.get("-e", 2, 1, 64));
  const int topk = static_cast<int>(opt.get("-k", 2, 1, 16));
  const int grid = static_cast<int>(opt.get("-g", 8, 1, 1024));
  const int iterations = static_cast<int>(opt.get("-i", 3, 1, 1000));
  opt.done();

  shmem_init();
  const int me = shmem_my_pe(), np = shmem_n_pes();
  if (topk > np * epp || np * epp > 4096) {  // the same on every PE: all stop alike
    if (me == 0)
      std::fprintf(stderr, "moe: -k %d needs at least that many experts (-e %d x %d PEs), at most 4096\n", topk, epp,
                   np);
    return 2;
  }
  const std::size_t capacity = static_cast<std::size_t>(np) * tokens * std::min(topk, epp);  // most rows a PE receives
  const std::size_t rows_out = static_cast<std::size_t>(tokens) * topk;
  GpuSymmetric<std::int64_t> counts(np), offsets(np);
  GpuSymmetric<float> recv_x(capacity * hidden), combined(rows_out * hidden);
  GpuSymmetric<Meta> recv_meta(capacity);
  GpuSymmetric<std::uint64_t> sigs(4 * static_cast<std::size_t>(np));
  use_device_of(counts.get());
  DeviceArray<float> x(static_cast<std::size_t>(tokens) * hidden), weight(rows_out), y(capacity * hidden);
  DeviceArray<float> out(static_cast<std::size_t>(tokens) * hidden);
  DeviceArray<Meta> send_meta(rows_out);
  DeviceArray<std::int64_t> send_first(np + 1), send_count(np), region(2 * np);
  DeviceArray<int> errors(1);
  EXAMPLE_CUDA_CHECK(cudaMemset(errors.get(), 0, sizeof(int)));

  Layer l{tokens, hidden, topk, epp, 0, x.get(), weight.get(), send_meta.get(), send_first.get(), send_count.get(),
          region.get(), region.get() + np, y.get(), out.get(), errors.get(), counts.get(), offsets.get(),
          recv_x.get(), recv_meta.get(), combined.get(), sigs.get(), sigs.get() + np, sigs.get() + 2 * np,
          sigs.get() + 3 * np};
  std::vector<float> got(static_cast<std::size_t>(tokens) * hidden);
  std::vector<std::int64_t> received(np);
  long wrong = 0, rows_received = 0;
  for (int it = 1; it <= iterations; ++it) {
    const Batch bt = make_batch(tokens, hidden, topk, epp, me, np, it);
    upload(x.get(), bt.x);
    upload(weight.get(), bt.weight);
    upload(send_meta.get(), bt.meta);
    upload(send_first.get(), bt.first);
    upload(send_count.get(), bt.count);
    // NaN in the output and in every combine slot: a result that does not arrive cannot pass.
    EXAMPLE_CUDA_CHECK(cudaMemset(out.get(), 0xff, out.bytes()));
    EXAMPLE_CUDA_CHECK(cudaMemset(combined.get(), 0xff, combined.bytes()));
    EXAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
    shmem_barrier_all();  // every PE is done with the previous iteration's buffers
    l.epoch = static_cast<std::uint64_t>(it);
    const Layer lc = l;
    launch_check(dev::launch(nullptr, grid, [=] __device__(const dev::Block& b) { dispatch(lc, b); },
                             {.block_dim = 256, .cooperative = true}));
    experts<<<4 * grid, 256>>>(lc);
    EXAMPLE_CUDA_CHECK(cudaGetLastError());
    launch_check(dev::launch(nullptr, grid, [=] __device__(const dev::Block& b) { combine(lc, b); },
                             {.block_dim = 256, .cooperative = true}));
    EXAMPLE_CUDA_CHECK(cudaDeviceSynchronize());
    EXAMPLE_CUDA_CHECK(cudaMemcpy(got.data(), out.get(), out.bytes(), cudaMemcpyDeviceToHost));
    long bad = 0;
    for (int t = 0; t < tokens; ++t)
      for (int i = 0; i < hidden; ++i) {
        float want = 0.0f;  // the same operations in the same order as the combine kernel, all exact
        for (int j = 0; j < topk; ++j) {
          const int e = bt.expert[t * topk + j];
          const float xv = bt.x[static_cast<std::size_t>(t) * hidden + i];
          want += bt.weight[t * topk + j] * (xv * expert_scale(e) + expert_bias(e));
        }
        const float g = got[static_cast<std::size_t>(t) * hidden + i];
        if (g != want && bad++ == 0)
          std::fprintf(stderr, "FAILED: PE %d iteration %d: token %d float %d is %g, expected %g\n", me, it, t, i, g,
                       want);
      }
    wrong += bad;
    EXAMPLE_CUDA_CHECK(cudaMemcpy(received.data(), l.region_cnt, np * sizeof(std::int64_t), cudaMemcpyDeviceToHost));
    for (const std::int64_t n : received) rows_received += static_cast<long>(n);
  }
  int device_errors = 0;
  EXAMPLE_CUDA_CHECK(cudaMemcpy(&device_errors, errors.get(), sizeof(int), cudaMemcpyDeviceToHost));
  if (device_errors != 0)
    std::fprintf(stderr, "FAILED: PE %d received %d records that name no expert of its own\n", me, device_errors);
  // Every (token, expert) pair of every PE must have been received exactly once somewhere.
  const long total_rows = shmem_examples::sum_over_pes(rows_received);
  const long expected_rows = static_cast<long>(np) * tokens * topk * iterations;
  if (me == 0)
    std::printf("moe: %d PEs x %d tokens x %d floats, %d experts (%d per PE), top-%d, %d blocks, %d iterations: "
                "%ld rows received (expected %ld)\n",
                np, tokens, hidden, np * epp, epp, topk, grid, iterations, total_rows, expected_rows);
  return verdict(wrong + device_errors + (total_rows != expected_rows), "moe");
}

}  // namespace

int main(int argc, char** argv) { return example_main(argc, argv, run); }
