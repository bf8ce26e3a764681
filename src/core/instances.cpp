// The process's runtimes ("instances") and everything chosen before one starts: the library's
// one piece of mutable global state (DESIGN: "one Runtime ... no other mutable globals").
// Instance 0 is what shmem_init creates; Ascend SHMEM's aclshmemx_init_attr may create others, and
// the current instance serves every API call.
#include <openssl/rand.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>

#include "bootstrap/store_address.hpp"
#include "bootstrap/plugin_mpi.hpp"
#include "bootstrap/plugin_pmix.hpp"
#include "bootstrap/torch_store.hpp"
#include "base/error.hpp"
#include "core/init_ops.hpp"
#include "base/log.hpp"
#include "core/ops.hpp"
#include "core/runtime.hpp"

namespace shmem {

// The instance every API call serves (current_runtime(), runtime.hpp): a constant-initialised
// word of its own, not a member of the function-local Process, so that reading it on every
// data-path call is one load, without that static's initialisation guard. Written under
// Process::mu.
std::atomic<Runtime*> detail::g_current{nullptr};

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
  std::uint64_t current_id = 0;
  bool atexit_registered = false;
  pid_t owner = 0;                // the process that registered the exit handler (the PE's)
  bool finalize_at_exit = false;  // shmemx_finalize_at_exit: status 0 finalizes without a deadline
  // Chosen before init (Ascend SHMEM API): TLS overrides and the store a unique ID points at.
  bool tls_overridden = false;
  bool tls_enabled = true;
  std::string tls_info, tls_key_pem, tls_key_password;
  std::unique_ptr<bootstrap::StoreServer> uid_server;
  std::string uid_secret, uid_job;
  // What an instance's bootstrap needs kept alive until it finalizes (MPI initialised by the
  // library in ACLSHMEMX_INIT_WITH_MPI), and the one MPI that every such instance shares.
  std::map<std::uint64_t, std::shared_ptr<void>> boot_holds;
  std::weak_ptr<bootstrap::MpiLibrary> mpi;
  // PMIx (shmem_init under mpirun): connected for the rest of the process, see PmixClient.
  std::unique_ptr<bootstrap::PmixClient> pmix;
  int pmix_rounds = 0;
};

using detail::g_current;

Process& proc() {
  static Process p;
  return p;
}

// True in a child that this PE forked without exec. The instances it inherited are the PE's: the
// child must neither finalize them nor destroy them (their threads do not exist in it, and their
// store connections are the PE's, which util/parent_only_fd.hpp turned into /dev/null there).
// Checked before p.mu is taken: another thread of the PE may have held it at the fork.
bool forked_from_pe(const Process& p) { return p.owner != 0 && ::getpid() != p.owner; }

// What a forked child took over from the PE and must never destroy: kept reachable from here, so
// that a leak checker at the child's exit (LeakSanitizer) does not count it.
struct ForkLeftovers {
  std::map<std::uint64_t, std::unique_ptr<Runtime>> instances;
  std::unique_ptr<bootstrap::StoreServer> uid_server;
  std::unique_ptr<bootstrap::PmixClient> pmix;
  std::map<std::uint64_t, std::shared_ptr<void>> boot_holds;
};
ForkLeftovers* volatile g_fork_leftovers = nullptr;  // volatile: a store nothing reads is still made

// At exit (on_exit, so the status is known): instances not finalized leave the job. A non-zero
// status tells the other PEs at once; status 0 is the implicit finalize (Runtime::leave_at_exit).
void finalize_at_exit(int status, void*) {
  Process& p = proc();
  if (forked_from_pe(p)) {
    // Moved out of reach of every destructor (the child is single-threaded, p.mu is not taken).
    g_fork_leftovers =
        new ForkLeftovers{std::move(p.instances), std::move(p.uid_server), std::move(p.pmix), std::move(p.boot_holds)};
    return;
  }
  std::lock_guard<std::mutex> g(p.mu);
  g_current.store(nullptr, std::memory_order_release);
  for (auto& [id, rt] : p.instances) rt->leave_at_exit(status, p.finalize_at_exit);
  p.instances.clear();
  if (status != 0)
    if (std::shared_ptr<bootstrap::MpiLibrary> mpi = p.mpi.lock()) mpi->abandon();
  p.boot_holds.clear();
  p.pmix.reset();
}

void register_at_exit(Process& p) {
  if (p.atexit_registered) return;
  p.atexit_registered = true;
  p.owner = ::getpid();
  on_exit(finalize_at_exit, nullptr);  // glibc: like atexit, with the exit status
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
  if (!p.tls_info.empty()) tls.apply_tls_info(p.tls_info);
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

// The unique ID of a new job whose store this process (PE 0) hosts; p.mu is held.
void make_uid(Process& p, void* out) {
  UidBlob b{};
  b.magic = kUidMagic;
  b.version = 1;
  if (RAND_bytes(b.secret, sizeof b.secret) != 1) throw Error(Errc::kInternal, "RAND_bytes failed");
  unsigned char job[8];
  RAND_bytes(job, sizeof job);
  std::snprintf(b.job, sizeof b.job, "u%s", hex(job, sizeof job).c_str());
  // SHMEM_UID_SESSION_ID (Ascend SHMEM's variable) fixes host:port; by default an address that
  // PEs on other hosts can reach (SHMEM_BOOTSTRAP_ADDR / SHMEM_BOOTSTRAP_IFACE / automatic).
  std::string host = bootstrap::reachable_store_address();
  std::uint16_t port = 0;
  if (const char* sid = std::getenv("SHMEM_UID_SESSION_ID"); sid && *sid)
    std::tie(host, port) = bootstrap::parse_host_port(sid, "SHMEM_UID_SESSION_ID");
  bootstrap::StoreServer::Options o;
  o.bind_host = host;
  o.port = port;
  o.tls.secret = hex(b.secret, sizeof b.secret);
  o.tls.enabled = parse_bool(config_raw("SHMEM_BOOTSTRAP_TLS"), "SHMEM_BOOTSTRAP_TLS");
  apply_tls_overrides(p, o.tls);
  o.linger_on_failure = bootstrap::Millis(3000);  // ranks still arriving hear why the job failed
  p.uid_secret = o.tls.secret;
  p.uid_server = std::make_unique<bootstrap::StoreServer>(std::move(o));
  b.port = p.uid_server->port();
  std::snprintf(b.host, sizeof b.host, "%s", host.c_str());
  std::memset(out, 0, core::kUniqueIdBytes);
  std::memcpy(out, &b, sizeof b);
}

// Joins the job a unique ID describes (ACLSHMEMX_INIT_WITH_UNIQUEID, and MPI mode after the
// broadcast). On PE 0 the store made with the ID is handed to the runtime.
void join_by_uid(const void* uid, Process& p, RuntimeSetup& st) {
  bootstrap::LaunchSpec& l = st.launch;
  UidBlob b;
  std::memcpy(&b, uid, sizeof b);
  if (b.magic != kUidMagic || b.version != 1)
    throw Error(Errc::kInvalidArgument, "the unique ID was not made by aclshmemx_get_uniqueid (bad magic or version)");
  b.host[sizeof b.host - 1] = 0;
  b.job[sizeof b.job - 1] = 0;
  l.store_host = b.host;
  l.store_port = b.port;
  l.job_id = b.job;
  l.tls.enabled = st.cfg.bootstrap_tls;
  l.tls.secret = hex(b.secret, sizeof b.secret);
  if (l.pe == 0) {
    if (!p.uid_server || p.uid_secret != l.tls.secret)
      throw Error(Errc::kInvalidArgument, "PE 0 must call aclshmemx_get_uniqueid in the same process before init");
    st.server = std::move(p.uid_server);
  }
}

// ACLSHMEMX_INIT_WITH_MPI: the ranks must be the communicator's; PE 0 makes a unique ID and
// broadcasts it over the communicator, then everything goes as in unique-ID mode. `hold`
// receives MPI itself, to keep until the instance finalizes.
void join_by_mpi(const core::InitSpec& spec, Process& p, RuntimeSetup& st, std::shared_ptr<void>& hold) {
  constexpr const char* kMode = "ACLSHMEMX_INIT_WITH_MPI";
  std::shared_ptr<bootstrap::MpiLibrary> mpi = p.mpi.lock();
  if (!mpi) {
    mpi = std::make_shared<bootstrap::MpiLibrary>();
    p.mpi = mpi;
  }
  hold = mpi;
  bootstrap::MpiComm comm(mpi, spec.mpi_comm);
  const char* which = spec.mpi_comm ? "the communicator in attr->comm_args" : "MPI_COMM_WORLD";
  const bool match = comm.rank() == spec.pe && comm.size() == spec.npes;
  const bool all_match = comm.all_true(match);  // nobody goes on to wait for a PE that stopped here
  if (!match)
    throw Error(Errc::kInvalidArgument, std::string(kMode) + ": attr->my_pe=" + std::to_string(spec.pe) +
                                            " and attr->n_pes=" + std::to_string(spec.npes) + " must equal the rank " +
                                            std::to_string(comm.rank()) + " and size " + std::to_string(comm.size()) +
                                            " of this process in " + which);
  if (!all_match)
    throw Error(Errc::kInvalidArgument, std::string(kMode) + ": another process's attr->my_pe / attr->n_pes differ "
                                                             "from its rank / size in " + which + " (see its error)");
  // Byte 0: PE 0 made the ID (1) or failed (0); then the ID.
  unsigned char msg[1 + core::kUniqueIdBytes] = {};
  if (comm.rank() == 0) {
    try {
      make_uid(p, msg + 1);
      msg[0] = 1;
    } catch (...) {
      comm.bcast(msg, sizeof msg, 0);  // the others fail too instead of waiting
      throw;
    }
  }
  comm.bcast(msg, sizeof msg, 0);
  if (msg[0] != 1)
    throw Error(Errc::kBootstrap, std::string(kMode) + ": PE 0 could not start the bootstrap store (see its error)");
  join_by_uid(msg + 1, p, st);
}

RuntimeSetup make_setup(const core::InitSpec& spec, Process& p, std::shared_ptr<void>& hold) {
  RuntimeSetup st;
  st.cfg = Config::from_env();
  validate_startup_settings(st.cfg);
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
  bool unauthenticated_tcp = false;
  switch (spec.mode) {
    case core::BootstrapMode::kEnvironment:
      l = bootstrap::launch_spec_from_env(st.cfg);
      if (bootstrap::torch_agent_store(l)) {  // torchrun's agent holds MASTER_PORT: meet through its store
        const std::string uid = bootstrap::torch_store_uid(l, st.cfg.bootstrap_timeout, [&] {
          std::string u(core::kUniqueIdBytes, '\0');
          make_uid(p, u.data());
          return u;
        });
        if (uid.size() != core::kUniqueIdBytes) throw Error(Errc::kBootstrap, "init under torchrun: a bad unique ID");
        l.on_job_failed = [agent = l](const std::string& why) {  // the agent's address, before the ID replaces it
          bootstrap::torch_store_tombstone(agent, why, bootstrap::Millis(2000));
        };
        join_by_uid(uid.data(), p, st);
        l.host_store = false;  // rank 0's store runs already (made with the ID)
        l.origin = "torchrun (agent store)";
      }
      break;
    case core::BootstrapMode::kTcp: {
      need_ranks("ACLSHMEMX_INIT_WITH_DEFAULT");
      std::tie(l.store_host, l.store_port) = parse_tcp_url(spec.store_url);
      l.host_store = l.pe == 0;
      l.origin = "tcp";
      l.job_id = std::to_string(l.store_port).insert(0, 1, 'a');
      l.tls.enabled = st.cfg.bootstrap_tls;
      l.tls.secret = st.cfg.job_secret;
      if (!st.cfg.bootstrap_tls_info.empty()) l.tls.apply_tls_info(st.cfg.bootstrap_tls_info);
      if (l.tls.secret.empty()) {
        // Nothing secret is shared in this mode: the secret below only keeps unrelated jobs apart.
        l.tls.secret = "shmem-tcp-mode/" + spec.store_url + "/" + std::to_string(l.npes);
        unauthenticated_tcp = true;  // unless certificates come from aclshmemx_set_conf_store_tls (below)
      }
      break;
    }
    case core::BootstrapMode::kUniqueId:
      need_ranks("ACLSHMEMX_INIT_WITH_UNIQUEID");
      if (!spec.unique_id) throw Error(Errc::kInvalidArgument, "unique ID is NULL");
      l.origin = "uniqueid";
      join_by_uid(spec.unique_id, p, st);
      break;
    case core::BootstrapMode::kMpi:
      need_ranks("ACLSHMEMX_INIT_WITH_MPI");
      l.origin = "mpi";
      join_by_mpi(spec, p, st, hold);
      break;
  }
  apply_tls_overrides(p, l.tls);
  if (unauthenticated_tcp && l.pe == 0 && !l.tls.uses_certificates() && l.tls.enabled)
    SHMEM_WARN("init", "ip_port mode without SHMEM_JOB_SECRET or certificates: PEs are not authenticated; "
                       "set SHMEM_JOB_SECRET on every PE or configure aclshmemx_set_conf_store_tls");
  if (l.pmix) {  // mpirun: meet through PMIx, which stays connected for the rest of the process
    if (!p.pmix) {
      register_at_exit(p);  // finalises PMIx at exit, or the launcher counts this process as failed
      p.pmix = std::make_unique<bootstrap::PmixClient>();
    }
    bootstrap::adopt_pmix_ranks(*p.pmix, l);
    if (l.npes > 1) {
      const double timeout = spec.connect_timeout_s > 0 ? spec.connect_timeout_s : st.cfg.bootstrap_timeout;
      const std::string round = std::to_string(++p.pmix_rounds);
      st.server = bootstrap::meet_over_pmix(*p.pmix, l, "shmem.bootstrap." + round, timeout);
      st.pmix = p.pmix.get();  // init's exchanges go through PMIx too (core/boot_data_pmix.hpp)
      st.pmix_scope = "shmem." + round;
    }
  }
  log::set_identity(l.pe, l.npes);
  if (l.pe == 0)  // once per job: every PE has the same environment as a rule
    for (const std::string& m : unknown_variable_messages()) SHMEM_WARN("init", "%s", m.c_str());
  SHMEM_INFO_LOG("init", "bootstrap: %s, PE %d of %d%s", l.origin, l.pe, l.npes,
                 l.npes > 1 ? (", store at " + l.store_host + ":" + std::to_string(l.store_port)).c_str() : "");
  return st;
}

}  // namespace

namespace core {

void init_with(const InitSpec& spec) {
  Process& p = proc();
  std::lock_guard<std::mutex> g(p.mu);
  if (p.instances.count(spec.instance_id))
    throw Error(Errc::kInvalidArgument, "instance " + std::to_string(spec.instance_id) + " is already initialised");
  std::shared_ptr<void> hold;  // released (MPI finalised if the library initialised it) on failure
  RuntimeSetup setup = make_setup(spec, p, hold);
  const auto on_failed = setup.launch.on_job_failed;
  const int pe = setup.launch.pe;
  std::unique_ptr<Runtime> rt;
  try {
    rt = std::make_unique<Runtime>(std::move(setup));
  } catch (const std::exception& e) {  // every PE must get through init: the job has failed
    if (on_failed) on_failed("PE " + std::to_string(pe) + " failed to initialise: " + e.what());
    throw;
  }
  Runtime* raw = rt.get();
  p.instances.emplace(spec.instance_id, std::move(rt));
  if (hold) p.boot_holds[spec.instance_id] = std::move(hold);
  p.current_id = spec.instance_id;
  g_current.store(raw, std::memory_order_release);
  register_at_exit(p);
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

bool ignored_in_forked_child(const char* routine) noexcept {
  const Process& p = proc();
  if (!forked_from_pe(p)) return false;
  SHMEM_WARN("init", "%s in process %d, which PE %d's process %d forked: ignored (the PE finalizes)", routine,
             static_cast<int>(::getpid()), current_runtime() ? current_runtime()->my_pe() : -1,
             static_cast<int>(p.owner));
  return true;
}

int instance_finalize(std::uint64_t id) noexcept {
  Process& p = proc();
  if (forked_from_pe(p)) return 0;  // the API's entry said so (ignored_in_forked_child)
  std::lock_guard<std::mutex> g(p.mu);
  auto it = p.instances.find(id);
  if (it == p.instances.end()) return 1;
  it->second->finalize();
  if (g_current.load() == it->second.get()) g_current.store(nullptr, std::memory_order_release);
  p.instances.erase(it);
  p.boot_holds.erase(id);  // the last MPI-mode instance finalises MPI if the library initialised it
  if (!g_current.load() && !p.instances.empty()) {  // fall back to another live instance
    p.current_id = p.instances.begin()->first;
    g_current.store(p.instances.begin()->second.get(), std::memory_order_release);
  }
  return 0;
}

void finalize_at_exit_request() noexcept {
  Process& p = proc();
  if (forked_from_pe(p)) return;
  std::lock_guard<std::mutex> g(p.mu);
  p.finalize_at_exit = true;
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
  g_current.store(it->second.get(), std::memory_order_release);
  return 0;
}

int init_status() noexcept { return current_runtime() ? 2 : 0; }

void uniqueid_create(void* out) {
  Process& p = proc();
  std::lock_guard<std::mutex> g(p.mu);
  make_uid(p, out);
}

void set_store_tls(bool enable, const std::string& tls_info) {
  Process& p = proc();
  std::lock_guard<std::mutex> g(p.mu);
  if (g_current.load())
    throw Error(Errc::kInvalidArgument, "store TLS settings must be made before initialisation");
  bootstrap::TlsConfig probe;
  if (!tls_info.empty()) probe.apply_tls_info(tls_info);  // validate now, naming the bad key
  p.tls_overridden = true;
  p.tls_enabled = enable;
  p.tls_info = tls_info;
}

void set_store_tls_key(const std::string& key_pem, const std::string& password, DecryptFn decrypt) {
  Process& p = proc();
  std::lock_guard<std::mutex> g(p.mu);
  if (g_current.load())
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
