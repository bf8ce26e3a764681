#include "oshrun/agent_store_relay.hpp"

#include <cstdlib>
#include <optional>
#include <string_view>

#include "bootstrap/store.hpp"
#include "base/config.hpp"

namespace oshrun {
namespace {

std::optional<std::string> job_value(const std::vector<std::string>& env, std::string_view name) {
  for (const auto& e : env)
    if (e.size() > name.size() && e[name.size()] == '=' && std::string_view(e).starts_with(name))
      return e.substr(name.size() + 1);
  return std::nullopt;
}

}  // namespace

std::unique_ptr<shmem::bootstrap::StoreRelay> open_store_relay(const std::vector<std::string>& job_env,
                                                               const std::string& host) {
  const auto addr = job_value(job_env, "SHMEM_STORE_ADDR");
  if (!addr || addr->empty()) return nullptr;
  // The relay's keepalive is the PEs' (the agent's own environment is ssh's).
  if (auto t = job_value(job_env, "SHMEM_HOST_TIMEOUT")) ::setenv("SHMEM_HOST_TIMEOUT", t->c_str(), 1);
  shmem::bootstrap::StoreRelay::Options o;
  std::tie(o.store_host, o.store_port) = shmem::bootstrap::parse_host_port(*addr, "SHMEM_STORE_ADDR");
  const auto tls = job_value(job_env, "SHMEM_BOOTSTRAP_TLS");
  o.tls.enabled = shmem::parse_bool(tls && !tls->empty() ? *tls : "1", "SHMEM_BOOTSTRAP_TLS");
  if (auto info = job_value(job_env, "SHMEM_BOOTSTRAP_TLS_INFO"); info && !info->empty()) o.tls.apply_tls_info(*info);
  o.tls.secret = job_value(job_env, "SHMEM_JOB_SECRET").value_or("");
  const auto timeout = job_value(job_env, "SHMEM_BOOTSTRAP_TIMEOUT");
  const double secs = shmem::parse_seconds(timeout && !timeout->empty() ? *timeout : "120", "SHMEM_BOOTSTRAP_TIMEOUT");
  o.connect_timeout = shmem::bootstrap::Millis(static_cast<long long>(secs * 1000));
  o.host = host;
  auto relay = std::make_unique<shmem::bootstrap::StoreRelay>(o);
  for (char& c : o.tls.secret) c = '\0';
  return relay;
}

}  // namespace oshrun
