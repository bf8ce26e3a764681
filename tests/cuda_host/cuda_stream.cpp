// Streams wrapping CUDA streams (fake driver): work on them runs after the CUDA stream's and
// reaches GPU memory from the stream's thread, synchronize returns a kernel's reported error
// once (PE 0 plays the failing kernel by filling the status record, which is pinned host
// memory), a CUDA stream the driver does not know is reported, and none exists before the heap.
#include <cuda.h>
#include <shmem.h>
#include <shmemx.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "fakecuda.h"
#include "shmem/device/cuda/state.hpp"

namespace dc = shmem::device::cuda;

namespace {

dc::GpuState g_state;
const int g_sink =
    shmemx_cuda_state_sink_add([](const void* s, std::size_t, int) { std::memcpy(&g_state, s, sizeof g_state); });

template <class F>
F driver(const char* name) {
  void* fn = nullptr;
  cuGetProcAddress_v2(name, &fn, 12000, CU_GET_PROC_ADDRESS_DEFAULT, nullptr);
  return reinterpret_cast<F>(fn);
}

}  // namespace

int main(int argc, char** argv) {
  int failures = g_sink;
  auto check = [&](bool ok, const char* what) {
    if (!ok) std::fprintf(stderr, "cuda_stream: PE %d: %s\n", shmem_my_pe(), what), ++failures;
  };
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes(), next = (me + 1) % n;
  shmemx_stream_t st = nullptr;
  check(shmemx_stream_create_cuda(&st, nullptr) == SHMEMX_ERR_NOT_SUPPORTED, "a CUDA stream without a GPU heap");
  auto* buf = static_cast<long*>(shmemx_cuda_calloc(16, sizeof(long)));
  check(buf != nullptr, "shmemx_cuda_calloc");
  if (!buf) return 1;

  // The application's own CUDA stream, made with the driver in its primary context.
  CUcontext ctx = nullptr;
  CUstream cs = nullptr;
  driver<decltype(&cuDevicePrimaryCtxRetain)>("cuDevicePrimaryCtxRetain")(&ctx, g_state.device);
  driver<decltype(&cuCtxSetCurrent)>("cuCtxSetCurrent")(ctx);
  check(driver<decltype(&cuStreamCreate)>("cuStreamCreate")(&cs, 0) == CUDA_SUCCESS, "cuStreamCreate");

  check(shmemx_stream_create_cuda(&st, cs) == 0, "shmemx_stream_create_cuda");
  check(shmemx_stream_cuda_handle(st) == cs, "shmemx_stream_cuda_handle");
  // The end of a run of one mode (below): the streams and the heap go.
  const auto finish_mode = [&] {
    shmemx_stream_destroy(st);
    driver<decltype(&cuStreamDestroy)>("cuStreamDestroy")(cs);
    shmem_barrier_all();
    shmemx_cuda_free(buf);
    shmem_finalize();
    return failures == 0 ? 0 : 1;
  };
  if (argc > 1 && std::strcmp(argv[1], "put_signal") == 0) {
    // The fake driver runs no kernels, so the put's kernel is refused: the signal after it must
    // not be enqueued either (ctest counts one "refused" line per PE, the put's).
    auto* sig = reinterpret_cast<std::uint64_t*>(buf + 15);
    shmemx_putmem_signal_on_stream(buf + 8, buf, 8, sig, 1, SHMEM_SIGNAL_ADD, next, st);
    check(shmemx_stream_synchronize(st) == SHMEMX_ERR_INTERNAL, "a put-with-signal the CUDA stream refused");
    return finish_mode();
  }
  if (argc > 1 && std::strcmp(argv[1], "put_signal_source") == 0) {
    // A kernel reads the payload of a put-with-signal on a CUDA stream at its address: a plain
    // pageable source (which the kernel would fault on) is refused before anything is enqueued,
    // naming the routine and the argument (ctest counts those lines), unless the device reads
    // pageable memory (FAKECUDA_PAGEABLE=1). Pinned host and device memory go to the kernel,
    // which the fake driver then refuses.
    const char* hmm = std::getenv("FAKECUDA_PAGEABLE");
    const bool pageable_ok = hmm && *hmm == '1';
    auto* sig = reinterpret_cast<std::uint64_t*>(buf + 15);
    static long pageable[2] = {1, 2};
    shmemx_putmem_signal_on_stream(buf + 8, pageable, sizeof pageable, sig, 1, SHMEM_SIGNAL_ADD, next, st);
    check(shmemx_stream_synchronize(st) == (pageable_ok ? SHMEMX_ERR_INTERNAL : SHMEMX_ERR_INVALID_ARGUMENT),
          "a put-with-signal from pageable host memory");
    shmemx_putmem_signal_on_stream(buf + 8, nullptr, 8, sig, 1, SHMEM_SIGNAL_ADD, next, st);
    check(shmemx_stream_synchronize(st) == SHMEMX_ERR_INVALID_ARGUMENT, "a put-with-signal from NULL");
    void* pinned = nullptr;
    CUdeviceptr device = 0;
    check(driver<decltype(&cuMemHostAlloc)>("cuMemHostAlloc")(&pinned, 64, 0) == CUDA_SUCCESS, "cuMemHostAlloc");
    check(driver<decltype(&cuMemAlloc)>("cuMemAlloc")(&device, 64) == CUDA_SUCCESS, "cuMemAlloc");
    shmemx_putmem_signal_on_stream(buf + 8, pinned, 16, sig, 1, SHMEM_SIGNAL_ADD, next, st);
    check(shmemx_stream_synchronize(st) == SHMEMX_ERR_INTERNAL, "a put-with-signal from pinned host memory");
    shmemx_putmem_signal_on_stream(buf + 8, reinterpret_cast<void*>(device), 16, sig, 1, SHMEM_SIGNAL_ADD, next, st);
    check(shmemx_stream_synchronize(st) == SHMEMX_ERR_INTERNAL, "a put-with-signal from device memory");
    shmemx_putmem_signal_on_stream(buf + 8, buf, 16, sig, 1, SHMEM_SIGNAL_ADD, next, st);
    check(shmemx_stream_synchronize(st) == SHMEMX_ERR_INTERNAL, "a put-with-signal from the GPU heap");
    driver<decltype(&cuMemFreeHost)>("cuMemFreeHost")(pinned);
    driver<decltype(&cuMemFree)>("cuMemFree")(device);
    return finish_mode();
  }
  if (argc > 1 && std::strcmp(argv[1], "put_signal_peer") == 0) {
    // The PEs run on device 0 of two (SHMEM_CUDA_DEVICE=0, FAKECUDA_DEVICES=2); the source lives
    // on device 1: a cuMemAlloc block made in device 1's context and cuMem memory mapped for
    // device 1 only. A kernel of device 0 reads neither, without peer access (FAKECUDA_NO_PEER=1)
    // nor until it is enabled (cuMemAlloc) or granted (cuMemSetAccess): refused, naming the
    // routine, the argument and the device (ctest counts those lines); once mapped, the kernel
    // gets them (and the fake driver refuses it).
    const char* no_peer = std::getenv("FAKECUDA_NO_PEER");
    const bool peer = !(no_peer && *no_peer == '1');
    auto* sig = reinterpret_cast<std::uint64_t*>(buf + 15);
    CUcontext ctx1 = nullptr;
    CUdeviceptr legacy = 0, va = 0;
    CUmemGenericAllocationHandle h = 0;
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 1;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    std::size_t size = 0;
    CUmemAccessDesc access{};
    access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    access.location.id = 1;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    check(g_state.device == 0, "the PE runs on device 0");
    check(driver<decltype(&cuDevicePrimaryCtxRetain)>("cuDevicePrimaryCtxRetain")(&ctx1, 1) == CUDA_SUCCESS &&
              driver<decltype(&cuCtxSetCurrent)>("cuCtxSetCurrent")(ctx1) == CUDA_SUCCESS &&
              driver<decltype(&cuMemAlloc)>("cuMemAlloc")(&legacy, 64) == CUDA_SUCCESS &&
              driver<decltype(&cuMemGetAllocationGranularity)>("cuMemGetAllocationGranularity")(
                  &size, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED) == CUDA_SUCCESS &&
              driver<decltype(&cuMemCreate)>("cuMemCreate")(&h, size, &prop, 0) == CUDA_SUCCESS &&
              driver<decltype(&cuMemAddressReserve)>("cuMemAddressReserve")(&va, size, 0, 0, 0) == CUDA_SUCCESS &&
              driver<decltype(&cuMemMap)>("cuMemMap")(va, size, 0, h, 0) == CUDA_SUCCESS &&
              driver<decltype(&cuMemSetAccess)>("cuMemSetAccess")(va, size, &access, 1) == CUDA_SUCCESS &&
              driver<decltype(&cuCtxSetCurrent)>("cuCtxSetCurrent")(ctx) == CUDA_SUCCESS,
          "memory of device 1");
    const void* sources[] = {reinterpret_cast<void*>(legacy), reinterpret_cast<void*>(va)};
    for (const void* source : sources) {
      shmemx_putmem_signal_on_stream(buf + 8, source, 16, sig, 1, SHMEM_SIGNAL_ADD, next, st);
      check(shmemx_stream_synchronize(st) == SHMEMX_ERR_INVALID_ARGUMENT, "a source on device 1 device 0 cannot read");
    }
    if (peer) {
      access.location.id = 0;
      check(driver<decltype(&cuCtxEnablePeerAccess)>("cuCtxEnablePeerAccess")(ctx1, 0) == CUDA_SUCCESS &&
                driver<decltype(&cuMemSetAccess)>("cuMemSetAccess")(va, size, &access, 1) == CUDA_SUCCESS,
            "peer access to device 1");
      for (const void* source : sources) {
        shmemx_putmem_signal_on_stream(buf + 8, source, 16, sig, 1, SHMEM_SIGNAL_ADD, next, st);
        check(shmemx_stream_synchronize(st) == SHMEMX_ERR_INTERNAL, "a source on device 1 mapped for device 0");
      }
    }
    driver<decltype(&cuMemUnmap)>("cuMemUnmap")(va, size);
    driver<decltype(&cuMemAddressFree)>("cuMemAddressFree")(va, size);
    driver<decltype(&cuMemRelease)>("cuMemRelease")(h);
    driver<decltype(&cuMemFree)>("cuMemFree")(legacy);
    driver<decltype(&cuDevicePrimaryCtxRelease)>("cuDevicePrimaryCtxRelease")(1);
    return finish_mode();
  }
  const long v[2] = {10 + me, 20 + me};
  shmemx_putmem_on_stream(buf + 2, v, sizeof v, next, st);
  check(shmemx_stream_synchronize(st) == 0, "synchronize after a put");
  shmem_barrier_all();
  long got[2] = {};
  shmem_getmem(got, buf + 2, sizeof got, me);
  const int prev = (me + n - 1) % n;
  check(got[0] == 10 + prev && got[1] == 20 + prev, "the put on the CUDA-wrapped stream");

  // Arguments the kernels cannot take are refused on the host, before anything is enqueued: a
  // misaligned wait word (an exception in the kernel), sizes whose byte counts overflow (they
  // wrapped to a few bytes that passed the heap checks).
  shmemx_signal_wait_until_on_stream(reinterpret_cast<std::uint64_t*>(reinterpret_cast<char*>(buf) + 4), SHMEM_CMP_EQ,
                                     0, st);
  check(shmemx_stream_synchronize(st) == SHMEMX_ERR_INVALID_ARGUMENT, "a misaligned wait word");
  shmemx_long_sum_reduce_on_stream(SHMEM_TEAM_WORLD, buf + 8, buf, SIZE_MAX / 4 + 2, st);  // 8 bytes, wrapped
  check(shmemx_stream_synchronize(st) == SHMEMX_ERR_INVALID_ARGUMENT, "a reduction whose size overflows");
  shmemx_alltoallmem_on_stream(SHMEM_TEAM_WORLD, buf + 8, buf, SIZE_MAX / n + 1, st);  // < n bytes, wrapped
  check(shmemx_stream_synchronize(st) == SHMEMX_ERR_INVALID_ARGUMENT, "an alltoall whose size overflows");
  // A reduction in place is allowed, a partial overlap refused (the CPU paths' error).
  shmemx_long_sum_reduce_on_stream(SHMEM_TEAM_WORLD, buf + 9, buf + 8, 4, st);
  check(shmemx_stream_synchronize(st) == SHMEMX_ERR_INVALID_ARGUMENT, "a reduction whose dest and source overlap");
  shmem_barrier_all();

  // A kernel's error comes back from synchronize, once.
  if (me == 0) {
    dc::GpuStatus& s = *g_state.status;  // pinned host memory, mapped at the same address
    // A kernel still writing its record (on another stream, say: this one is synchronised) has
    // claimed the code but not set `ready`: synchronize returns the error and leaves the record
    // to its writer; once complete, the next synchronize clears it without returning it again.
    // (Clearing it under the writer lost its fields and left `ready` set for the next error.)
    s.code = dc::kGpuErrBadPe;
    check(shmemx_stream_synchronize(st) == SHMEMX_ERR_INVALID_ARGUMENT, "an error whose record is being written");
    check(s.code == dc::kGpuErrBadPe, "the record was cleared under the kernel writing it");
    s.target_pe = 9;
    std::strcpy(s.routine, "shmem_long_p");
    s.ready = 1;  // the kernel completes its record
    check(shmemx_stream_synchronize(st) == 0, "an error returned once is returned again");
    check(s.code == 0 && s.ready == 0 && s.target_pe == -1 && s.routine[0] == '\0' && s.pe == 0,
          "the completed record is cleared for the next error");
    s.target_pe = 1;
    s.addr = reinterpret_cast<std::uintptr_t>(buf);
    s.bytes = 8;
    s.expected = 5;
    s.seen = 3;
    s.cmp = 0;
    std::strcpy(s.routine, "shmem_long_wait_until");
    s.code = dc::kGpuErrTimeout;
    s.ready = 1;
    check(shmemx_stream_synchronize(st) == SHMEMX_ERR_INTERNAL, "a kernel's timeout");
    check(shmemx_stream_synchronize(st) == 0, "the error is cleared once returned");
    check(g_state.status->pe == 0 && g_state.status->code == 0, "the status record is reset");
    // A claimed record stays its writer's while this PE's CUDA context lives, even when the
    // synchronised stream failed with an error that ends a context (of another context, here:
    // this one's own stream is well).
    s.code = dc::kGpuErrBadPe;
    fakecuda_fail_stream(cs, CUDA_ERROR_ILLEGAL_ADDRESS);
    check(shmemx_stream_synchronize(st) == SHMEMX_ERR_INVALID_ARGUMENT, "an error of a failed stream");
    check(s.code == dc::kGpuErrBadPe, "the record was cleared while its context lives");
    fakecuda_fail_stream(cs, CUDA_SUCCESS);
    s.ready = 1;
    check(shmemx_stream_synchronize(st) == 0 && s.code == 0, "the record completed later is cleared");
    // A kernel that claimed the record and then ended with the CUDA context (an exception in any
    // kernel of it) never completes it: the synchronize that finds the context lost returns the
    // error once and clears the record, so that later ones neither wait for it nor return it.
    // (It stayed claimed: every later synchronize waited 100 ms for it.)
    s.code = dc::kGpuErrBadPe;
    fakecuda_lose_contexts(CUDA_ERROR_ILLEGAL_ADDRESS);
    check(shmemx_stream_synchronize(st) == SHMEMX_ERR_INVALID_ARGUMENT, "the error of a kernel of a lost context");
    check(s.code == 0 && s.ready == 0 && s.pe == 0 && s.target_pe == -1, "the lost kernel's record is released");
    check(shmemx_stream_synchronize(st) == SHMEMX_ERR_INTERNAL, "a lost context fails the synchronize");
    check(s.code == 0, "the record stays released");
    fakecuda_lose_contexts(CUDA_SUCCESS);
    check(shmemx_stream_synchronize(st) == 0, "nothing is returned twice");
    shmemx_stream_t bogus = nullptr;
    check(shmemx_stream_create_cuda(&bogus, reinterpret_cast<void*>(0x1234)) == 0, "wrapping any handle");
    check(shmemx_stream_synchronize(bogus) == SHMEMX_ERR_INTERNAL, "an unknown CUDA stream");
    shmemx_stream_destroy(bogus);
  }
  check(shmemx_stream_destroy(st) == 0, "shmemx_stream_destroy");
  check(shmemx_stream_cuda_handle(SHMEMX_STREAM_DEFAULT) == nullptr, "the default stream wraps nothing");
  driver<decltype(&cuStreamDestroy)>("cuStreamDestroy")(cs);
  driver<decltype(&cuDevicePrimaryCtxRelease)>("cuDevicePrimaryCtxRelease")(g_state.device);
  shmem_barrier_all();
  shmemx_cuda_free(buf);
  shmem_finalize();
  if (failures == 0 && me == 0) std::printf("cuda_stream: %d PEs OK\n", n);
  return failures == 0 ? 0 : 1;
}
