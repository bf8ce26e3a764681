#pragma once
// OpenSSL plumbing for the store: an SSL_CTX built from a TlsConfig, and a Channel that reads
// and writes exact byte counts over a socket, with or without TLS.
#include <cstddef>
#include <memory>
#include <string>

#include "bootstrap/tls.hpp"
#include "util/socket.hpp"

typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_st SSL;

namespace shmem::bootstrap {

// TLS 1.3 only (minimum and maximum). Without certificates the job secret becomes an
// external PSK (identity kPskIdentity, key = HMAC-SHA256(secret, label)); with certificates
// both sides present one and require the peer's, verified against the CA and CRLs.
class TlsContext {
 public:
  enum class Role { kServer, kClient };
  // Throws Error(kInvalidValue) for unusable settings (unreadable certificate or key, no CA,
  // server without secret or certificate) and Error(kInternal) if OpenSSL itself fails.
  TlsContext(const TlsConfig& cfg, Role role);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  SSL_CTX* get() const noexcept { return ctx_; }
  Role role() const noexcept { return role_; }
  bool uses_certificates() const noexcept { return certs_; }
  // The derived pre-shared key (empty when the secret is empty or certificates are used).
  const std::string& psk() const noexcept { return psk_; }

 private:
  SSL_CTX* ctx_ = nullptr;
  Role role_;
  bool certs_ = false;
  std::string psk_;
};

// The last OpenSSL errors of this thread as one line (and clears them).
std::string drain_openssl_errors();

// A connected byte stream over a borrowed socket fd (the owner keeps and closes the fd).
// Blocking; the fd's SO_RCVTIMEO/SO_SNDTIMEO bound every call, a timeout shows up as
// IoResult::kTimeout. Never raises SIGPIPE: the TLS layer writes through its own BIO that
// sends with MSG_NOSIGNAL. Not thread-safe: one thread uses a Channel at a time.
class Channel {
 public:
  Channel() = default;
  explicit Channel(int fd) noexcept : fd_(fd) {}
  ~Channel();
  Channel(Channel&& o) noexcept;
  Channel& operator=(Channel&& o) noexcept;
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  // Runs the TLS handshake. On failure returns false and describes it (OpenSSL reasons,
  // certificate verification result, or the socket error) in *why.
  // A client may name itself in the server name indication (`sni`, empty: none); a server
  // reads the client's with server_name(), also after a failed handshake.
  bool start_tls(const TlsContext& ctx, std::string* why, const std::string& sni = {});
  std::string server_name() const;

  util::IoResult read(void* buf, std::size_t n);
  util::IoResult write(const void* buf, std::size_t n);
  // True when decrypted bytes are buffered, i.e. a read would not need the socket.
  bool has_buffered_input() const noexcept;
  // Best effort: sends a TLS close_notify without waiting for the peer's.
  void close_notify() noexcept;

  // ---- non-blocking use (the store server's event loop; the fd is O_NONBLOCK) -------------
  enum class Nb { kOk, kWantRead, kWantWrite, kEof, kError };
  // One step of the server side of the TLS handshake (the first call starts it): kOk when
  // done, kWantRead/kWantWrite to be called again when the socket is ready, kEof/kError
  // (described in *why) when it failed.
  Nb accept_step(const TlsContext& ctx, std::string* why);
  // Reads what is available (up to n bytes, *got of them); kOk with *got > 0 means call again.
  Nb read_some(void* buf, std::size_t n, std::size_t* got);
  Nb write_some(const void* buf, std::size_t n, std::size_t* put);

  bool tls() const noexcept { return ssl_ != nullptr; }
  int fd() const noexcept { return fd_; }
  // After a kError result on a TLS channel: the OpenSSL reason (e.g. an alert from the peer).
  const std::string& tls_error() const noexcept { return tls_error_; }
  // After a kError result of the non-blocking calls: the socket's errno (0 if it was a TLS
  // error), e.g. ETIMEDOUT when the peer host stopped answering (util::set_keepalive).
  int sys_errno() const noexcept { return sys_errno_; }
  // Human-readable reason of a failed result, including tls_error() when present.
  std::string describe(const util::IoResult& r) const;

 private:
  void reset() noexcept;
  util::IoResult ssl_result(int ret, std::size_t done);

  int fd_ = -1;
  SSL* ssl_ = nullptr;
  bool fatal_ = false;  // after a fatal TLS error, SSL_shutdown must not be called
  std::string tls_error_;
  int sys_errno_ = 0;
  std::string server_name_;  // the client's server name (server side)
  Nb ssl_nb(int ret, std::string* why);
};

}  // namespace shmem::bootstrap
