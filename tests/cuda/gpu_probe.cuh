#pragma once
// `prog --probe`: exits 77 (CTest: SKIPPED) where there is no CUDA device and 0 where there is
// one; gpu_run.sh calls it before starting the PEs, so no GPU test can pass without a GPU.
#include <cstdio>
#include <cstring>

// -1 for any other command line (the program runs).
inline int gpu_probe(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--probe") != 0) return -1;
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    std::printf("SKIPPED: no CUDA device (%s)\n", e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
    return 77;
  }
  return 0;
}
