#pragma once
// Shared helpers for the store tests: servers, clients, raw sockets, temporary directories.
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "bootstrap/frame.hpp"
#include "bootstrap/hello_proof.hpp"
#include "bootstrap/store.hpp"
#include "base/error.hpp"
#include "util/socket.hpp"

namespace shmem::bootstrap::test {

using namespace std::chrono_literals;

inline const std::string kSecret = "job-secret-\x01\x02\xff-for-tests";

// A directory of its own under $TMPDIR (or /tmp), removed with everything in it.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/shmem-store-test-XXXXXX";
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline TlsConfig psk_tls(const std::string& secret = kSecret) {
  TlsConfig t;
  t.enabled = true;
  t.secret = secret;
  return t;
}

inline TlsConfig plain_tls(const std::string& secret = kSecret) {
  TlsConfig t;
  t.enabled = false;
  t.secret = secret;
  return t;
}

inline std::unique_ptr<StoreServer> make_server(const TlsConfig& tls, Millis io_timeout = Millis{10000}) {
  StoreServer::Options o;
  o.tls = tls;
  o.io_timeout = io_timeout;
  return std::make_unique<StoreServer>(std::move(o));
}

inline std::unique_ptr<StoreClient> make_client(const StoreServer& s, const TlsConfig& tls, int rank = -1) {
  return std::make_unique<StoreClient>("127.0.0.1", s.port(), tls, rank, Millis{5000});
}

// Asserts that `f` throws shmem::Error with `code` and a message containing `needle`.
template <class F>
void expect_error(F&& f, Errc code, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "expected shmem::Error(" << errc_name(code) << ") containing '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

// A hello frame carrying `proof` as it is (RawConn::send_hello computes a real one).
inline std::string hello_frame(int rank, std::string_view proof, std::uint32_t id = 1) {
  wire::FrameWriter w;
  w.i64(rank).bytes(proof);
  return w.finish(static_cast<std::uint16_t>(wire::Op::kHello), id);
}

// The request for a plain-TCP hello's challenge.
inline std::string challenge_frame(std::uint32_t id = 1) {
  wire::FrameWriter w;
  return w.finish(static_cast<std::uint16_t>(wire::Op::kChallenge), id);
}

// A raw TCP connection for feeding the server hand-made bytes.
class RawConn {
 public:
  explicit RawConn(std::uint16_t port) {
    std::string err;
    fd_ = util::tcp_connect("127.0.0.1", port, Millis{5000}, &err);
    if (!fd_) throw std::runtime_error("raw connect failed: " + err);
    // Guards the test against hanging if the server wrongly keeps the connection open.
    util::set_io_timeouts(fd_.get(), Millis{8000}, Millis{8000});
  }
  bool send(std::string_view bytes) { return util::send_all(fd_.get(), bytes.data(), bytes.size()).ok(); }
  void shutdown_write() { ::shutdown(fd_.get(), SHUT_WR); }
  // Closes with a reset (RST) instead of a FIN.
  void reset_now() {
    linger l{1, 0};
    ::setsockopt(fd_.get(), SOL_SOCKET, SO_LINGER, &l, sizeof l);
    fd_.reset();
  }
  std::string local_address() const { return util::local_address(fd_.get()); }
  // Reads until the server closes the connection: true on EOF/reset, false on timeout.
  bool closed_by_server() {
    char buf[4096];
    for (;;) {
      util::IoResult r = util::recv_all(fd_.get(), buf, sizeof buf);
      if (r.status == util::IoResult::kOk) continue;
      return r.status == util::IoResult::kEof || r.status == util::IoResult::kError;
    }
  }
  // Reads one reply frame; returns its status (*rest: the payload after it).
  wire::Status read_reply_status(std::string* rest = nullptr) {
    unsigned char hdr[wire::kHeaderSize];
    if (!util::recv_all(fd_.get(), hdr, sizeof hdr).ok()) throw std::runtime_error("no reply");
    wire::Header h;
    if (wire::decode_header(hdr, true, &h, nullptr)) throw std::runtime_error("bad reply header");
    std::string payload(h.length, '\0');
    if (!util::recv_all(fd_.get(), payload.data(), payload.size()).ok()) throw std::runtime_error("short reply");
    wire::PayloadReader in(payload);
    const auto st = static_cast<wire::Status>(in.u32());
    if (rest) *rest = payload.substr(4);
    return st;
  }
  // A plain-TCP hello as the library's client says it: a challenge, then the hello with the
  // proof of `secret` that answers it (bootstrap/hello_proof.hpp). The hello's reply is left
  // to read.
  bool send_hello(int rank, std::string_view secret) {
    const std::string nonce = challenge();
    return !nonce.empty() && send(hello_frame(rank, hello_proof(secret, nonce, rank, 0), 2));
  }
  // Asks for a challenge; returns its nonce (empty if the server did not give one).
  std::string challenge() {
    if (!send(challenge_frame())) return {};
    std::string rest;
    if (read_reply_status(&rest) != wire::Status::kOk) return {};
    wire::PayloadReader in(rest);
    return std::string(in.bytes(kNonceBytes, "nonce"));
  }

 private:
  util::UniqueFd fd_;
};

inline std::string header_bytes(std::uint32_t magic, std::uint16_t version, std::uint16_t op, std::uint32_t id,
                                std::uint32_t length) {
  std::string out(wire::kHeaderSize, '\0');
  auto put = [&](std::size_t off, std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out[off + i] = static_cast<char>((v >> (8 * i)) & 0xff);
  };
  put(0, magic, 4);
  put(4, version, 2);
  put(6, op, 2);
  put(8, id, 4);
  put(12, length, 4);
  return out;
}

// Proves a server still serves: a fresh client can set and read back a key.
inline void expect_server_works(const StoreServer& s, const TlsConfig& tls, const std::string& key = "alive") {
  auto c = make_client(s, tls);
  c->set(key, "yes");
  EXPECT_EQ(c->get(key, Millis{2000}), "yes");
}

}  // namespace shmem::bootstrap::test
