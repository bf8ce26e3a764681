// stream_acl_kernels.cpp - a kernel written with Ascend SHMEM's device names (as an Ascend SHMEM allgather
// kernel would be), in its own translation unit as on Ascend SHMEM: every block puts its slice to
// every PE with a signal, waits for its slices from every PE, then all blocks take part in
// aclshmem_barrier_all (a cooperative launch); plus aclshmem atomics, p/g and team queries.
#include <shmemx.h>

#include <atomic>
#include <cstdio>
#include <shmem/device/aclshmem_device.hpp>
#include <vector>

namespace {

struct Args {
  int32_t* data;   // npes * grid * kPer, symmetric
  int32_t* flags;  // npes * grid, symmetric: flags[src * grid + block]
  int32_t* counter;
  int64_t* scratch;  // one word per block, symmetric
  int epoch;
  std::atomic<int>* bad;
};
constexpr int kPer = 256;
constexpr int kGrid = 4;

void allgather_kernel(const shmem::device::Block& b, const Args& a) {
  const int me = aclshmem_my_pe(), n = aclshmem_n_pes();
  std::vector<int32_t> mine(kPer);
  for (int i = 0; i < kPer; ++i) mine[static_cast<std::size_t>(i)] = me * 100000 + b.block_id * 1000 + i + a.epoch;
  const std::size_t slot = static_cast<std::size_t>(me) * kGrid + static_cast<std::size_t>(b.block_id);
  for (int k = 0; k < n; ++k) {
    const int pe = (me + k) % n;
    aclshmem_int32_put_signal(a.data + slot * kPer, mine.data(), kPer, a.flags + slot, a.epoch, ACLSHMEM_SIGNAL_SET,
                              pe);
  }
  for (int src = 0; src < n; ++src) {
    const std::size_t from = static_cast<std::size_t>(src) * kGrid + static_cast<std::size_t>(b.block_id);
    aclshmem_signal_wait_until(a.flags + from, ACLSHMEM_CMP_EQ, a.epoch);
    for (int i = 0; i < kPer; ++i)
      if (a.data[from * kPer + static_cast<std::size_t>(i)] != src * 100000 + b.block_id * 1000 + i + a.epoch)
        a.bad->fetch_add(1);
  }
  aclshmem_int32_atomic_add(a.counter, 1, 0);
  aclshmem_barrier_all();  // every block of every PE
  if (aclshmem_int32_atomic_fetch(a.counter, 0) != a.epoch * n * kGrid) a.bad->fetch_add(1);
  aclshmem_barrier_all();
  if (aclshmem_team_my_pe(ACLSHMEM_TEAM_WORLD) != me || aclshmem_team_n_pes(ACLSHMEM_TEAM_WORLD) != n)
    a.bad->fetch_add(1);
  // p to the right neighbour's word for this block; read back with g once everyone has written.
  const int right = (me + 1) % n;
  aclshmem_int64_p(a.scratch + b.block_id, int64_t{a.epoch} * 1000 + me, right);
  aclshmem_barrier_all();
  if (aclshmem_int64_g(a.scratch + b.block_id, right) != int64_t{a.epoch} * 1000 + me) a.bad->fetch_add(1);
}

}  // namespace

int run_acl_kernels() {
  const int n = aclshmem_n_pes();
  auto* data = static_cast<int32_t*>(shmem_calloc(static_cast<std::size_t>(n) * kGrid * kPer, sizeof(int32_t)));
  auto* flags = static_cast<int32_t*>(shmem_calloc(static_cast<std::size_t>(n) * kGrid, sizeof(int32_t)));
  auto* counter = static_cast<int32_t*>(shmem_calloc(1, sizeof(int32_t)));
  auto* scratch = static_cast<int64_t*>(shmem_calloc(kGrid, sizeof(int64_t)));
  std::atomic<int> bad{0};
  shmem_barrier_all();
  int failures = 0;
  for (int epoch = 1; epoch <= 3; ++epoch) {
    const Args a{data, flags, counter, scratch, epoch, &bad};
    const int rc = shmem::device::launch(
        nullptr, kGrid, [a](const shmem::device::Block& b) { allgather_kernel(b, a); }, {.cooperative = true});
    if (rc != 0 || shmemx_stream_synchronize(nullptr) != 0) ++failures;
  }
  if (bad.load() != 0) {
    std::fprintf(stderr, "PE %d: FAIL aclshmem-name kernel: %d mismatches\n", aclshmem_my_pe(), bad.load());
    ++failures;
  }
  shmem_barrier_all();
  shmem_free(scratch);
  shmem_free(counter);
  shmem_free(flags);
  shmem_free(data);
  return failures;
}
