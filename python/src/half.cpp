// float16 / bfloat16 reductions through float: chunks of the source are widened into a
// symmetric float buffer, reduced by the library's float reduction, and rounded into the target.
#include "half.hpp"

#include <algorithm>
#include <mutex>

namespace shmem_py {

namespace {

constexpr std::size_t kChunk = 16384;  // floats per chunk: two buffers of 64 KiB

struct Scratch {
  float* src = nullptr;
  float* dst = nullptr;
  std::mutex mu;  // one 16-bit reduction at a time per process (the GIL is released meanwhile)
};

Scratch& scratch() {
  static auto* s = new Scratch();  // never destroyed: the heap goes away with the library
  return *s;
}

}  // namespace

void half_scratch_init() {
  Scratch& s = scratch();
  if (s.src != nullptr) return;
  void* p = nullptr;
  {
    py::gil_scoped_release nogil;
    p = shmem_malloc(2 * kChunk * sizeof(float));
  }
  if (p == nullptr)
    raise_error(kOutOfMemoryCode, "no room on the symmetric heap for the 128 KiB that float16/bfloat16 "
                                  "reductions use (raise SHMEM_SYMMETRIC_SIZE)");
  s.src = static_cast<float*>(p);
  s.dst = s.src + kChunk;
}

void half_reduce(const std::string& op, shmem_team_t team, void* target, const void* source, std::size_t n, bool bf16) {
  Scratch& s = scratch();
  if (s.src == nullptr)
    raise_error(kNotSupportedCode, "float16/bfloat16 reductions need the scratch this package allocates at "
                                   "initialisation; the library was initialised outside it (by C code)");
  using Red = int (*)(shmem_team_t, float*, const float*, std::size_t);
  const Red red = op == "sum"    ? shmem_float_sum_reduce
                  : op == "prod" ? shmem_float_prod_reduce
                  : op == "max"  ? shmem_float_max_reduce
                                 : shmem_float_min_reduce;
  const auto* in = static_cast<const std::uint16_t*>(source);
  auto* out = static_cast<std::uint16_t*>(target);
  int rc = 0;
  {
    py::gil_scoped_release nogil;
    std::lock_guard<std::mutex> g(s.mu);
    for (std::size_t done = 0; done < n && rc == 0; done += kChunk) {
      const std::size_t m = std::min(kChunk, n - done);
      for (std::size_t i = 0; i < m; ++i) s.src[i] = bf16 ? bf16_to_float(in[done + i]) : f16_to_float(in[done + i]);
      rc = red(team, s.dst, s.src, m);
      for (std::size_t i = 0; i < m && rc == 0; ++i)
        out[done + i] = bf16 ? float_to_bf16(s.dst[i]) : float_to_f16(s.dst[i]);
    }
  }
  check_rc(rc, bf16 ? "shmem_float_*_reduce (bfloat16)" : "shmem_float_*_reduce (float16)");
}

}  // namespace shmem_py
