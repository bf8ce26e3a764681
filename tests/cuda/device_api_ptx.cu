// Compiled to PTX for sm_90 (no GPU needed): one kernel per device-API operation, so that
// check_ptx.cmake can assert, kernel by kernel, the system-scope instructions the memory model
// needs (docs/cuda.md): atomics atom.*.sys, signals st/atom .release.sys, waits ld.acquire.sys,
// fences fence.sc.sys. Every typed family is instantiated for every type it offers, so this file
// also proves that the whole device API compiles as __device__ code.
#include <shmem/device/device.hpp>

#include <cstdint>

namespace dev = shmem::device;

// ---- ordering ------------------------------------------------------------------------------------
extern "C" __global__ void k_fence() { dev::fence(); }
extern "C" __global__ void k_quiet() { dev::quiet(); }

// ---- signals and waits -------------------------------------------------------------------------
extern "C" __global__ void k_signal_set(std::uint64_t* s, int pe) { dev::signal_op(s, std::uint64_t{1}, SHMEM_SIGNAL_SET, pe); }
extern "C" __global__ void k_signal_add(std::uint64_t* s, int pe) { dev::signal_op(s, std::uint64_t{1}, SHMEM_SIGNAL_ADD, pe); }
extern "C" __global__ void k_put_signal(char* d, const char* s, std::size_t n, std::uint64_t* sig, int pe) {
  dev::putmem_signal(d, s, n, sig, std::uint64_t{1}, SHMEM_SIGNAL_SET, pe);
}
extern "C" __global__ void k_put_signal_block(char* d, const char* s, std::size_t n, std::int32_t* sig, int pe) {
  dev::putmem_signal_block(dev::this_block(), d, s, n, sig, std::int32_t{1}, SHMEM_SIGNAL_ADD, pe);
}
extern "C" __global__ void k_put_signal_warp(char* d, const char* s, std::size_t n, std::uint64_t* sig, int pe) {
  dev::putmem_signal_warp(d, s, n, sig, std::uint64_t{1}, SHMEM_SIGNAL_SET, pe);
}
extern "C" __global__ void k_wait_until(std::uint64_t* w, std::uint64_t* out) { *out = dev::wait_until(w, SHMEM_CMP_GE, std::uint64_t{1}); }
extern "C" __global__ void k_signal_wait_until(std::int32_t* w, std::int32_t* out) { *out = dev::signal_wait_until(w, SHMEM_CMP_EQ, 1); }
extern "C" __global__ void k_signal_fetch(std::uint64_t* w, std::uint64_t* out) { *out = dev::signal_fetch(w); }
extern "C" __global__ void k_test(int* w, int* out) { *out = dev::test(w, SHMEM_CMP_NE, 0); }

// ---- atomics: one kernel per operation on a 64-bit word, plus the 8/16-bit and float adds -------
extern "C" __global__ void k_atomic_fetch_add(unsigned long long* w, unsigned long long* out, int pe) { *out = dev::atomic_fetch_add(w, 1ull, pe); }
extern "C" __global__ void k_atomic_add(long* w, int pe) { dev::atomic_add(w, 1l, pe); }
extern "C" __global__ void k_atomic_compare_swap(long long* w, long long* out, int pe) { *out = dev::atomic_compare_swap(w, 0ll, 1ll, pe); }
extern "C" __global__ void k_atomic_swap(int* w, int* out, int pe) { *out = dev::atomic_swap(w, 1, pe); }
extern "C" __global__ void k_atomic_fetch_and(unsigned* w, unsigned* out, int pe) { *out = dev::atomic_fetch_and(w, 1u, pe); }
extern "C" __global__ void k_atomic_xor(std::uint64_t* w, int pe) { dev::atomic_xor(w, std::uint64_t{1}, pe); }
extern "C" __global__ void k_atomic_add_i16(std::int16_t* w, int pe) { dev::atomic_add(w, std::int16_t{1}, pe); }
extern "C" __global__ void k_atomic_add_u8(std::uint8_t* w, int pe) { dev::atomic_add(w, std::uint8_t{1}, pe); }
extern "C" __global__ void k_atomic_add_double(double* w, int pe) { dev::atomic_add(w, 1.0, pe); }
extern "C" __global__ void k_atomic_fetch_float(float* w, float* out, int pe) { *out = dev::atomic_fetch(w, pe); }

// ---- barriers ------------------------------------------------------------------------------------
extern "C" __global__ void k_barrier_all() { dev::barrier_all(); }
extern "C" __global__ void k_barrier_all_block() { dev::barrier_all_block(dev::this_block()); }
extern "C" __global__ void k_barrier_all_grid() { dev::barrier_all_grid(dev::this_block()); }
extern "C" __global__ void k_sync_all() { dev::sync_all(); }

// ---- every typed family on every type it offers (compile coverage) ------------------------------
template <class T>
__device__ void rma_family(T* sym, T* local, int pe) {
  const dev::Block b = dev::this_block();
  dev::put(sym, local, 4, pe);
  dev::get(local, sym, 4, pe);
  dev::put_nbi(sym, local, 4, pe);
  dev::get_nbi(local, sym, 4, pe);
  dev::p(sym, local[0], pe);
  local[1] = dev::g(sym, pe);
  dev::iput(sym, local, 2, 3, 4, pe);
  dev::iget(local, sym, 3, 2, 4, pe);
  dev::put_block(b, sym, local, 4, pe);
  dev::get_block(b, local, sym, 4, pe);
  dev::put_nbi_block(b, sym, local, 4, pe);
  dev::get_nbi_block(b, local, sym, 4, pe);
  dev::put_warp(sym, local, 4, pe);
  dev::get_warp(local, sym, 4, pe);
  if constexpr (sizeof(T) <= 8) {
    local[2] = dev::wait_until(sym, SHMEM_CMP_GE, local[0]);
    local[3] = dev::test(sym, SHMEM_CMP_LT, local[0]) ? T{} : local[3];
  }
}
template <class T>
__device__ void amo_add_family(T* sym, T* out, int pe) {
  out[0] = dev::atomic_fetch_add(sym, T{1}, pe);
  dev::atomic_add(sym, T{1}, pe);
}
template <class T>
__device__ void amo_any_family(T* sym, T* out, int pe) {
  amo_add_family(sym, out, pe);
  out[1] = dev::atomic_fetch(sym, pe);
  dev::atomic_set(sym, T{1}, pe);
  out[2] = dev::atomic_swap(sym, T{2}, pe);
  out[3] = dev::atomic_compare_swap(sym, T{2}, T{3}, pe);
}
template <class T>
__device__ void amo_int_family(T* sym, T* out, int pe) {
  amo_any_family(sym, out, pe);
  out[4] = dev::atomic_fetch_inc(sym, pe);
  dev::atomic_inc(sym, pe);
  out[5] = dev::atomic_fetch_and(sym, T{1}, pe);
  out[6] = dev::atomic_fetch_or(sym, T{1}, pe);
  out[7] = dev::atomic_fetch_xor(sym, T{1}, pe);
  dev::atomic_and(sym, T{1}, pe);
  dev::atomic_or(sym, T{1}, pe);
  dev::atomic_xor(sym, T{1}, pe);
}
template <class S>
__device__ void signal_family(char* d, const char* s, S* sig, int pe) {
  const dev::Block b = dev::this_block();
  dev::signal_op(sig, S{1}, SHMEM_SIGNAL_ADD, pe);
  dev::putmem_signal(d, s, 8, sig, S{1}, SHMEM_SIGNAL_SET, pe);
  dev::putmem_signal_nbi(d, s, 8, sig, S{1}, SHMEM_SIGNAL_SET, pe);
  dev::put_signal(d, s, 8, sig, S{1}, SHMEM_SIGNAL_SET, pe);
  dev::put_signal_nbi(d, s, 8, sig, S{1}, SHMEM_SIGNAL_SET, pe);
  dev::putmem_signal_block(b, d, s, 8, sig, S{1}, SHMEM_SIGNAL_SET, pe);
  dev::putmem_signal_nbi_block(b, d, s, 8, sig, S{1}, SHMEM_SIGNAL_SET, pe);
  dev::put_signal_block(b, d, s, 8, sig, S{1}, SHMEM_SIGNAL_SET, pe);
  dev::putmem_signal_warp(d, s, 8, sig, S{1}, SHMEM_SIGNAL_SET, pe);
  (void)dev::signal_fetch(sig);
  (void)dev::signal_wait_until(sig, SHMEM_CMP_GE, S{1});
}

#define SHMEM_PTX_RMA_(T) template __device__ void rma_family<T>(T*, T*, int);
SHMEM_PTX_RMA_(char) SHMEM_PTX_RMA_(signed char) SHMEM_PTX_RMA_(short) SHMEM_PTX_RMA_(int) SHMEM_PTX_RMA_(long)
SHMEM_PTX_RMA_(long long) SHMEM_PTX_RMA_(unsigned char) SHMEM_PTX_RMA_(unsigned short) SHMEM_PTX_RMA_(unsigned int)
SHMEM_PTX_RMA_(unsigned long) SHMEM_PTX_RMA_(unsigned long long) SHMEM_PTX_RMA_(float) SHMEM_PTX_RMA_(double)
#undef SHMEM_PTX_RMA_
#define SHMEM_PTX_AMO_INT_(T) template __device__ void amo_int_family<T>(T*, T*, int);
SHMEM_PTX_AMO_INT_(int) SHMEM_PTX_AMO_INT_(long) SHMEM_PTX_AMO_INT_(long long) SHMEM_PTX_AMO_INT_(unsigned int)
SHMEM_PTX_AMO_INT_(unsigned long) SHMEM_PTX_AMO_INT_(unsigned long long)
#undef SHMEM_PTX_AMO_INT_
template __device__ void amo_any_family<float>(float*, float*, int);
template __device__ void amo_any_family<double>(double*, double*, int);
#define SHMEM_PTX_AMO_ADD_(T) template __device__ void amo_add_family<T>(T*, T*, int);
SHMEM_PTX_AMO_ADD_(signed char) SHMEM_PTX_AMO_ADD_(unsigned char) SHMEM_PTX_AMO_ADD_(short) SHMEM_PTX_AMO_ADD_(unsigned short)
#undef SHMEM_PTX_AMO_ADD_
template __device__ void signal_family<std::uint64_t>(char*, const char*, std::uint64_t*, int);
template __device__ void signal_family<std::int32_t>(char*, const char*, std::int32_t*, int);

// A __device__ lambda through the launch helper, and the team queries.
void launch_compiles(cudaStream_t s, int* out) {
  dev::launch(s, 2, [=] __device__(const dev::Block& b) {
    out[b.block_id] = dev::my_pe() + dev::n_pes() + dev::team_my_pe(SHMEM_TEAM_WORLD) +
                      dev::team_n_pes(SHMEM_TEAM_WORLD) + dev::team_translate_pe(SHMEM_TEAM_WORLD, 0, SHMEM_TEAM_WORLD) +
                      (dev::ptr(out, 0) != nullptr);
  }, {.block_dim = 64, .cooperative = true});
}
