#include "bootstrap/tls_conn.hpp"

#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

#include "base/error.hpp"

namespace shmem::bootstrap {
namespace {

constexpr char kPskIdentity[] = "shmem-store-psk-v1";
constexpr char kPskLabel[] = "shmem bootstrap store TLS 1.3 external PSK v1";
// TLS_AES_128_GCM_SHA256: its hash (SHA-256) is the one the PSK binder uses.
constexpr unsigned char kPskCipherId[2] = {0x13, 0x01};

// ---- a socket BIO that never raises SIGPIPE ----------------------------------------------

int fd_of(BIO* b) { return static_cast<int>(reinterpret_cast<std::intptr_t>(BIO_get_data(b))); }

int bio_write(BIO* b, const char* data, int len) {
  BIO_clear_retry_flags(b);
  for (;;) {
    ssize_t k = ::send(fd_of(b), data, static_cast<std::size_t>(len), MSG_NOSIGNAL);
    if (k >= 0) return static_cast<int>(k);
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) BIO_set_retry_write(b);  // SO_SNDTIMEO expired
    return -1;
  }
}

int bio_read(BIO* b, char* buf, int len) {
  BIO_clear_retry_flags(b);
  for (;;) {
    ssize_t k = ::recv(fd_of(b), buf, static_cast<std::size_t>(len), 0);
    if (k >= 0) return static_cast<int>(k);
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) BIO_set_retry_read(b);  // SO_RCVTIMEO expired
    if (errno == ECONNRESET) return 0;
    return -1;
  }
}

int bio_puts(BIO* b, const char* s) { return bio_write(b, s, static_cast<int>(std::strlen(s))); }

long bio_ctrl(BIO*, int cmd, long, void*) { return cmd == BIO_CTRL_FLUSH ? 1 : 0; }

int bio_create(BIO* b) {
  BIO_set_init(b, 1);
  return 1;
}

int bio_destroy(BIO*) { return 1; }

BIO_METHOD* socket_method() {
  static BIO_METHOD* method = [] {
    BIO_METHOD* m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "shmem socket");
    if (!m) return m;
    BIO_meth_set_write(m, bio_write);
    BIO_meth_set_read(m, bio_read);
    BIO_meth_set_puts(m, bio_puts);
    BIO_meth_set_ctrl(m, bio_ctrl);
    BIO_meth_set_create(m, bio_create);
    BIO_meth_set_destroy(m, bio_destroy);
    return m;
  }();
  return method;
}

// ---- PSK callbacks -------------------------------------------------------------------------

const std::string* psk_of(SSL* ssl) {
  SSL_CTX* ctx = SSL_get_SSL_CTX(ssl);
  auto* self = static_cast<const TlsContext*>(SSL_CTX_get_app_data(ctx));
  return self ? &self->psk() : nullptr;
}

SSL_SESSION* make_psk_session(SSL* ssl, const std::string& key) {
  const SSL_CIPHER* cipher = SSL_CIPHER_find(ssl, kPskCipherId);
  if (!cipher) return nullptr;
  SSL_SESSION* sess = SSL_SESSION_new();
  if (!sess) return nullptr;
  if (!SSL_SESSION_set1_master_key(sess, reinterpret_cast<const unsigned char*>(key.data()), key.size()) ||
      !SSL_SESSION_set_cipher(sess, cipher) || !SSL_SESSION_set_protocol_version(sess, TLS1_3_VERSION)) {
    SSL_SESSION_free(sess);
    return nullptr;
  }
  return sess;
}

int use_session_cb(SSL* ssl, const EVP_MD* md, const unsigned char** id, std::size_t* idlen,
                   SSL_SESSION** sess) {
  *sess = nullptr;
  *id = nullptr;
  *idlen = 0;
  const std::string* key = psk_of(ssl);
  if (!key || key->empty()) return 1;  // no secret: offer no PSK; the handshake then fails
  const SSL_CIPHER* cipher = SSL_CIPHER_find(ssl, kPskCipherId);
  if (!cipher) return 0;
  if (md && SSL_CIPHER_get_handshake_digest(cipher) != md) return 1;
  SSL_SESSION* s = make_psk_session(ssl, *key);
  if (!s) return 0;
  *sess = s;  // ownership passes to OpenSSL
  *id = reinterpret_cast<const unsigned char*>(kPskIdentity);
  *idlen = sizeof kPskIdentity - 1;
  return 1;
}

int find_session_cb(SSL* ssl, const unsigned char* identity, std::size_t identity_len, SSL_SESSION** sess) {
  *sess = nullptr;
  const std::string* key = psk_of(ssl);
  if (!key || key->empty()) return 1;
  if (identity_len != sizeof kPskIdentity - 1 || std::memcmp(identity, kPskIdentity, identity_len) != 0)
    return 1;  // unknown identity: continue without a PSK, which fails (no certificate)
  SSL_SESSION* s = make_psk_session(ssl, *key);
  if (!s) return 0;
  *sess = s;
  return 1;
}

// Records the server name a client sent, before anything can fail (OpenSSL forgets it when
// the handshake fails later, e.g. on a wrong PSK binder).
int client_hello_cb(SSL* ssl, int*, void*) {
  auto* name = static_cast<std::string*>(SSL_get_app_data(ssl));
  const unsigned char* p = nullptr;
  std::size_t len = 0;
  if (!name || SSL_client_hello_get0_ext(ssl, TLSEXT_TYPE_server_name, &p, &len) != 1) return SSL_CLIENT_HELLO_SUCCESS;
  // server_name_list: u16 length, then entries of u8 type (0 = host_name), u16 length, name.
  if (len < 5 || p[2] != 0) return SSL_CLIENT_HELLO_SUCCESS;
  const std::size_t n = (std::size_t{p[3]} << 8) | p[4];
  if (n <= len - 5 && n <= 255) name->assign(reinterpret_cast<const char*>(p + 5), n);
  return SSL_CLIENT_HELLO_SUCCESS;
}

int password_cb(char* buf, int size, int, void* userdata) {
  const auto* pw = static_cast<const std::string*>(userdata);
  if (!pw || pw->empty() || size <= 0) return 0;
  int n = static_cast<int>(pw->size()) < size ? static_cast<int>(pw->size()) : size;
  std::memcpy(buf, pw->data(), static_cast<std::size_t>(n));
  return n;
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos <= s.size()) {
    std::size_t comma = s.find(',', pos);
    if (comma == std::string::npos) comma = s.size();
    std::string item = s.substr(pos, comma - pos);
    std::size_t b = item.find_first_not_of(" \t\r\n");
    std::size_t e = item.find_last_not_of(" \t\r\n");
    if (b != std::string::npos) out.push_back(item.substr(b, e - b + 1));
    pos = comma + 1;
  }
  return out;
}

[[noreturn]] void fail_setting(const std::string& what) {
  std::string detail = drain_openssl_errors();
  throw Error(Errc::kInvalidValue, what + (detail.empty() ? "" : ": " + detail));
}

struct EvpPkeyFree {
  void operator()(EVP_PKEY* k) const noexcept { EVP_PKEY_free(k); }
};
struct BioFree {
  void operator()(BIO* b) const noexcept { BIO_free(b); }
};

void load_certificates(SSL_CTX* ctx, const TlsConfig& cfg) {
  if (SSL_CTX_use_certificate_chain_file(ctx, cfg.cert_file.c_str()) != 1)
    fail_setting("cannot load the TLS certificate '" + cfg.cert_file + "' (tlsCert)");

  std::unique_ptr<BIO, BioFree> bio;
  std::string source;
  if (!cfg.key_pem.empty()) {
    bio.reset(BIO_new_mem_buf(cfg.key_pem.data(), static_cast<int>(cfg.key_pem.size())));
    source = "the in-memory TLS private key";
  } else if (!cfg.key_file.empty()) {
    bio.reset(BIO_new_file(cfg.key_file.c_str(), "r"));
    source = "the TLS private key '" + cfg.key_file + "' (tlsPk)";
    if (!bio) fail_setting("cannot open " + source);
  } else {
    throw Error(Errc::kInvalidValue,
                "a TLS certificate (tlsCert) is set but no private key: set tlsPk or the in-memory key");
  }
  if (!bio) fail_setting("cannot read " + source);
  std::string password = cfg.key_password;
  std::unique_ptr<EVP_PKEY, EvpPkeyFree> key(PEM_read_bio_PrivateKey(bio.get(), nullptr, password_cb, &password));
  OPENSSL_cleanse(password.data(), password.size());
  if (!key) fail_setting("cannot read " + source + " (is it PEM, and is tlsPkPwd right?)");
  if (SSL_CTX_use_PrivateKey(ctx, key.get()) != 1 || SSL_CTX_check_private_key(ctx) != 1)
    fail_setting(source + " does not match the certificate '" + cfg.cert_file + "' (tlsCert)");

  bool have_ca = false;
  for (const std::string& f : split_list(cfg.ca_file)) {
    if (SSL_CTX_load_verify_file(ctx, f.c_str()) != 1) fail_setting("cannot load the CA file '" + f + "' (tlsCaFile)");
    have_ca = true;
  }
  if (!cfg.ca_path.empty()) {
    if (SSL_CTX_load_verify_dir(ctx, cfg.ca_path.c_str()) != 1)
      fail_setting("cannot use the CA directory '" + cfg.ca_path + "' (tlsCaPath)");
    have_ca = true;
  }
  if (!have_ca)
    throw Error(Errc::kInvalidValue,
                "TLS certificates are set but no CA to verify the peer: set tlsCaFile or tlsCaPath");

  X509_STORE* store = SSL_CTX_get_cert_store(ctx);
  bool have_crl = false;
  for (const std::string& f : split_list(cfg.crl_file)) {
    X509_LOOKUP* lookup = X509_STORE_add_lookup(store, X509_LOOKUP_file());
    if (!lookup || X509_load_crl_file(lookup, f.c_str(), X509_FILETYPE_PEM) <= 0)
      fail_setting("cannot load the CRL file '" + f + "' (tlsCrlFile)");
    have_crl = true;
  }
  if (!cfg.crl_path.empty()) {
    // Looked up by hash name (<subject hash>.r0), as `openssl rehash` names them.
    X509_LOOKUP* lookup = X509_STORE_add_lookup(store, X509_LOOKUP_hash_dir());
    if (!lookup || X509_LOOKUP_add_dir(lookup, cfg.crl_path.c_str(), X509_FILETYPE_PEM) != 1)
      fail_setting("cannot use the CRL directory '" + cfg.crl_path + "' (tlsCrlPath)");
    have_crl = true;
  }
  // Leaf check only: requiring a CRL for every CA of the chain would reject deployments that
  // publish one only for the issuing CA.
  if (have_crl) X509_STORE_set_flags(store, X509_V_FLAG_CRL_CHECK);

  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
}

}  // namespace

std::string drain_openssl_errors() {
  std::string out;
  while (unsigned long e = ERR_get_error()) {
    const char* reason = ERR_reason_error_string(e);
    char buf[256];
    if (!reason) {
      ERR_error_string_n(e, buf, sizeof buf);
      reason = buf;
    }
    if (out.find(reason) != std::string::npos) continue;
    if (!out.empty()) out += "; ";
    out += reason;
  }
  return out;
}

TlsContext::TlsContext(const TlsConfig& cfg, Role role) : role_(role), certs_(cfg.uses_certificates()) {
  ERR_clear_error();
  ctx_ = SSL_CTX_new(role == Role::kServer ? TLS_server_method() : TLS_client_method());
  if (!ctx_) throw Error(Errc::kInternal, "SSL_CTX_new failed: " + drain_openssl_errors());
  try {
    if (SSL_CTX_set_min_proto_version(ctx_, TLS1_3_VERSION) != 1 ||
        SSL_CTX_set_max_proto_version(ctx_, TLS1_3_VERSION) != 1)
      throw Error(Errc::kInternal, "cannot restrict TLS to version 1.3: " + drain_openssl_errors());
    SSL_CTX_set_options(ctx_, SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_TICKET);
    SSL_CTX_set_session_cache_mode(ctx_, SSL_SESS_CACHE_OFF);
    if (role == Role::kServer) {
      SSL_CTX_set_num_tickets(ctx_, 0);
      SSL_CTX_set_client_hello_cb(ctx_, client_hello_cb, nullptr);
    }
    // Keys are never typed at a terminal: a missing password must fail, not prompt.
    SSL_CTX_set_default_passwd_cb(ctx_, password_cb);
    SSL_CTX_set_default_passwd_cb_userdata(ctx_, nullptr);

    if (certs_) {
      if (SSL_CTX_set_ciphersuites(ctx_, "TLS_AES_256_GCM_SHA384:TLS_AES_128_GCM_SHA256") != 1)
        throw Error(Errc::kInternal, "cannot set TLS 1.3 cipher suites: " + drain_openssl_errors());
      load_certificates(ctx_, cfg);
    } else {
      if (role == Role::kServer && cfg.secret.empty())
        throw Error(Errc::kInvalidValue,
                    "the bootstrap store's TLS is on but there is neither a job secret (SHMEM_JOB_SECRET) "
                    "nor a certificate (SHMEM_BOOTSTRAP_TLS_INFO)");
      if (!cfg.secret.empty()) {
        unsigned char out[EVP_MAX_MD_SIZE];
        unsigned int out_len = 0;
        if (!HMAC(EVP_sha256(), cfg.secret.data(), static_cast<int>(cfg.secret.size()),
                  reinterpret_cast<const unsigned char*>(kPskLabel), sizeof kPskLabel - 1, out, &out_len))
          throw Error(Errc::kInternal, "cannot derive the TLS key from the job secret: " + drain_openssl_errors());
        psk_.assign(reinterpret_cast<const char*>(out), out_len);
        OPENSSL_cleanse(out, sizeof out);
      }
      if (SSL_CTX_set_ciphersuites(ctx_, "TLS_AES_128_GCM_SHA256") != 1)
        throw Error(Errc::kInternal, "cannot set TLS 1.3 cipher suites: " + drain_openssl_errors());
      SSL_CTX_set_app_data(ctx_, this);
      if (role == Role::kServer)
        SSL_CTX_set_psk_find_session_callback(ctx_, find_session_cb);
      else
        SSL_CTX_set_psk_use_session_callback(ctx_, use_session_cb);
      SSL_CTX_set_verify(ctx_, SSL_VERIFY_NONE, nullptr);
    }
  } catch (...) {
    SSL_CTX_free(ctx_);
    OPENSSL_cleanse(psk_.data(), psk_.size());
    throw;
  }
}

TlsContext::~TlsContext() {
  SSL_CTX_free(ctx_);
  OPENSSL_cleanse(psk_.data(), psk_.size());
}

// ---- Channel -------------------------------------------------------------------------------

Channel::~Channel() { reset(); }

Channel::Channel(Channel&& o) noexcept
    : fd_(std::exchange(o.fd_, -1)), ssl_(std::exchange(o.ssl_, nullptr)), fatal_(o.fatal_),
      tls_error_(std::move(o.tls_error_)) {
  if (ssl_) SSL_set_app_data(ssl_, &server_name_);
  server_name_ = std::move(o.server_name_);
}

Channel& Channel::operator=(Channel&& o) noexcept {
  if (this != &o) {
    reset();
    fd_ = std::exchange(o.fd_, -1);
    ssl_ = std::exchange(o.ssl_, nullptr);
    fatal_ = o.fatal_;
    tls_error_ = std::move(o.tls_error_);
    server_name_ = std::move(o.server_name_);
    if (ssl_) SSL_set_app_data(ssl_, &server_name_);
  }
  return *this;
}

void Channel::reset() noexcept {
  if (ssl_) SSL_free(ssl_);  // also frees the BIO
  ssl_ = nullptr;
}

std::string Channel::server_name() const { return server_name_; }

bool Channel::start_tls(const TlsContext& ctx, std::string* why, const std::string& sni) {
  ERR_clear_error();
  BIO_METHOD* method = socket_method();
  SSL* ssl = method ? SSL_new(ctx.get()) : nullptr;
  BIO* bio = ssl ? BIO_new(method) : nullptr;
  if (!bio) {
    if (ssl) SSL_free(ssl);
    if (why) *why = "cannot create a TLS connection: " + drain_openssl_errors();
    return false;
  }
  BIO_set_data(bio, reinterpret_cast<void*>(static_cast<std::intptr_t>(fd_)));
  SSL_set_bio(ssl, bio, bio);
  reset();
  ssl_ = ssl;
  fatal_ = false;
  if (!sni.empty() && ctx.role() == TlsContext::Role::kClient) SSL_set_tlsext_host_name(ssl_, sni.c_str());
  server_name_.clear();
  SSL_set_app_data(ssl_, &server_name_);  // client_hello_cb records the client's name here
  int ret = ctx.role() == TlsContext::Role::kServer ? SSL_accept(ssl_) : SSL_connect(ssl_);
  if (ret == 1) return true;
  int saved_errno = errno;
  int kind = SSL_get_error(ssl_, ret);
  std::string detail = drain_openssl_errors();
  long verify = SSL_get_verify_result(ssl_);
  if (verify != X509_V_OK) {
    if (!detail.empty()) detail += ": ";
    detail += X509_verify_cert_error_string(verify);
  }
  if (detail.empty()) {
    if (kind == SSL_ERROR_WANT_READ || kind == SSL_ERROR_WANT_WRITE)
      detail = "timed out";
    else if (kind == SSL_ERROR_SYSCALL && saved_errno != 0)
      detail = std::strerror(saved_errno);
    else
      detail = "connection closed by the peer";
  }
  fatal_ = true;
  if (why) *why = detail;
  return false;
}

util::IoResult Channel::ssl_result(int ret, std::size_t done) {
  util::IoResult r;
  r.done = done;
  int saved_errno = errno;
  switch (SSL_get_error(ssl_, ret)) {
    case SSL_ERROR_ZERO_RETURN:
      r.status = util::IoResult::kEof;
      break;
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE:
      r.status = util::IoResult::kTimeout;
      fatal_ = true;
      break;
    case SSL_ERROR_SYSCALL:
      fatal_ = true;
      if (saved_errno == 0 || saved_errno == ECONNRESET) {
        r.status = util::IoResult::kEof;
      } else {
        r.status = util::IoResult::kError;
        r.err = saved_errno;
      }
      ERR_clear_error();
      break;
    default:
      fatal_ = true;
      r.status = util::IoResult::kError;
      r.err = EPROTO;
      tls_error_ = drain_openssl_errors();
      break;
  }
  return r;
}

util::IoResult Channel::read(void* buf, std::size_t n) {
  if (!ssl_) return util::recv_all(fd_, buf, n);
  std::size_t done = 0;
  char* p = static_cast<char*>(buf);
  while (done < n) {
    ERR_clear_error();
    errno = 0;
    std::size_t got = 0;
    int ret = SSL_read_ex(ssl_, p + done, n - done, &got);
    if (ret != 1) return ssl_result(ret, done);
    done += got;
  }
  return util::IoResult{util::IoResult::kOk, done, 0};
}

util::IoResult Channel::write(const void* buf, std::size_t n) {
  if (!ssl_) return util::send_all(fd_, buf, n);
  std::size_t done = 0;
  const char* p = static_cast<const char*>(buf);
  while (done < n) {
    ERR_clear_error();
    errno = 0;
    std::size_t put = 0;
    int ret = SSL_write_ex(ssl_, p + done, n - done, &put);
    if (ret != 1) return ssl_result(ret, done);
    done += put;
  }
  return util::IoResult{util::IoResult::kOk, done, 0};
}

bool Channel::has_buffered_input() const noexcept { return ssl_ && SSL_pending(ssl_) > 0; }

void Channel::close_notify() noexcept {
  if (!ssl_ || fatal_) return;
  ERR_clear_error();
  SSL_shutdown(ssl_);
  ERR_clear_error();
  fatal_ = true;  // one close_notify is enough
}

Channel::Nb Channel::ssl_nb(int ret, std::string* why) {
  int saved_errno = errno;
  switch (SSL_get_error(ssl_, ret)) {
    case SSL_ERROR_WANT_READ: return Nb::kWantRead;
    case SSL_ERROR_WANT_WRITE: return Nb::kWantWrite;
    case SSL_ERROR_ZERO_RETURN: return Nb::kEof;
    case SSL_ERROR_SYSCALL:
      fatal_ = true;
      ERR_clear_error();
      if (saved_errno == 0 || saved_errno == ECONNRESET) return Nb::kEof;
      sys_errno_ = saved_errno;
      if (why) *why = std::strerror(saved_errno);
      return Nb::kError;
    default: {
      fatal_ = true;
      tls_error_ = drain_openssl_errors();
      long verify = SSL_get_verify_result(ssl_);
      if (verify != X509_V_OK) tls_error_ += std::string(tls_error_.empty() ? "" : ": ") + X509_verify_cert_error_string(verify);
      if (why) *why = tls_error_.empty() ? "TLS error" : tls_error_;
      return Nb::kError;
    }
  }
}

Channel::Nb Channel::accept_step(const TlsContext& ctx, std::string* why) {
  ERR_clear_error();
  if (!ssl_) {
    BIO_METHOD* method = socket_method();
    SSL* ssl = method ? SSL_new(ctx.get()) : nullptr;
    BIO* bio = ssl ? BIO_new(method) : nullptr;
    if (!bio) {
      if (ssl) SSL_free(ssl);
      if (why) *why = "cannot create a TLS connection: " + drain_openssl_errors();
      return Nb::kError;
    }
    BIO_set_data(bio, reinterpret_cast<void*>(static_cast<std::intptr_t>(fd_)));
    SSL_set_bio(ssl, bio, bio);
    ssl_ = ssl;
    fatal_ = false;
    server_name_.clear();
    SSL_set_app_data(ssl_, &server_name_);
    SSL_set_mode(ssl_, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_set_accept_state(ssl_);
  }
  errno = 0;
  int ret = SSL_do_handshake(ssl_);
  if (ret == 1) return Nb::kOk;
  Nb r = ssl_nb(ret, why);
  if (r == Nb::kEof && why) *why = "connection closed by the peer";
  return r;
}

Channel::Nb Channel::read_some(void* buf, std::size_t n, std::size_t* got) {
  *got = 0;
  if (!ssl_) {
    for (;;) {
      ssize_t k = ::recv(fd_, buf, n, MSG_DONTWAIT);
      if (k > 0) {
        *got = static_cast<std::size_t>(k);
        return Nb::kOk;
      }
      if (k == 0) return Nb::kEof;
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return Nb::kWantRead;
      if (errno == ECONNRESET) return Nb::kEof;
      sys_errno_ = errno;
      tls_error_ = std::strerror(errno);
      return Nb::kError;
    }
  }
  ERR_clear_error();
  errno = 0;
  int ret = SSL_read_ex(ssl_, buf, n, got);
  if (ret == 1) return Nb::kOk;
  return ssl_nb(ret, nullptr);
}

Channel::Nb Channel::write_some(const void* buf, std::size_t n, std::size_t* put) {
  *put = 0;
  if (!ssl_) {
    for (;;) {
      ssize_t k = ::send(fd_, buf, n, MSG_DONTWAIT | MSG_NOSIGNAL);
      if (k >= 0) {
        *put = static_cast<std::size_t>(k);
        return Nb::kOk;
      }
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return Nb::kWantWrite;
      if (errno == EPIPE || errno == ECONNRESET) return Nb::kEof;
      tls_error_ = std::strerror(errno);
      return Nb::kError;
    }
  }
  ERR_clear_error();
  errno = 0;
  int ret = SSL_write_ex(ssl_, buf, n, put);
  if (ret == 1) return Nb::kOk;
  return ssl_nb(ret, nullptr);
}

std::string Channel::describe(const util::IoResult& r) const {
  if (r.status == util::IoResult::kError && !tls_error_.empty()) return "TLS error: " + tls_error_;
  return r.describe();
}

}  // namespace shmem::bootstrap
