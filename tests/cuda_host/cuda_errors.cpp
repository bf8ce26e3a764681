// The GPU heap's failures, one per run (tests/cuda_host/CMakeLists.txt checks the messages):
//   null    every PE's shmemx_cuda_malloc returns NULL alike (no driver, no device, too large,
//           no peer access, ...) and the CPU heap still works; exits 0 when so
//   amo     a host atomic on GPU memory reaches the CUDA plugin's kernel, which the fake driver
//           cannot run: the job must end naming the routine and the CUDA runtime's reason
//   signal  put-with-signal whose signal word is GPU memory: the same
//   range   a put that crosses the end of the GPU heap: the same
#include <shmem.h>
#include <shmemx.h>

#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "null";
  shmem_init();
  const int me = shmem_my_pe(), next = (me + 1) % shmem_n_pes();
  auto* gpu = static_cast<long*>(shmemx_cuda_malloc(1024));
  if (std::strcmp(mode, "null") == 0) {
    auto* cpu = static_cast<long*>(shmem_malloc(sizeof(long)));
    const bool ok = gpu == nullptr && cpu != nullptr;
    if (cpu) *cpu = me;
    shmem_barrier_all();
    const bool cpu_ok = cpu && shmem_long_g(cpu, next) == next;
    shmem_finalize();
    if (!ok || !cpu_ok)
      std::fprintf(stderr, "cuda_errors: PE %d: gpu %p, cpu heap %s\n", me, static_cast<void*>(gpu),
                   cpu_ok ? "ok" : "broken");
    return ok && cpu_ok ? 0 : 1;
  }
  if (!gpu) return 3;  // the heap should exist for the other modes
  long v = 1;
  if (std::strcmp(mode, "amo") == 0) v = shmem_long_atomic_fetch_add(gpu, 1, next);
  if (std::strcmp(mode, "signal") == 0) {
    static long cpu_dest;
    shmem_putmem_signal(&cpu_dest, &v, sizeof v, reinterpret_cast<uint64_t*>(gpu), 1, SHMEM_SIGNAL_SET, next);
  }
  if (std::strcmp(mode, "range") == 0) {
    static char big[4 << 20];
    shmem_putmem(gpu, big, sizeof big, next);  // SHMEM_CUDA_HEAP_SIZE=2M in this test
  }
  std::fprintf(stderr, "cuda_errors: PE %d: mode %s did not end the job (%ld)\n", me, mode, v);
  shmem_finalize();
  return 2;
}
