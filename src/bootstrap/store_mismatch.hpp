// The store's answers to a client that speaks the other protocol (SHMEM_BOOTSTRAP_TLS differs
// between the launcher and a PE). A bare close would read as a busy store, which the client
// retries until its deadline; these answers make it fail at once with the cause.
#pragma once

#include <cstddef>
#include <string>

namespace shmem::bootstrap::mismatch {

// The first bytes of a plain-TCP request of this protocol (its magic)?
bool plain_request(const unsigned char* p, std::size_t n) noexcept;
// The first bytes of a TLS handshake record (a ClientHello)?
bool tls_record(const unsigned char* p, std::size_t n) noexcept;

// What a TLS store sends a plain-TCP client: the reply to its first request (op, id), status
// "authentication failed" with a message naming SHMEM_BOOTSTRAP_TLS.
std::string plain_refusal(std::uint16_t op, std::uint32_t id);
// What a plain-TCP store sends a TLS client: a fatal protocol_version alert, which the client's
// TLS library reports as a failed handshake.
std::string tls_alert();

// Writes what is left of `bytes` on a non-blocking socket after draining what the client sent
// (unread input would turn the close into a reset that loses the answer). Best effort.
void answer_and_drain(int fd, const std::string& bytes) noexcept;

}  // namespace shmem::bootstrap::mismatch
