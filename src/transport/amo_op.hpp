#pragma once
// The atomic operations of the OpenSHMEM specification, as every layer names them: the core's
// node-local path applies them with CPU atomics (amo_apply), remote transports map them to
// their own (or, where the target's CPU performs them, apply them there with amo_apply too).
#include <atomic>

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

// Applies `op` to *word with a sequentially consistent CPU atomic; returns the old value for
// the fetching operations (0 for the others). CompareSwap stores value where *word == cond.
template <class U>
U amo_apply(AmoOp op, U* word, U value, U cond) noexcept {
  std::atomic_ref<U> a(*word);
  constexpr auto order = std::memory_order_seq_cst;
  switch (op) {
    case AmoOp::kFetch: return a.load(order);
    case AmoOp::kSet: a.store(value, order); return 0;
    case AmoOp::kSwap: return a.exchange(value, order);
    case AmoOp::kCompareSwap: {
      U expected = cond;
      a.compare_exchange_strong(expected, value, order);
      return expected;  // the old value, whether or not it matched
    }
    case AmoOp::kFetchInc: return a.fetch_add(1, order);
    case AmoOp::kInc: a.fetch_add(1, order); return 0;
    case AmoOp::kFetchAdd: return a.fetch_add(value, order);
    case AmoOp::kAdd: a.fetch_add(value, order); return 0;
    case AmoOp::kFetchAnd: return a.fetch_and(value, order);
    case AmoOp::kAnd: a.fetch_and(value, order); return 0;
    case AmoOp::kFetchOr: return a.fetch_or(value, order);
    case AmoOp::kOr: a.fetch_or(value, order); return 0;
    case AmoOp::kFetchXor: return a.fetch_xor(value, order);
    case AmoOp::kXor: a.fetch_xor(value, order); return 0;
  }
  return 0;
}

}  // namespace shmem
