#include "router.hpp"

#include <cstdint>
#include <utility>

namespace moe {
namespace {

// A fixed mixing function (splitmix64's finaliser) of a few integers.
std::uint64_t mix(std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint64_t d) {
  std::uint64_t z = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull) * 0xbf58476d1ce4e5b9ull ^
                    (c + 0x8cb92ba72f3d8dd7ull) * 0x94d049bb133111ebull ^ (d + 0x3c6ef372fe94f82bull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace

std::vector<float> make_tokens(const MoeShape& shape, int pe, int epoch) {
  const auto d = static_cast<std::size_t>(shape.hidden);
  std::vector<float> x(static_cast<std::size_t>(shape.tokens) * d);
  for (std::size_t t = 0; t < static_cast<std::size_t>(shape.tokens); ++t)
    for (std::size_t i = 0; i < d; ++i)
      x[t * d + i] = static_cast<float>(static_cast<int>(mix(static_cast<std::uint64_t>(pe), t, i,
                                                             static_cast<std::uint64_t>(epoch)) % 64) - 32);
  return x;
}

int idle_pe(const MoeShape& shape, int epoch) {
  if (shape.npes < 2 || epoch % 2 == 0 || (shape.npes - 1) * shape.experts_per_pe < shape.topk) return -1;
  return (epoch / 2) % shape.npes;
}

Routing route_tokens(const MoeShape& shape, int pe, int epoch) {
  const int idle = idle_pe(shape, epoch);
  std::vector<int> candidates;  // every expert not on the idle PE
  for (int e = 0; e < shape.experts(); ++e)
    if (e / shape.experts_per_pe != idle) candidates.push_back(e);

  const auto k = static_cast<std::size_t>(shape.topk);
  Routing r;
  r.expert.resize(static_cast<std::size_t>(shape.tokens) * k);
  r.weight.resize(r.expert.size());
  std::vector<int> pool;
  for (std::size_t t = 0; t < static_cast<std::size_t>(shape.tokens); ++t) {
    pool = candidates;  // a partial Fisher-Yates draw: k distinct experts
    for (std::size_t j = 0; j < k; ++j) {
      const std::uint64_t h = mix(static_cast<std::uint64_t>(pe), t, j, static_cast<std::uint64_t>(epoch) + 1000003);
      std::swap(pool[j], pool[j + h % (pool.size() - j)]);
      r.expert[t * k + j] = pool[j];
      r.weight[t * k + j] = static_cast<float>(1 + (h >> 32) % 64) / 64.0f;
    }
  }
  return r;
}

long tokens_sharing_a_pe(const MoeShape& shape, const Routing& routing) {
  const auto k = static_cast<std::size_t>(shape.topk);
  long n = 0;
  for (std::size_t t = 0; t < static_cast<std::size_t>(shape.tokens); ++t) {
    bool shared = false;
    for (std::size_t a = 0; a < k && !shared; ++a)
      for (std::size_t b = a + 1; b < k && !shared; ++b)
        shared = routing.expert[t * k + a] / shape.experts_per_pe == routing.expert[t * k + b] / shape.experts_per_pe;
    n += shared;
  }
  return n;
}

}  // namespace moe
