// shmem-info --check: the environment a shmem job meets on this host, and what to fix.
// Checks: the heap (SHMEM_SYMMETRIC_SIZE x PEs) against memory and the cgroup limit, /dev/shm,
// the open-file limit, ptrace (Yama) and pidfd rules, UCX devices and transports (when the
// plugin loads), the NVIDIA driver and MPS (when present), TLS (OpenSSL, the certificates of
// SHMEM_BOOTSTRAP_TLS_INFO).
#include "shmem_info_check.hpp"

#include <fcntl.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "base/config.hpp"
#include "bootstrap/tls.hpp"
#include "transport/transport.hpp"
#include "util/mem_limits.hpp"

namespace shmem::tools {
namespace {

using util::format_bytes;

class Report {
 public:
  void ok(const std::string& what, const std::string& msg) { line("ok  ", what, msg, ""); }
  void warn(const std::string& what, const std::string& msg, const std::string& fix) {
    ++warnings_;
    line("warn", what, msg, fix);
  }
  void fail(const std::string& what, const std::string& msg, const std::string& fix) {
    ++failures_;
    line("FAIL", what, msg, fix);
  }
  int finish() const {
    std::printf("%d failed, %d warning%s\n", failures_, warnings_, warnings_ == 1 ? "" : "s");
    return failures_ ? 1 : 0;
  }

 private:
  static void line(const char* tag, const std::string& what, const std::string& msg, const std::string& fix) {
    std::printf("[%s] %-9s %s\n", tag, what.c_str(), msg.c_str());
    if (!fix.empty()) std::printf("       %-9s fix: %s\n", "", fix.c_str());
  }
  int failures_ = 0;
  int warnings_ = 0;
};

std::string read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  return s;
}

void check_heap(Report& r, const Config& cfg, int pes) {
  const std::uint64_t heap = cfg.symmetric_size;
  const std::uint64_t need = heap * static_cast<std::uint64_t>(pes);
  const auto mem = util::host_memory();
  const auto cg = util::cgroup_memory_limit();
  std::string what = "SHMEM_SYMMETRIC_SIZE=" + format_bytes(heap) + " per PE";
  if (pes > 1) what += " x " + std::to_string(pes) + " PEs = " + format_bytes(need);
  std::string fix_size = "set SHMEM_SYMMETRIC_SIZE to at most ";
  if (mem.total && need > mem.total) {
    r.fail("heap",
           what + " is more than this host's memory (" + format_bytes(mem.total) + "): the heaps cannot be filled",
           fix_size + format_bytes(mem.total / static_cast<std::uint64_t>(pes)) + " (or run fewer PEs per host)");
  } else if (cg && need > cg->bytes) {
    r.fail("heap",
           what + " is more than the cgroup memory limit (" + format_bytes(cg->bytes) + ", " + cg->file +
               "): the job is killed when its heaps fill",
           fix_size + format_bytes(cg->bytes / static_cast<std::uint64_t>(pes)) +
               ", or raise the limit (docker run --memory, systemd MemoryMax=)");
  } else if (mem.available && need > mem.available) {
    r.warn("heap",
           what + " is more than the memory available now (" + format_bytes(mem.available) +
               "); untouched pages cost nothing, but filled heaps would swap or be killed",
           fix_size + format_bytes(mem.available / static_cast<std::uint64_t>(pes)) + " if the program fills its heap");
  } else {
    r.ok("heap", what + "; memory " + format_bytes(mem.total) + " (available " + format_bytes(mem.available) +
                     "), cgroup limit " + (cg ? format_bytes(cg->bytes) : std::string("none")));
  }
}

void check_dev_shm(Report& r) {
  // shmem's heaps are memfds, not /dev/shm files; MPI and UCX's shared-memory transports use it.
  constexpr std::uint64_t kMin = std::uint64_t{64} << 20;
  const auto fs = util::fs_space("/dev/shm");
  if (!fs) {
    r.warn("/dev/shm",
           std::string("cannot be read: ") + std::strerror(errno) +
               " (shmem's heaps do not need it; MPI and UCX shared memory do)",
           "mount -t tmpfs tmpfs /dev/shm");
  } else if (fs->available < kMin) {
    r.warn("/dev/shm",
           format_bytes(fs->available) + " free of " + format_bytes(fs->size) +
               " (shmem's heaps do not use it; MPI and UCX shared memory need room there)",
           "remove stale files there, or enlarge it (docker run --shm-size=1g; mount -o remount,size=1G /dev/shm)");
  } else {
    r.ok("/dev/shm", format_bytes(fs->available) + " free of " + format_bytes(fs->size));
  }
}

void check_open_files(Report& r, int pes) {
  // Each PE holds its segments' memfds, one socket per node-local peer, the store connection,
  // and whatever the program opens: 64 + 4 per PE on the host is a floor, not an estimate.
  const std::uint64_t need = 64 + 4 * static_cast<std::uint64_t>(pes);
  const auto lim = util::open_file_limit();
  auto show = [](std::uint64_t v) {
    return v == std::numeric_limits<std::uint64_t>::max() ? std::string("unlimited") : std::to_string(v);
  };
  const std::string msg = "open files: soft limit " + show(lim.soft) + ", hard " + show(lim.hard);
  if (lim.soft >= need) {
    r.ok("files", msg);
  } else if (lim.hard >= need) {
    r.fail(
        "files",
        msg + "; " + std::to_string(pes) + (pes == 1 ? " PE needs" : " PEs need") + " at least " + std::to_string(need),
        "ulimit -n " + show(lim.hard) + " in the shell that starts oshrun");
  } else {
    r.fail(
        "files",
        msg + "; " + std::to_string(pes) + (pes == 1 ? " PE needs" : " PEs need") + " at least " + std::to_string(need),
        "raise the hard limit (nofile in /etc/security/limits.conf, LimitNOFILE= for a service)");
  }
}

void check_ptrace(Report& r) {
  const std::string scope = read_first_line("/proc/sys/kernel/yama/ptrace_scope");
  if (scope.empty() || scope == "0") {
    r.ok("ptrace", scope.empty() ? "no Yama ptrace restrictions" : "Yama ptrace_scope 0 (classic rules)");
  } else if (scope == "1") {
    r.ok("ptrace", "Yama ptrace_scope 1: a debugger attaches to its descendants only; UCX's cma transport "
                   "is off between PEs (shmem's own same-host path passes memfds and needs no ptrace)");
  } else {
    r.warn("ptrace",
           "Yama ptrace_scope " + scope +
               ": gdb -p cannot attach to a hung PE, and UCX's cma "
               "transport is off",
           scope == "3" ? std::string("scope 3 holds until reboot; set kernel.yama.ptrace_scope=1 in /etc/sysctl.d")
                        : std::string("sysctl kernel.yama.ptrace_scope=1 (or start gdb as root)"));
  }
#ifdef SYS_pidfd_open
  const long fd = ::syscall(SYS_pidfd_open, ::getpid(), 0);
  if (fd >= 0) {
    ::close(static_cast<int>(fd));
    r.ok("pidfd", "pidfd_open works (oshrun watches PEs without races)");
  } else {
    const int e = errno;
    r.warn("pidfd", std::string("pidfd_open fails: ") + std::strerror(e),
           e == ENOSYS ? "a kernel of 5.3 or later" : "allow pidfd_open in the seccomp profile (container runtime)");
  }
#endif
}

void check_ucx(Report& r, const std::string& plugin_dir) {
  const char* tls = std::getenv("UCX_TLS");
  const char* devs = std::getenv("UCX_NET_DEVICES");
  std::string env;
  if (tls) env += std::string(" UCX_TLS=") + tls;
  if (devs) env += std::string(" UCX_NET_DEVICES=") + devs;
  for (const std::string& line : transport::probe_remote(plugin_dir)) {
    if (line.rfind("ucx ", 0) != 0) {
      r.ok("ucx", line + " (PEs on this host need no UCX)");
      continue;
    }
    const auto colon = line.find("): ");
    const std::string list = colon == std::string::npos ? "" : line.substr(colon + 3);
    bool network = false;
    std::stringstream ss(list);
    for (std::string dev; std::getline(ss, dev, ',');) {
      while (!dev.empty() && dev.front() == ' ') dev.erase(0, 1);
      const auto slash = dev.find('/');
      const std::string name = slash == std::string::npos ? dev : dev.substr(slash + 1);
      if (name != "lo" && name != "memory" && !dev.empty()) network = true;
    }
    if (network)
      r.ok("ucx", line + env);
    else
      r.warn("ucx", line + env + ": no network device, so PEs on other hosts cannot be reached",
             "check the network interfaces, UCX_TLS and UCX_NET_DEVICES (ucx_info -d lists what UCX sees)");
  }
}

void check_gpu(Report& r, const std::string& plugin_dir) {
  const std::string driver = read_first_line("/proc/driver/nvidia/version");
  if (driver.empty()) {
    r.ok("gpu", "no NVIDIA driver: CPU memory only (skipped)");
    return;
  }
  const int fd = ::open("/dev/nvidiactl", O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    r.fail("gpu", driver + "; /dev/nvidiactl: " + std::strerror(errno),
           "add the user to the group owning /dev/nvidia* (video), or pass the devices to the container");
    return;
  }
  ::close(fd);
  const bool plugin = ::access((plugin_dir + "/libshmem_cuda.so").c_str(), F_OK) == 0;
  r.ok("gpu", driver + (plugin ? "; CUDA plugin present" : "; no CUDA plugin in " + plugin_dir));
  const char* pipe_env = std::getenv("CUDA_MPS_PIPE_DIRECTORY");
  const std::string pipe_dir = pipe_env && *pipe_env ? pipe_env : "/tmp/nvidia-mps";
  struct stat st {};
  if (::stat((pipe_dir + "/control").c_str(), &st) == 0)
    r.ok("mps", "MPS control daemon running (" + pipe_dir + "): PEs sharing a GPU run concurrently");
  else
    r.ok("mps", "MPS not running (" + pipe_dir +
                    "): PEs sharing a GPU time-slice; start nvidia-cuda-mps-control -d "
                    "for concurrency");
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string f; std::getline(ss, f, ',');) {
    while (!f.empty() && f.front() == ' ') f.erase(0, 1);
    while (!f.empty() && f.back() == ' ') f.pop_back();
    if (!f.empty()) out.push_back(f);
  }
  return out;
}

std::string openssl_error() {
  char buf[256] = {};
  ERR_error_string_n(ERR_get_error(), buf, sizeof buf);
  ERR_clear_error();
  return buf;
}

// Certificate files of SHMEM_BOOTSTRAP_TLS_INFO: readable, the certificate valid now, the key
// its own, and the certificate verified by the CA. Returns false after reporting a failure.
bool check_certificates(Report& r, const bootstrap::TlsConfig& t) {
  const std::string fix = "fix the file named in SHMEM_BOOTSTRAP_TLS_INFO";
  std::vector<std::string> files = split_commas(t.ca_file);
  for (const auto& f : split_commas(t.crl_file)) files.push_back(f);
  if (!t.cert_file.empty()) files.push_back(t.cert_file);
  if (!t.key_file.empty()) files.push_back(t.key_file);
  for (const auto& f : files)
    if (::access(f.c_str(), R_OK) != 0) {
      r.fail("tls", f + ": " + std::strerror(errno), fix);
      return false;
    }
  for (const auto& d : {t.ca_path, t.crl_path})
    if (!d.empty() && ::access(d.c_str(), R_OK | X_OK) != 0) {
      r.fail("tls", d + ": " + std::strerror(errno), fix);
      return false;
    }
  if (t.cert_file.empty()) {
    r.fail("tls", "SHMEM_BOOTSTRAP_TLS_INFO names no tlsCert",
           "add tlsCert and tlsPk (or unset it: the per-job secret)");
    return false;
  }
  std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> ctx(SSL_CTX_new(TLS_method()), SSL_CTX_free);
  if (!t.key_password.empty())
    SSL_CTX_set_default_passwd_cb_userdata(ctx.get(), const_cast<char*>(t.key_password.c_str()));
  if (SSL_CTX_use_certificate_chain_file(ctx.get(), t.cert_file.c_str()) != 1) {
    r.fail("tls", "tlsCert " + t.cert_file + ": " + openssl_error(), fix);
    return false;
  }
  X509* cert = SSL_CTX_get0_certificate(ctx.get());
  if (X509_cmp_current_time(X509_get0_notAfter(cert)) < 0) {
    r.fail("tls", "tlsCert " + t.cert_file + " has expired", "issue a new certificate");
    return false;
  }
  if (X509_cmp_current_time(X509_get0_notBefore(cert)) > 0) {
    r.fail("tls", "tlsCert " + t.cert_file + " is not valid yet", "check the host's clock, or the certificate");
    return false;
  }
  const std::string key = t.key_file.empty() ? t.cert_file : t.key_file;
  if (SSL_CTX_use_PrivateKey_file(ctx.get(), key.c_str(), SSL_FILETYPE_PEM) != 1 ||
      SSL_CTX_check_private_key(ctx.get()) != 1) {
    r.fail("tls", "tlsPk " + key + " is not the key of " + t.cert_file + " (or tlsPkPwd is wrong): " + openssl_error(),
           fix);
    return false;
  }
  std::unique_ptr<X509_STORE, decltype(&X509_STORE_free)> store(X509_STORE_new(), X509_STORE_free);
  for (const auto& f : split_commas(t.ca_file))
    if (X509_STORE_load_locations(store.get(), f.c_str(), nullptr) != 1) {
      r.fail("tls", "tlsCaFile " + f + ": " + openssl_error(), fix);
      return false;
    }
  if (!t.ca_path.empty()) X509_STORE_load_locations(store.get(), nullptr, t.ca_path.c_str());
  std::unique_ptr<X509_STORE_CTX, decltype(&X509_STORE_CTX_free)> vctx(X509_STORE_CTX_new(), X509_STORE_CTX_free);
  X509_STORE_CTX_init(vctx.get(), store.get(), cert, nullptr);
  if (X509_verify_cert(vctx.get()) != 1) {
    r.fail("tls",
           "tlsCert " + t.cert_file +
               " is not verified by the CA: " + X509_verify_cert_error_string(X509_STORE_CTX_get_error(vctx.get())),
           "name the CA that issued it in tlsCaFile or tlsCaPath");
    return false;
  }
  return true;
}

void check_tls(Report& r, const Config& cfg) {
  const std::string version = OpenSSL_version(OPENSSL_VERSION);
  if (!cfg.bootstrap_tls) {
    r.warn("tls", version + "; SHMEM_BOOTSTRAP_TLS=0: the bootstrap store is plain TCP",
           "only on a trusted network; unset SHMEM_BOOTSTRAP_TLS for TLS 1.3");
    return;
  }
  if (cfg.bootstrap_tls_info.empty()) {
    r.ok("tls", version + "; TLS 1.3 with the per-job secret (no certificates set)");
    return;
  }
  bootstrap::TlsConfig t;
  try {
    t.apply_tls_info(cfg.bootstrap_tls_info);
  } catch (const std::exception& e) {
    r.fail("tls", e.what(), "fix SHMEM_BOOTSTRAP_TLS_INFO ('key: value;' with tlsCaFile, tlsCert, tlsPk, ...)");
    return;
  }
  if (check_certificates(r, t))
    r.ok("tls", version + "; certificate " + t.cert_file + " valid, its key matches, verified by the CA");
}

}  // namespace

int run_check(int argc, char** argv, const std::string& plugin_dir) {
  int pes = 1;
  for (int i = 0; i < argc; ++i) {
    const std::string_view a = argv[i];
    if ((a == "-n" || a == "-np") && i + 1 < argc) {
      char* end = nullptr;
      const long v = std::strtol(argv[++i], &end, 10);
      if (*end != '\0' || v < 1 || v > 1 << 20) {
        std::fprintf(stderr, "shmem-info --check: -n '%s' is not a number of PEs (1 or more)\n", argv[i]);
        return 2;
      }
      pes = static_cast<int>(v);
    } else {
      std::fprintf(stderr, "shmem-info --check: unknown argument '%s' (usage: shmem-info --check [-n PES_PER_HOST])\n",
                   argv[i]);
      return 2;
    }
  }
  Report r;
  std::printf("shmem-info --check: this host, for %d PE%s here\n", pes, pes == 1 ? "" : "s");
  Config cfg;
  try {
    cfg = Config::from_env();
  } catch (const std::exception& e) {
    r.fail("config", e.what(), "fix the variable (shmem-info lists every one with its kind)");
    return r.finish();
  }
  check_heap(r, cfg, pes);
  check_dev_shm(r);
  check_open_files(r, pes);
  check_ptrace(r);
  check_ucx(r, plugin_dir);
  check_gpu(r, plugin_dir);
  check_tls(r, cfg);
  return r.finish();
}

}  // namespace shmem::tools
