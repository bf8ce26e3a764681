#pragma once
// The CUDA driver, loaded at run time: one table of the entry points the plugin uses. Nothing
// here links libcuda, so the plugin (and libshmem) load on machines without a GPU; the types
// come from cuda.h at build time only.
#include <cuda.h>

#include <string>

namespace shmem::cuda {

// Resolved through cuGetProcAddress_v2 at the CUDA 12.0 API level (the signatures cuda.h
// declares for these names, e.g. cuMemAlloc = cuMemAlloc_v2), legacy default-stream flavour.
// clang-format off
#define SHMEM_CU_FUNCS(X) \
  X(cuInit) \
  X(cuDriverGetVersion) \
  X(cuDeviceGetCount) \
  X(cuDeviceGet) \
  X(cuDeviceGetName) \
  X(cuDeviceGetUuid) \
  X(cuDeviceGetAttribute) \
  X(cuDeviceCanAccessPeer) \
  X(cuDeviceTotalMem) \
  X(cuDevicePrimaryCtxRetain) \
  X(cuDevicePrimaryCtxRelease) \
  X(cuCtxSetCurrent) \
  X(cuMemGetAllocationGranularity) \
  X(cuMemAddressReserve) \
  X(cuMemAddressFree) \
  X(cuCtxGetCurrent) \
  X(cuMemCreate) \
  X(cuMemRelease) \
  X(cuMemExportToShareableHandle) \
  X(cuMemImportFromShareableHandle) \
  X(cuMemMap) \
  X(cuMemUnmap) \
  X(cuMemSetAccess) \
  X(cuMemGetAccess) \
  X(cuMemcpyAsync) \
  X(cuMemcpy2DAsync) \
  X(cuMemsetD8Async) \
  X(cuMemHostAlloc) \
  X(cuMemFreeHost) \
  X(cuMemHostGetDevicePointer) \
  X(cuMemAlloc) \
  X(cuMemFree) \
  X(cuPointerGetAttribute) \
  X(cuPointerGetAttributes) \
  X(cuStreamCreate) \
  X(cuStreamDestroy) \
  X(cuStreamSynchronize) \
  X(cuStreamQuery) \
  X(cuGetErrorName) \
  X(cuGetErrorString)
// clang-format on

struct Driver {
#define SHMEM_CU_MEMBER(name) decltype(&::name) name = nullptr;
  SHMEM_CU_FUNCS(SHMEM_CU_MEMBER)
#undef SHMEM_CU_MEMBER
  std::string path;  // what was loaded

  // Loads the driver library (path, or libcuda.so.1 when empty) once per process and resolves
  // every entry point. nullptr with *error set ("<path>: cannot open shared object file ...").
  // The library is never unloaded: drivers do not support it.
  static const Driver* load(const std::string& path, std::string* error);

  // "cuMemCreate: CUDA_ERROR_OUT_OF_MEMORY (out of memory)"
  std::string describe(const char* call, CUresult r) const;
};

}  // namespace shmem::cuda
