#pragma once
// What each PE publishes at set-up: its worker address and, per segment, the base address and
// the packed rkey. A flat byte string: length-prefixed fields in a fixed order.
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

namespace shmem::transport::ucx {

struct PeerBlob {
  std::string worker_address;
  std::uint64_t base[2] = {0, 0};  // heap, static data: the owner's addresses
  std::string rkey[2];
};

inline void put_u64(std::string& out, std::uint64_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }
inline void put_str(std::string& out, const std::string& s) {
  put_u64(out, s.size());
  out += s;
}

inline std::string encode(const PeerBlob& b) {
  std::string out = "UCX1";
  put_str(out, b.worker_address);
  for (int s = 0; s < 2; ++s) {
    put_u64(out, b.base[s]);
    put_str(out, b.rkey[s]);
  }
  return out;
}

// nullopt when the blob is malformed (a PE of another build, or not using this transport).
inline std::optional<PeerBlob> decode(const std::string& in) {
  std::size_t pos = 4;
  if (in.compare(0, 4, "UCX1") != 0) return std::nullopt;
  auto u64 = [&](std::uint64_t* v) {
    if (in.size() - pos < sizeof *v) return false;
    std::memcpy(v, in.data() + pos, sizeof *v);
    pos += sizeof *v;
    return true;
  };
  auto str = [&](std::string* s) {
    std::uint64_t n = 0;
    if (!u64(&n) || in.size() - pos < n) return false;
    s->assign(in, pos, n);
    pos += n;
    return true;
  };
  PeerBlob b;
  if (!str(&b.worker_address)) return std::nullopt;
  for (int s = 0; s < 2; ++s)
    if (!u64(&b.base[s]) || !str(&b.rkey[s])) return std::nullopt;
  return b;
}

}  // namespace shmem::transport::ucx
