#include "oshrun/job.hpp"

#include <sys/random.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <string_view>

#include "base/config.hpp"
#include "base/error.hpp"

namespace oshrun {
namespace {

template <std::size_t N>
std::array<unsigned char, N> random_bytes() {
  std::array<unsigned char, N> buf{};
  std::size_t got = 0;
  while (got < N) {
    ssize_t r = ::getrandom(buf.data() + got, N - got, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0)
      throw shmem::Error(shmem::Errc::kInternal,
                         std::string("getrandom: ") + std::strerror(errno));
    got += static_cast<std::size_t>(r);
  }
  return buf;
}

template <std::size_t N>
std::string to_hex(const std::array<unsigned char, N>& bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  s.reserve(2 * N);
  for (unsigned char b : bytes) {
    s += kDigits[b >> 4];
    s += kDigits[b & 0xf];
  }
  return s;
}

// Variables oshrun sets for each PE; inherited values (a nested launch) are replaced.
constexpr std::string_view kJobVars[] = {"SHMEM_PE",     "SHMEM_NPES",       "SHMEM_STORE_ADDR",
                                         "SHMEM_JOB_ID", "SHMEM_JOB_SECRET", "SHMEM_STORE_FD"};

bool is_job_var(std::string_view entry) {
  for (auto v : kJobVars)
    if (entry.size() > v.size() && entry.starts_with(v) && entry[v.size()] == '=') return true;
  return false;
}

std::string_view name_of(std::string_view entry) { return entry.substr(0, entry.find('=')); }

}  // namespace

bool is_job_variable(std::string_view name) {
  for (auto v : kJobVars)
    if (name == v) return true;
  return false;
}

std::vector<std::string> agent_environment(char* const* base_env) {
  std::vector<std::string> env;
  for (char* const* e = base_env; e && *e; ++e)
    if (!is_job_var(*e)) env.emplace_back(*e);
  return env;
}

JobIdentity make_job_identity() {
  JobIdentity j;
  auto secret = random_bytes<32>();
  j.secret_hex = to_hex(secret);
  // Distinct across hosts, launches and pid reuse; short enough for log lines.
  j.id = "oshrun-" + std::to_string(::getpid()) + "-" + to_hex(random_bytes<6>());
  std::memset(secret.data(), 0, secret.size());
  return j;
}

shmem::bootstrap::TlsConfig store_tls_from_env(const std::string& secret_hex) {
  shmem::bootstrap::TlsConfig tls;
  tls.enabled = shmem::parse_bool(shmem::config_raw("SHMEM_BOOTSTRAP_TLS"), "SHMEM_BOOTSTRAP_TLS");
  std::string info = shmem::config_raw("SHMEM_BOOTSTRAP_TLS_INFO");
  if (!info.empty()) tls.apply_tls_info(info);
  tls.secret = secret_hex;
  return tls;
}

std::vector<std::string> pe_environment(char* const* base_env, int rank, int npes,
                                        const std::string& store_addr, const JobIdentity& job,
                                        const std::vector<std::string>& overrides) {
  std::vector<std::string> env;
  for (char* const* e = base_env; e && *e; ++e) {
    if (is_job_var(*e)) continue;
    bool overridden = false;
    for (const auto& o : overrides) overridden = overridden || name_of(o) == name_of(*e);
    if (!overridden) env.emplace_back(*e);
  }
  for (const auto& o : overrides) env.push_back(o);
  env.push_back("SHMEM_PE=" + std::to_string(rank));
  env.push_back("SHMEM_NPES=" + std::to_string(npes));
  env.push_back("SHMEM_STORE_ADDR=" + store_addr);
  env.push_back("SHMEM_JOB_ID=" + job.id);
  env.push_back("SHMEM_JOB_SECRET=" + job.secret_hex);
  return env;
}

}  // namespace oshrun
