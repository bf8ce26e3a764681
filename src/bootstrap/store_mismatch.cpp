#include "bootstrap/store_mismatch.hpp"

#include <sys/socket.h>

#include <cstdint>

#include "bootstrap/frame.hpp"

namespace shmem::bootstrap::mismatch {

bool plain_request(const unsigned char* p, std::size_t n) noexcept {
  if (n < 4) return false;
  const std::uint32_t magic = p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
  return magic == wire::kMagic;
}

bool tls_record(const unsigned char* p, std::size_t n) noexcept {
  return n >= 2 && p[0] == 0x16 && p[1] == 0x03;  // content type handshake, major version 3
}

std::string plain_refusal(std::uint16_t op, std::uint32_t id) {
  wire::FrameWriter w;
  w.u32(static_cast<std::uint32_t>(wire::Status::kAuth))
      .bytes("this bootstrap store speaks TLS (SHMEM_BOOTSTRAP_TLS=1) and the client plain TCP");
  return w.finish(static_cast<std::uint16_t>(op | wire::kReplyBit), id);
}

std::string tls_alert() {
  // TLS record: alert (21), version 3.3, length 2; level fatal (2), protocol_version (70).
  return std::string("\x15\x03\x03\x00\x02\x02\x46", 7);
}

void answer_and_drain(int fd, const std::string& bytes) noexcept {
  char sink[4096];
  int rounds = 16;  // bounded: a client that keeps sending is not waited for
  while (rounds-- > 0 && ::recv(fd, sink, sizeof sink, MSG_DONTWAIT) > 0) continue;
  (void)::send(fd, bytes.data(), bytes.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
}

}  // namespace shmem::bootstrap::mismatch
