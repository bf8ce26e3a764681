// Tile GEMM: cache blocking (a kColBlock x kDepthBlock panel of B stays in L2 while every row of
// the tile passes over it) and register blocking (a Rows x (Vecs·Lanes) block of C accumulates in
// vector registers over the panel's depth, so each loaded vector of B feeds Rows multiply-adds).
// Vectors are GCC/Clang vector types of Lanes floats. On x86-64 the kernel is compiled three
// times, for AVX-512, AVX2+FMA and the baseline ISA, each with a register block that fits that
// ISA's registers; the best one the CPU supports is used (no -march needed), or the one chosen
// with gemm_select.
#include "gemm.hpp"

#include <algorithm>
#include <iterator>

namespace mc2 {
namespace {

constexpr std::size_t kColBlock = 256;    // columns of B and C per cache block
constexpr std::size_t kDepthBlock = 128;  // rows of B per cache block: 128 KiB of B per block

// A vector of Lanes floats, and the same for unaligned loads and stores from float arrays. (Member
// typedefs: GCC ignores vector_size on an alias template.)
template <int Lanes>
struct VecOf {
  typedef float type __attribute__((vector_size(Lanes * sizeof(float))));
  typedef float unaligned __attribute__((vector_size(Lanes * sizeof(float)), aligned(alignof(float)), may_alias));
};
template <int L>
using Vec = typename VecOf<L>::type;

// c[0:R, 0:V·L] += a[0:R, 0:depth] · b[0:depth, 0:V·L], accumulating in R x V vector registers.
template <int L, int V, int R>
[[gnu::always_inline]] inline void micro(const float* __restrict a, std::size_t lda, const float* __restrict b,
                                         std::size_t ldb, float* __restrict c, std::size_t ldc,
                                         std::size_t depth) noexcept {
  using U = typename VecOf<L>::unaligned;  // loads and stores through U need no alignment
  Vec<L> acc[R][V];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v) acc[r][v] = Vec<L>{};
  for (std::size_t p = 0; p < depth; ++p) {
    Vec<L> bp[V];
    for (int v = 0; v < V; ++v) bp[v] = *reinterpret_cast<const U*>(b + p * ldb + v * L);
    for (int r = 0; r < R; ++r) {
      const float ar = a[r * lda + p];
      for (int v = 0; v < V; ++v) acc[r][v] += ar * bp[v];
    }
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v) *reinterpret_cast<U*>(c + r * ldc + v * L) += acc[r][v];
}

// The last columns of a block when fewer than a register block's width remain: i-k-j loops.
[[gnu::always_inline]] inline void edge(const float* __restrict a, std::size_t lda, const float* __restrict b,
                                        std::size_t ldb, float* __restrict c, std::size_t ldc, int rows,
                                        std::size_t cols, std::size_t depth) noexcept {
  for (int r = 0; r < rows; ++r)
    for (std::size_t p = 0; p < depth; ++p) {
      const float ar = a[r * lda + p];
      for (std::size_t j = 0; j < cols; ++j) c[r * ldc + j] += ar * b[p * ldb + j];
    }
}

// R rows of C, `cols` columns, over `depth` rows of B.
template <int L, int V, int R>
[[gnu::always_inline]] inline void panel(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
                                         std::size_t ldc, std::size_t cols, std::size_t depth) noexcept {
  constexpr std::size_t w = static_cast<std::size_t>(V * L);
  std::size_t j = 0;
  for (; j + w <= cols; j += w) micro<L, V, R>(a, lda, b + j, ldb, c + j, ldc, depth);
  if (j < cols) edge(a, lda, b + j, ldb, c + j, ldc, R, cols - j, depth);
}

// Rows [r0, r1) in register blocks of R rows, then the rest (fewer than R) in blocks of 1..R-1.
template <int L, int V, int R>
[[gnu::always_inline]] inline void rows_panel(const float* a, std::size_t lda, const float* b, std::size_t ldb,
                                              float* c, std::size_t ldc, std::size_t r0, std::size_t r1,
                                              std::size_t cols, std::size_t depth) noexcept {
  std::size_t i = r0;
  for (; i + R <= r1; i += R) panel<L, V, R>(a + i * lda, lda, b, ldb, c + i * ldc, ldc, cols, depth);
  if constexpr (R > 1) {
    if (i < r1) rows_panel<L, V, R - 1>(a, lda, b, ldb, c, ldc, i, r1, cols, depth);
  }
}

template <int L, int V, int R>
[[gnu::always_inline]] inline void gemm(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c,
                                        std::size_t ldc, std::size_t r0, std::size_t r1, std::size_t n,
                                        std::size_t k) noexcept {
  for (std::size_t i = r0; i < r1; ++i) std::fill_n(c + i * ldc, n, 0.0f);
  for (std::size_t jj = 0; jj < n; jj += kColBlock) {
    const std::size_t cols = std::min(kColBlock, n - jj);
    for (std::size_t kk = 0; kk < k; kk += kDepthBlock)
      rows_panel<L, V, R>(a + kk, lda, b + kk * ldb + jj, ldb, c + jj, ldc, r0, r1, cols, std::min(kDepthBlock, k - kk));
  }
}

using GemmFn = void (*)(const float*, std::size_t, const float*, std::size_t, float*, std::size_t, std::size_t,
                        std::size_t, std::size_t, std::size_t) noexcept;

// Baseline ISA (SSE2 on x86-64, NEON on AArch64): 3 x 4 registers of 4 floats.
void gemm_generic(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c, std::size_t ldc,
                  std::size_t r0, std::size_t r1, std::size_t n, std::size_t k) noexcept {
  gemm<4, 4, 3>(a, lda, b, ldb, c, ldc, r0, r1, n, k);
}

#if defined(__x86_64__) && defined(__GNUC__)
// AVX2 + FMA: 6 x 2 registers of 8 floats (12 of the 16 ymm registers).
[[gnu::target("avx2,fma")]] void gemm_avx2(const float* a, std::size_t lda, const float* b, std::size_t ldb,
                                           float* c, std::size_t ldc, std::size_t r0, std::size_t r1, std::size_t n,
                                           std::size_t k) noexcept {
  gemm<8, 2, 6>(a, lda, b, ldb, c, ldc, r0, r1, n, k);
}
// AVX-512: 6 x 2 registers of 16 floats (12 of the 32 zmm registers).
[[gnu::target("avx512f,avx512vl,avx2,fma")]] void gemm_avx512(const float* a, std::size_t lda, const float* b,
                                                              std::size_t ldb, float* c, std::size_t ldc,
                                                              std::size_t r0, std::size_t r1, std::size_t n,
                                                              std::size_t k) noexcept {
  gemm<16, 2, 6>(a, lda, b, ldb, c, ldc, r0, r1, n, k);
}
#endif

struct Variant {
  const char* name;
  GemmFn fn;
  bool (*supported)() noexcept;
};

bool always() noexcept { return true; }
#if defined(__x86_64__) && defined(__GNUC__)
bool has_avx2() noexcept {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
bool has_avx512() noexcept { return has_avx2() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl"); }
#endif

constexpr Variant kVariants[] = {  // best first
#if defined(__x86_64__) && defined(__GNUC__)
    {"avx512", gemm_avx512, has_avx512},
    {"avx2", gemm_avx2, has_avx2},
#endif
    {"generic", gemm_generic, always},
};

const Variant* best() noexcept {
  for (const Variant& v : kVariants)
    if (v.supported()) return &v;
  return &kVariants[std::size(kVariants) - 1];
}

const Variant* current = best();

}  // namespace

GemmSelect gemm_select(std::string_view name) noexcept {
  if (name == "auto") {
    current = best();
    return GemmSelect::kOk;
  }
  for (const Variant& v : kVariants)
    if (name == v.name) {
      if (!v.supported()) return GemmSelect::kUnsupported;
      current = &v;
      return GemmSelect::kOk;
    }
  return GemmSelect::kUnknown;
}

const char* gemm_variant() noexcept { return current->name; }

void gemm_rows(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c, std::size_t ldc,
               std::size_t r0, std::size_t r1, std::size_t n, std::size_t k) noexcept {
  current->fn(a, lda, b, ldb, c, ldc, r0, r1, n, k);
}

}  // namespace mc2
