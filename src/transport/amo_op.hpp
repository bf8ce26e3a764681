#pragma once
// The atomic operations of the OpenSHMEM specification, as every layer names them: the core's
// node-local path applies them with CPU atomics, remote transports map them to their own.

namespace shmem {

enum class AmoOp : int {
  kFetch, kSet, kSwap, kCompareSwap, kFetchInc, kInc, kFetchAdd, kAdd,
  kFetchAnd, kAnd, kFetchOr, kOr, kFetchXor, kXor,
};

// Whether the operation returns the old value to the caller.
constexpr bool amo_fetches(AmoOp op) noexcept {
  switch (op) {
    case AmoOp::kSet: case AmoOp::kInc: case AmoOp::kAdd: case AmoOp::kAnd: case AmoOp::kOr: case AmoOp::kXor:
      return false;
    default:
      return true;
  }
}

}  // namespace shmem
