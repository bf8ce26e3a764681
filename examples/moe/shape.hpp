#pragma once
// The sizes of one MoE layer and the record that travels with every dispatched row.
#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace moe {

struct MoeShape {
  int npes;
  int tokens;          // per PE
  int hidden;          // floats per token
  int experts_per_pe;
  int topk;
  int experts() const { return npes * experts_per_pe; }
  // Rows a PE can receive at most: every token of every PE sends at most min(topk,
  // experts_per_pe) rows to one PE.
  std::size_t recv_capacity() const {
    return static_cast<std::size_t>(npes) * static_cast<std::size_t>(tokens) *
           static_cast<std::size_t>(std::min(topk, experts_per_pe));
  }
};

// One (token, expert) pair: what the expert PE needs to apply the expert and to send the result
// back to slot (token, slot) of its owner. Sent next to the row (Ascend SHMEM's "assist info").
struct Meta {
  std::int32_t token;   // index on the owner
  std::int32_t slot;    // which of the token's topk experts (0 .. topk-1)
  std::int32_t expert;  // global expert id
  std::int32_t src_pe;  // the owner
};

}  // namespace moe
