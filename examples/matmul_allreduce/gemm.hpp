#pragma once
// The tile GEMM both versions share: rows [r0, r1) of C = A·B, single-threaded, no libraries.
#include <cstddef>
#include <string_view>

namespace mc2 {

// Row-major operands with leading dimensions lda, ldb, ldc: A is (rows) x k, B is k x n, C is
// (rows) x n. Overwrites C[r0:r1, 0:n] with A[r0:r1, 0:k] · B[0:k, 0:n] (k == 0 gives zeros).
// Safe to call from many threads at once on disjoint rows of C.
void gemm_rows(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c, std::size_t ldc,
               std::size_t r0, std::size_t r1, std::size_t n, std::size_t k) noexcept;

// The kernel variant gemm_rows uses: "avx512", "avx2" (x86-64) or "generic" (any CPU); by
// default the best one this CPU supports. gemm_select("auto" or a name) changes it; call it
// before any gemm_rows runs (it is not synchronised with running kernels).
enum class GemmSelect { kOk, kUnknown, kUnsupported };
GemmSelect gemm_select(std::string_view name) noexcept;
const char* gemm_variant() noexcept;

}  // namespace mc2
