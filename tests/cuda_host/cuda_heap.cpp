// The GPU heap under the fake driver (SHMEM_CUDA_DRIVER=libshmem_fakecuda.so), as real PEs:
// the state the sinks receive, the layout of the mapped range, the symmetric allocator, host
// RMA on GPU addresses of every PE (checked through this process's mapping of each peer's heap),
// and that finalize leaves no descriptor, mapping or driver object behind.
#include <cuda.h>
#include <dirent.h>
#include <shmem.h>
#include <shmemx.h>

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "fakecuda.h"
#include "shmem/device/cuda/state.hpp"

namespace dc = shmem::device::cuda;

namespace {

int g_failures = 0;
#define CHECK(cond, ...)                                                         \
  do {                                                                           \
    if (!(cond)) {                                                               \
      std::fprintf(stderr, "cuda_heap: %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      std::fprintf(stderr, __VA_ARGS__);                                         \
      std::fprintf(stderr, "\n");                                                \
      ++g_failures;                                                              \
    }                                                                            \
  } while (0)

dc::GpuState g_state;  // the last state a sink received
int g_calls = 0, g_late_calls = 0;
void sink(const void* s, std::size_t bytes, int) {
  if (bytes == sizeof g_state) std::memcpy(&g_state, s, bytes);
  ++g_calls;
}
void late_sink(const void* s, std::size_t, int) {
  g_late_calls += static_cast<const dc::GpuState*>(s)->version == dc::kGpuStateVersion;
}
// Registered when the program loads, before shmem_init, as device modules do.
const int g_registered = shmemx_cuda_state_sink_add(sink);

// Open descriptors (those whose target contains `what`, when given).
int count_fds(const char* what = nullptr) {
  int n = 0;
  if (DIR* d = opendir("/proc/self/fd")) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] == '.') continue;
      char target[256] = "";
      const std::string link = std::string("/proc/self/fd/") + e->d_name;
      const ssize_t len = readlink(link.c_str(), target, sizeof target - 1);
      n += !what || (len > 0 && std::strstr(target, what));
    }
    closedir(d);
  }
  return n - (what ? 0 : 1);  // the directory's own descriptor
}

int count_maps(const char* what) {
  std::ifstream f("/proc/self/maps");
  int n = 0;
  for (std::string line; std::getline(f, line);) n += line.find(what) != std::string::npos;
  return n;
}

long pattern(int pe, std::size_t i) { return 1000003L * (pe + 1) + static_cast<long>(i); }

// pe's copy of `sym` (a GPU symmetric address) as mapped in this process, read by the driver.
const long* through_mapping(const void* sym, int pe, std::size_t bytes) {
  const char* peer =
      g_state.base + static_cast<std::size_t>(pe) * g_state.stride + (static_cast<const char*>(sym) - g_state.my_heap);
  return static_cast<const long*>(fakecuda_host_view(peer, bytes));
}

}  // namespace

int main() {
  CHECK(g_registered == 0, "sink_add returned %d", g_registered);
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const int fds_before = count_fds();
  CHECK(g_calls == 0, "a sink was called before the GPU heap existed");

  // The first allocation creates the heap and publishes the state.
  const std::size_t count = 4096;
  auto* buf = static_cast<long*>(shmemx_cuda_malloc(count * sizeof(long)));
  CHECK(buf != nullptr, "shmemx_cuda_malloc failed");
  if (!buf) return 1;
  CHECK(g_calls == 1 && g_state.version == dc::kGpuStateVersion, "calls %d version %u", g_calls, g_state.version);
  CHECK(g_state.my_pe == me && g_state.n_pes == n, "pe %d/%d", g_state.my_pe, g_state.n_pes);
  CHECK(g_state.n_local == n && g_state.my_local == me, "local %d/%d", g_state.my_local, g_state.n_local);
  CHECK(g_state.stride % (2u << 20) == 0 && g_state.heap_size == g_state.stride && g_state.heap_size >= (8u << 20),
        "stride %zu heap %zu", g_state.stride, g_state.heap_size);
  CHECK(g_state.my_heap == g_state.base + static_cast<std::size_t>(me) * g_state.stride, "my_heap");
  CHECK(reinterpret_cast<std::uintptr_t>(g_state.base) % (2u << 20) == 0, "base %p", static_cast<void*>(g_state.base));
  CHECK(reinterpret_cast<char*>(buf) == g_state.my_heap + dc::kGpuInternalBytes, "first object at %p",
        static_cast<void*>(buf));
  CHECK(g_state.device == (std::getenv("FAKECUDA_DEVICES") ? me % std::atoi(std::getenv("FAKECUDA_DEVICES")) : 0),
        "device %d", g_state.device);
  CHECK(g_state.status != nullptr && g_state.status->code == 0 && g_state.status->pe == me, "status record");
  const auto* index = static_cast<const std::int32_t*>(fakecuda_host_view(g_state.local_index, sizeof(int) * n));
  CHECK(index != nullptr, "local_index is not device memory");
  for (int pe = 0; index && pe < n; ++pe) CHECK(index[pe] == pe, "local_index[%d] = %d", pe, index[pe]);
  // The internal area starts zeroed, on every PE (read through the mapping).
  for (int pe = 0; pe < n; ++pe) {
    const auto* internal =
        reinterpret_cast<const unsigned char*>(through_mapping(g_state.my_heap, pe, dc::kGpuInternalBytes));
    bool zero = internal != nullptr;
    for (std::size_t i = 0; zero && i < dc::kGpuInternalBytes; ++i) zero = internal[i] == 0;
    CHECK(zero, "PE %d's internal area is not zeroed", pe);
  }
  // Host memory is not device memory: the mapping holds what the host cannot touch.
  CHECK(fakecuda_host_view(&count, 8) == nullptr, "host memory seen as device memory");

  // Put our pattern into our own copy, then every PE reads every other PE's.
  std::vector<long> mine(count), got(count);
  for (std::size_t i = 0; i < count; ++i) mine[i] = pattern(me, i);
  shmem_putmem(buf, mine.data(), count * sizeof(long), me);
  shmem_barrier_all();
  for (int pe = 0; pe < n; ++pe) {
    shmem_getmem(got.data(), buf, count * sizeof(long), pe);
    const long* mapped = through_mapping(buf, pe, count * sizeof(long));
    CHECK(mapped != nullptr, "PE %d's heap is not mapped here", pe);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < count; ++i) bad += got[i] != pattern(pe, i) || (mapped && mapped[i] != pattern(pe, i));
    CHECK(bad == 0, "PE %d: %zu of %zu words differ", pe, bad, count);
  }
  shmem_barrier_all();
  // The driver calls left this thread's current context as they found it (none).
  void* get_current = nullptr;
  cuGetProcAddress_v2("cuCtxGetCurrent", &get_current, 12000, CU_GET_PROC_ADDRESS_DEFAULT, nullptr);
  CUcontext current = nullptr;
  reinterpret_cast<decltype(&cuCtxGetCurrent)>(get_current)(&current);
  CHECK(current == nullptr, "the library left a CUDA context current on the application's thread");

  // Single elements and strides, to the next PE; results checked by their owner.
  const int next = (me + 1) % n, prev = (me + n - 1) % n;
  shmem_long_p(buf + 1, 77 + me, next);
  long s3[3] = {5 + me, 6 + me, 7 + me};
  shmem_long_iput(buf + 100, s3, 4, 1, 3, next);  // buf[100], [104], [108]
  int i16 = 0x1234 + me;
  shmem_putmem_nbi(buf + 200, &i16, sizeof i16, next);
  shmem_quiet();
  shmem_barrier_all();
  CHECK(shmem_long_g(buf + 1, me) == 77 + prev, "p/g: %ld", shmem_long_g(buf + 1, me));
  long back[6] = {};
  shmem_long_iget(back, buf + 100, 2, 4, 3, me);  // back[0], [2], [4]
  CHECK(back[0] == 5 + prev && back[2] == 6 + prev && back[4] == 7 + prev && back[1] == 0, "iput/iget %ld %ld %ld",
        back[0], back[2], back[4]);
  int i16_back = 0;
  shmem_getmem(&i16_back, buf + 200, sizeof i16_back, me);
  CHECK(i16_back == 0x1234 + prev, "put_nbi: %x", i16_back);
  long blocks[4] = {};
  shmem_long_ibget(blocks, buf + 100, 2, 4, 1, 2, me);  // blocks of 1 from buf[100], buf[104]
  CHECK(blocks[0] == 5 + prev && blocks[2] == 6 + prev, "ibget %ld %ld", blocks[0], blocks[2]);
  shmem_barrier_all();

  // The allocator: symmetric offsets, alignment, calloc zeroes, free and reuse, exhaustion.
  auto* aligned = static_cast<char*>(shmemx_cuda_align(1 << 16, 100));
  CHECK(aligned && reinterpret_cast<std::uintptr_t>(aligned) % (1 << 16) == 0, "align %p", static_cast<void*>(aligned));
  static long offsets[2];
  offsets[0] = aligned - g_state.my_heap;
  long from0[2] = {};
  shmem_barrier_all();
  shmem_long_get(from0, offsets, 1, 0);
  CHECK(from0[0] == offsets[0], "offset %ld on PE %d, %ld on PE 0", offsets[0], me, from0[0]);
  shmem_putmem(buf + 300, mine.data(), 64, me);  // dirty memory the next calloc may reuse
  auto* zeroed = static_cast<long*>(shmemx_cuda_calloc(512, sizeof(long)));
  CHECK(zeroed != nullptr, "calloc");
  std::vector<long> z(512, -1);
  if (zeroed) shmem_getmem(z.data(), zeroed, 512 * sizeof(long), next);
  std::size_t nonzero = 0;
  for (long v : z) nonzero += v != 0;
  CHECK(nonzero == 0, "calloc: %zu words of PE %d are not zero", nonzero, next);
  shmemx_cuda_free(zeroed);
  auto* again = static_cast<long*>(shmemx_cuda_malloc(512 * sizeof(long)));
  CHECK(again == zeroed, "free + malloc: %p then %p", static_cast<void*>(zeroed), static_cast<void*>(again));
  CHECK(shmemx_cuda_malloc(std::size_t{1} << 40) == nullptr, "a 1 TiB GPU allocation succeeded");
  CHECK(shmemx_cuda_malloc(0) == nullptr, "malloc(0)");
  shmemx_cuda_free(again);
  shmemx_cuda_free(aligned);

  // GPU to GPU: our own GPU memory (buf[400..463] = pattern(me)) as the local buffer of a put and a get.
  auto* copy = static_cast<long*>(shmemx_cuda_malloc(64 * sizeof(long)));
  CHECK(copy != nullptr, "malloc for the GPU-to-GPU copy");
  if (copy) {
    shmem_putmem(copy, buf + 400, 64 * sizeof(long), next);
    shmem_barrier_all();
    shmem_getmem(buf + 1000, copy, 64 * sizeof(long), me);  // into our own GPU memory
    std::vector<long> check(64);
    shmem_getmem(check.data(), buf + 1000, 64 * sizeof(long), me);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < 64; ++i) bad += check[i] != pattern(prev, 400 + i);
    CHECK(bad == 0, "GPU-to-GPU put/get: %zu of 64 words differ", bad);
    shmemx_cuda_free(copy);
  }

  // Host waits and tests on GPU words (the host cannot load them: the library reads copies).
  // Each PE writes into the next PE's words; every PE waits on its own, written by the previous.
  {
    auto* words = reinterpret_cast<std::uint64_t*>(buf + 2000);  // 4 words
    auto* word32 = reinterpret_cast<std::int32_t*>(buf + 2010);
    const std::uint64_t zero[5] = {};
    shmem_putmem(words, zero, sizeof zero, me);
    shmem_barrier_all();
    CHECK(!shmem_uint64_test(words, SHMEM_CMP_EQ, 9 + static_cast<std::uint64_t>(prev)),
          "test on GPU memory saw a value nobody wrote");
    shmem_barrier_all();  // every PE has looked before any writes
    const std::uint64_t v = 9 + static_cast<std::uint64_t>(me);
    shmem_putmem(words, &v, sizeof v, next);
    shmem_uint64_wait_until(words, SHMEM_CMP_EQ, 9 + static_cast<std::uint64_t>(prev));
    const std::uint64_t three[3] = {1u + me, 2u + me, 3u + me};
    shmem_putmem(words + 1, three, sizeof three, next);
    shmem_uint64_wait_until_all(words + 1, 3, nullptr, SHMEM_CMP_GE, 1 + static_cast<std::uint64_t>(prev));
    CHECK(shmem_uint64_test_all(words + 1, 3, nullptr, SHMEM_CMP_GT, static_cast<std::uint64_t>(prev)),
          "test_all on GPU memory after wait_until_all");
    std::size_t idx[3] = {};
    CHECK(shmem_uint64_test_some(words + 1, 3, idx, nullptr, SHMEM_CMP_EQ, 2 + static_cast<std::uint64_t>(prev)) == 1 &&
              idx[0] == 1,
          "test_some on GPU memory: index %zu", idx[0]);
    CHECK(shmem_signal_fetch(words) == 9 + static_cast<std::uint64_t>(prev), "signal_fetch on GPU memory: %llu",
          static_cast<unsigned long long>(shmem_signal_fetch(words)));
    CHECK(shmem_signal_wait_until(words, SHMEM_CMP_GE, 9) == 9 + static_cast<std::uint64_t>(prev),
          "signal_wait_until on GPU memory");
    const std::int32_t v32 = -5 - me;
    shmem_putmem(word32, &v32, sizeof v32, next);
    shmem_int32_wait_until(word32, SHMEM_CMP_EQ, -5 - prev);
    shmem_barrier_all();
  }

  // The device team table (what kernels read for teams other than the world): the predefined
  // teams, entered when the heap was made; a split team while it lives, cleared when destroyed.
  {
    const auto team_entry = [](int slot) {
      const auto* t = static_cast<const dc::GpuTeam*>(fakecuda_host_view(g_state.teams + slot, sizeof(dc::GpuTeam)));
      return t ? *t : dc::GpuTeam{};
    };
    CHECK(g_state.teams != nullptr, "no device team table in the GPU state");
    const dc::GpuTeam world = team_entry(0), shared = team_entry(1);
    CHECK(world.handle == reinterpret_cast<std::uintptr_t>(SHMEM_TEAM_WORLD) && world.n == n && world.me == me,
          "world entry: handle %llu n %d me %d", static_cast<unsigned long long>(world.handle), world.n, world.me);
    CHECK(shared.handle == reinterpret_cast<std::uintptr_t>(SHMEM_TEAM_SHARED) && shared.n == n && shared.me == me,
          "shared entry: handle %llu n %d me %d", static_cast<unsigned long long>(shared.handle), shared.n, shared.me);
    shmem_team_t odd = SHMEM_TEAM_INVALID;
    if (n > 1) shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, n / 2, nullptr, 0, &odd);
    if (odd != SHMEM_TEAM_INVALID) {
      int found = -1;
      for (int slot = 0; slot < dc::kGpuTeams; ++slot)
        if (team_entry(slot).handle == reinterpret_cast<std::uintptr_t>(odd)) found = slot;
      CHECK(found >= 2, "the split team is not in the device team table");
      if (found >= 2) {
        const dc::GpuTeam t = team_entry(found);
        CHECK(t.n == n / 2 && t.me == me / 2 && t.slot == found, "split entry: n %d me %d slot %d", t.n, t.me, t.slot);
        const auto* members =
            static_cast<const std::int32_t*>(fakecuda_host_view(t.members, sizeof(std::int32_t) * t.n));
        CHECK(members != nullptr, "the split team's members are not device memory");
        for (int i = 0; members && i < t.n; ++i) CHECK(members[i] == 2 * i + 1, "member %d is PE %d", i, members[i]);
        shmem_team_destroy(odd);
        CHECK(team_entry(found).handle == 0, "the destroyed team's entry was not cleared");
      }
    }
    shmem_barrier_all();
    // A slot reused by other members: {0, 1} is made and destroyed, then {1, 2} gets the same slot
    // and must name its own member list (the device copies are kept by membership, not by slot).
    if (n >= 3) {
      int slot_of[2] = {-1, -1};
      for (int pair = 0; pair < 2; ++pair) {
        shmem_team_t t = SHMEM_TEAM_INVALID;
        shmem_team_split_strided(SHMEM_TEAM_WORLD, pair, 1, 2, nullptr, 0, &t);
        if (t != SHMEM_TEAM_INVALID) {
          for (int slot = 0; slot < dc::kGpuTeams; ++slot)
            if (team_entry(slot).handle == reinterpret_cast<std::uintptr_t>(t)) slot_of[pair] = slot;
          const dc::GpuTeam e = team_entry(std::max(slot_of[pair], 0));
          const auto* members = static_cast<const std::int32_t*>(fakecuda_host_view(e.members, 2 * sizeof(int)));
          CHECK(slot_of[pair] >= 2 && e.n == 2 && members != nullptr && members[0] == pair && members[1] == pair + 1,
                "pair %d: slot %d, %d members: %d %d", pair, slot_of[pair], e.n, members ? members[0] : -1,
                members ? members[1] : -1);
        }
        shmem_barrier_all();
        if (t != SHMEM_TEAM_INVALID) shmem_team_destroy(t);
      }
      if (me == 1)
        CHECK(slot_of[0] == slot_of[1], "pair {1, 2} got slot %d, not pair {0, 1}'s %d", slot_of[1], slot_of[0]);
    }
    shmem_barrier_all();
  }

  // A sink added now hears of the existing heap at once.
  shmemx_cuda_state_sink_add(late_sink);
  CHECK(g_late_calls == 1, "late sink called %d times", g_late_calls);

  FakeCudaLive live{};
  fakecuda_live(&live);
  CHECK(live.allocations == n && live.reservations == 1 && live.retained == 1 && live.streams == 1,
        "while the heap lives: %d allocations, %d reservations, %d retained, %d streams", live.allocations,
        live.reservations, live.retained, live.streams);
  CHECK(count_maps("memfd:fakecuda") > 0, "no memfd mapping while the heap lives");
  // The driver holds one descriptor per allocation (ours and the imported ones); the exported
  // and received descriptors are closed once mapped.
  CHECK(count_fds("fakecuda") == n && count_fds() == fds_before + n, "%d fakecuda descriptors, %d in all (%d before)",
        count_fds("fakecuda"), count_fds(), fds_before);
  shmemx_cuda_free(buf);
  shmem_finalize();

  CHECK(g_state.version == 0, "finalize did not publish the empty state (version %u)", g_state.version);
  fakecuda_live(&live);
  CHECK(live.allocations == 0 && live.reservations == 0 && live.mappings == 0 && live.host_allocations == 0 &&
            live.streams == 0 && live.retained == 0,
        "left behind: %d allocations, %d reservations, %d mappings, %d pinned, %d streams, %d contexts",
        live.allocations, live.reservations, live.mappings, live.host_allocations, live.streams, live.retained);
  CHECK(count_maps("memfd:fakecuda") == 0, "%d memfd mappings left", count_maps("memfd:fakecuda"));
  CHECK(count_fds("fakecuda") == 0, "%d driver descriptors left", count_fds("fakecuda"));
  if (g_failures == 0 && me == 0) std::printf("cuda_heap: %d PEs OK\n", n);
  return g_failures == 0 ? 0 : 1;
}
