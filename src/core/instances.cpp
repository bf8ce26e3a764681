// The process's runtimes ("instances") and everything chosen before one starts: the library's
// one piece of mutable global state (DESIGN: "one Runtime ... no other mutable globals").
// Instance 0 is what shmem_init creates; the seed's aclshmemx_init_attr may create others, and
// the current instance serves every API call.
#include <openssl/rand.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include "core/error.hpp"
#include "core/init_ops.hpp"
#include "core/log.hpp"
#include "core/ops.hpp"
#include "core/runtime.hpp"

namespace shmem {
namespace {

constexpr std::uint32_t kUidMagic = 0x53485549;  // "SHUI"

// The unique ID's layout inside its 124 opaque bytes.
struct UidBlob {
  std::uint32_t magic;
  std::uint16_t version;
  std::uint16_t port;
  char host[48];
  unsigned char secret[32];
  char job[24];
};
static_assert(sizeof(UidBlob) <= core::kUniqueIdBytes);

struct Process {
  std::mutex mu;
  std::map<std::uint64_t, std::unique_ptr<Runtime>> instances;
  std::atomic<Runtime*> current{nullptr};
  std::uint64_t current_id = 0;
  bool atexit_registered = false;
  // Chosen before init (seed API): TLS overrides and the store a unique ID points at.
  bool tls_overridden = false;
  bool tls_enabled = true;
  std::string tls_info, tls_key_pem, tls_key_password;
  std::unique_ptr<bootstrap::StoreServer> uid_server;
  std::string uid_secret, uid_job;
};

Process& proc() {
  static Process p;
  return p;
}

void finalize_at_exit() {
  Process& p = proc();
  std::lock_guard<std::mutex> g(p.mu);
  p.current.store(nullptr, std::memory_order_release);
  for (auto& [id, rt] : p.instances) rt->finalize();
  p.instances.clear();
}

std::string hex(const unsigned char* b, std::size_t n) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (std::size_t i = 0; i < n; ++i) {
    s += d[b[i] >> 4];
    s += d[b[i] & 15];
  }
  return s;
}

void apply_tls_overrides(const Process& p, bootstrap::TlsConfig& tls) {
  if (!p.tls_overridden) return;
  tls.enabled = p.tls_enabled;
  if (!p.tls_info.empty()) tls.apply_seed_info(p.tls_info);
  if (!p.tls_key_pem.empty()) tls.key_pem = p.tls_key_pem;
  if (!p.tls_key_password.empty()) tls.key_password = p.tls_key_password;
}

std::pair<std::string, std::uint16_t> parse_tcp_url(const std::string& url) {
  std::string rest;
  if (url.rfind("tcp://", 0) == 0) rest = url.substr(6);
  else if (url.rfind("tcp6://", 0) == 0) rest = url.substr(7);
  else
    throw Error(Errc::kInvalidArgument, "ip_port '" + url + "' must look like tcp://host:port or tcp6://[host]:port");
  if (rest.size() > 2 && rest.front() == '[') {  // [v6]:port
    const auto close = rest.find(']');
    if (close == std::string::npos || close + 1 >= rest.size() || rest[close + 1] != ':')
      throw Error(Errc::kInvalidArgument, "ip_port '" + url + "': expected tcp6://[address]:port");
    return {rest.substr(1, close - 1), static_cast<std::uint16_t>(parse_int(rest.substr(close + 2), "ip_port port"))};
  }
  return bootstrap::parse_host_port(rest, "ip_port");
}

RuntimeSetup make_setup(const core::InitSpec& spec, Process& p) {
  RuntimeSetup st;
  st.cfg = Config::from_env();
  if (spec.heap_size) st.cfg.symmetric_size = spec.heap_size;
  st.thread_level = spec.thread_level;
  st.connect_timeout_s = spec.connect_timeout_s;
  st.control_timeout_s = spec.control_timeout_s;
  st.instance_id = spec.instance_id;
  bootstrap::LaunchSpec& l = st.launch;
  auto need_ranks = [&](const char* mode) {
    if (spec.npes <= 0 || spec.pe < 0 || spec.pe >= spec.npes)
      throw Error(Errc::kInvalidArgument, std::string(mode) + ": my_pe=" + std::to_string(spec.pe) + " and n_pes=" +
                                              std::to_string(spec.npes) + " must satisfy 0 <= my_pe < n_pes");
    l.pe = spec.pe;
    l.npes = spec.npes;
  };
  switch (spec.mode) {
    case core::BootstrapMode::kEnvironment:
      l = bootstrap::launch_spec_from_env(st.cfg);
      break;
    case core::BootstrapMode::kTcp: {
      need_ranks("ACLSHMEMX_INIT_WITH_DEFAULT");
      std::tie(l.store_host, l.store_port) = parse_tcp_url(spec.store_url);
      l.host_store = l.pe == 0;
      l.origin = "tcp";
      l.job_id = "a" + std::to_string(l.store_port);
      l.tls.enabled = st.cfg.bootstrap_tls;
      l.tls.secret = st.cfg.job_secret;
      if (!st.cfg.bootstrap_tls_info.empty()) l.tls.apply_seed_info(st.cfg.bootstrap_tls_info);
      if (l.tls.secret.empty()) {
        // Nothing secret is shared in this mode: the secret below only keeps unrelated jobs apart.
        l.tls.secret = "shmem-tcp-mode/" + spec.store_url + "/" + std::to_string(l.npes);
        if (l.pe == 0 && !l.tls.uses_certificates() && l.tls.enabled)
          SHMEM_WARN("init", "ip_port mode without SHMEM_JOB_SECRET or certificates: PEs are not authenticated; "
                             "set SHMEM_JOB_SECRET on every PE or configure aclshmemx_set_conf_store_tls");
      }
      break;
    }
    case core::BootstrapMode::kUniqueId: {
      need_ranks("ACLSHMEMX_INIT_WITH_UNIQUEID");
      if (!spec.unique_id) throw Error(Errc::kInvalidArgument, "unique ID is NULL");
      UidBlob b;
      std::memcpy(&b, spec.unique_id, sizeof b);
      if (b.magic != kUidMagic || b.version != 1)
        throw Error(Errc::kInvalidArgument, "the unique ID was not made by aclshmemx_get_uniqueid (bad magic or version)");
      b.host[sizeof b.host - 1] = 0;
      b.job[sizeof b.job - 1] = 0;
      l.store_host = b.host;
      l.store_port = b.port;
      l.origin = "uniqueid";
      l.job_id = b.job;
      l.tls.enabled = st.cfg.bootstrap_tls;
      l.tls.secret = hex(b.secret, sizeof b.secret);
      if (l.pe == 0) {
        if (!p.uid_server || p.uid_secret != l.tls.secret)
          throw Error(Errc::kInvalidArgument, "PE 0 must call aclshmemx_get_uniqueid in the same process before init");
        st.server = std::move(p.uid_server);
      }
      break;
    }
    case core::BootstrapMode::kMpi:
      throw Error(Errc::kNotSupported,
                  "ACLSHMEMX_INIT_WITH_MPI: the MPI bootstrap is not built in this version; use "
                  "ACLSHMEMX_INIT_WITH_DEFAULT or ACLSHMEMX_INIT_WITH_UNIQUEID (or oshrun / torchrun variables)");
  }
  apply_tls_overrides(p, l.tls);
  return st;
}

}  // namespace

Runtime* current_runtime() noexcept { return proc().current.load(std::memory_order_acquire); }

namespace core {

void init_with(const InitSpec& spec) {
  Process& p = proc();
  std::lock_guard<std::mutex> g(p.mu);
  if (p.instances.count(spec.instance_id))
    throw Error(Errc::kInvalidArgument, "instance " + std::to_string(spec.instance_id) + " is already initialised");
  auto rt = std::make_unique<Runtime>(make_setup(spec, p));
  Runtime* raw = rt.get();
  p.instances.emplace(spec.instance_id, std::move(rt));
  p.current_id = spec.instance_id;
  p.current.store(raw, std::memory_order_release);
  if (!p.atexit_registered) {
    p.atexit_registered = true;
    std::atexit(finalize_at_exit);
  }
}

void init(int requested, int* provided) {
  {
    Process& p = proc();
    std::lock_guard<std::mutex> g(p.mu);
    auto it = p.instances.find(0);
    if (it != p.instances.end()) {  // a second shmem_init is a no-op
      if (provided) *provided = it->second->thread_level();
      return;
    }
  }
  InitSpec spec;
  spec.thread_level = requested;
  init_with(spec);
  if (provided) *provided = current_runtime()->thread_level();
}

int instance_finalize(std::uint64_t id) noexcept {
  Process& p = proc();
  std::lock_guard<std::mutex> g(p.mu);
  auto it = p.instances.find(id);
  if (it == p.instances.end()) return 1;
  it->second->finalize();
  if (p.current.load() == it->second.get()) p.current.store(nullptr, std::memory_order_release);
  p.instances.erase(it);
  if (!p.current.load() && !p.instances.empty()) {  // fall back to another live instance
    p.current_id = p.instances.begin()->first;
    p.current.store(p.instances.begin()->second.get(), std::memory_order_release);
  }
  return 0;
}

void finalize() noexcept {
  Runtime* r = current_runtime();
  if (r) instance_finalize(r->instance_id());
}

std::uint64_t instance_current() noexcept {
  Process& p = proc();
  std::lock_guard<std::mutex> g(p.mu);
  return p.current_id;
}

int instance_set(std::uint64_t id) noexcept {
  Process& p = proc();
  std::lock_guard<std::mutex> g(p.mu);
  auto it = p.instances.find(id);
  if (it == p.instances.end()) return 1;
  p.current_id = id;
  p.current.store(it->second.get(), std::memory_order_release);
  return 0;
}

int init_status() noexcept { return current_runtime() ? 2 : 0; }

void uniqueid_create(void* out) {
  Process& p = proc();
  std::lock_guard<std::mutex> g(p.mu);
  UidBlob b{};
  b.magic = kUidMagic;
  b.version = 1;
  if (RAND_bytes(b.secret, sizeof b.secret) != 1) throw Error(Errc::kInternal, "RAND_bytes failed");
  unsigned char job[8];
  RAND_bytes(job, sizeof job);
  std::snprintf(b.job, sizeof b.job, "u%s", hex(job, sizeof job).c_str());
  // SHMEM_UID_SESSION_ID (the seed's variable) fixes host:port; by default loopback, since
  // every PE of this build shares one host.
  std::string host = "127.0.0.1";
  std::uint16_t port = 0;
  if (const char* sid = std::getenv("SHMEM_UID_SESSION_ID"); sid && *sid)
    std::tie(host, port) = bootstrap::parse_host_port(sid, "SHMEM_UID_SESSION_ID");
  bootstrap::StoreServer::Options o;
  o.bind_host = host;
  o.port = port;
  o.tls.secret = hex(b.secret, sizeof b.secret);
  o.tls.enabled = parse_bool(config_raw("SHMEM_BOOTSTRAP_TLS"), "SHMEM_BOOTSTRAP_TLS");
  apply_tls_overrides(p, o.tls);
  p.uid_secret = o.tls.secret;
  p.uid_server = std::make_unique<bootstrap::StoreServer>(std::move(o));
  b.port = p.uid_server->port();
  std::snprintf(b.host, sizeof b.host, "%s", host.c_str());
  std::memset(out, 0, kUniqueIdBytes);
  std::memcpy(out, &b, sizeof b);
}

void set_store_tls(bool enable, const std::string& tls_info) {
  Process& p = proc();
  std::lock_guard<std::mutex> g(p.mu);
  if (p.current.load())
    throw Error(Errc::kInvalidArgument, "store TLS settings must be made before initialisation");
  bootstrap::TlsConfig probe;
  if (!tls_info.empty()) probe.apply_seed_info(tls_info);  // validate now, naming the bad key
  p.tls_overridden = true;
  p.tls_enabled = enable;
  p.tls_info = tls_info;
}

void set_store_tls_key(const std::string& key_pem, const std::string& password, DecryptFn decrypt) {
  Process& p = proc();
  std::lock_guard<std::mutex> g(p.mu);
  if (p.current.load())
    throw Error(Errc::kInvalidArgument, "the store TLS key must be set before initialisation");
  std::string plain = password;
  if (decrypt && !password.empty()) {
    std::string buf(password.size() * 2 + 1, '\0');
    std::size_t len = buf.size();
    if (decrypt(password.data(), password.size(), buf.data(), len) != 0 || len > buf.size())
      throw Error(Errc::kInvalidArgument, "the password decrypt callback failed");
    plain.assign(buf.data(), len);
  }
  p.tls_overridden = true;
  p.tls_key_pem = key_pem;
  p.tls_key_password = plain;
}

}  // namespace core
}  // namespace shmem
