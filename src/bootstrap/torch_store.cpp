// TorchStore (torch_store.hpp): a TCPStore client for meeting under torchrun's agent store.
#include "torch_store.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <vector>

#include "base/error.hpp"
#include "util/socket.hpp"

namespace shmem::bootstrap {

namespace {
constexpr std::uint8_t kSet = 0, kGet = 2, kCheck = 4, kWait = 5;
constexpr std::uint8_t kStopWaiting = 0, kReady = 0, kNotReady = 1;

// The keys of a torchrun attempt (restarts get fresh ones).
std::string attempt_key(const char* what) {
  const char* attempt = std::getenv("TORCHELASTIC_RESTART_COUNT");
  return std::string("shmem/c/") + (attempt ? attempt : "0") + "/" + what;
}
}  // namespace

TorchStore::TorchStore(const std::string& host, std::uint16_t port, std::chrono::milliseconds timeout)
    : where_(host + ":" + std::to_string(port)) {
  std::string err;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {  // the agent's store is up before the workers start; retry a refused connect briefly
    fd_ = util::tcp_connect(host, port, std::chrono::milliseconds(2000), &err);
    if (fd_ || std::chrono::steady_clock::now() >= deadline) break;
  }
  if (!fd_)
    throw Error(Errc::kBootstrap, "init under torchrun: cannot reach torchrun's agent store at " + where_ +
                                      " (MASTER_ADDR/MASTER_PORT): " + err);
  util::set_io_timeouts(fd_.get(), timeout, timeout);
}

void TorchStore::send_bytes(const void* p, std::size_t n) {
  const util::IoResult r = util::send_all(fd_.get(), p, n);
  if (!r.ok())
    throw Error(Errc::kBootstrap, "init under torchrun: torchrun's store at " + where_ + ": " + r.describe());
}

void TorchStore::recv_bytes(void* p, std::size_t n) {
  const util::IoResult r = util::recv_all(fd_.get(), p, n);
  if (!r.ok())
    throw Error(Errc::kBootstrap, "init under torchrun: torchrun's store at " + where_ + ": " + r.describe() +
                                      " (SHMEM_BOOTSTRAP_TIMEOUT bounds the wait for rank 0)");
}

void TorchStore::send_string(const std::string& s) {
  const std::uint64_t n = s.size();
  send_bytes(&n, sizeof n);
  send_bytes(s.data(), s.size());
}

void TorchStore::set(const std::string& key, const std::string& value) {
  send_bytes(&kSet, 1);
  send_string("/" + key);
  send_string(value);
}

std::uint8_t TorchStore::ask_about(std::uint8_t query, const std::string& key, const char* what,
                                   std::initializer_list<std::uint8_t> expected) {
  send_bytes(&query, 1);
  const std::uint64_t one = 1;
  send_bytes(&one, sizeof one);
  send_string("/" + key);
  std::uint8_t answer = 0xff;
  recv_bytes(&answer, 1);
  if (std::find(expected.begin(), expected.end(), answer) == expected.end())
    throw Error(Errc::kBootstrap, "init under torchrun: torchrun's store at " + where_ + " answered a " + what +
                                      " with " + std::to_string(answer) + " (not PyTorch 1.13's TCPStore protocol?)");
  return answer;
}

std::string TorchStore::get(const std::string& key) {
  ask_about(kWait, key, "wait", {kStopWaiting});
  send_bytes(&kGet, 1);
  send_string("/" + key);
  std::uint64_t n = 0;
  recv_bytes(&n, sizeof n);
  if (n > (1u << 20))
    throw Error(Errc::kBootstrap,
                "init under torchrun: torchrun's store sent a value of " + std::to_string(n) + " bytes for " + key);
  std::string value(n, '\0');
  recv_bytes(value.data(), n);
  return value;
}

bool TorchStore::check(const std::string& key) {
  return ask_about(kCheck, key, "check", {kReady, kNotReady}) == kReady;
}

bool torch_agent_store(const LaunchSpec& l) {
  const char* agent = std::getenv("TORCHELASTIC_USE_AGENT_STORE");
  return std::strcmp(l.origin, "torchrun") == 0 && l.npes > 1 && agent != nullptr && std::strcmp(agent, "True") == 0;
}

std::string torch_store_uid(const LaunchSpec& l, double timeout_s, const std::function<std::string()>& make_uid) {
  const std::string key = attempt_key("uid");
  TorchStore store(l.store_host, l.store_port, std::chrono::milliseconds(static_cast<long long>(timeout_s * 1000)));
  if (l.pe == 0) {
    std::string uid;
    try {
      uid = make_uid();
    } catch (const std::exception& e) {
      store.set(key, std::string("!") + e.what());
      throw;
    }
    store.set(key, uid);
    return uid;
  }
  std::string uid = store.get(key);
  if (!uid.empty() && uid[0] == '!')
    throw Error(Errc::kBootstrap, "init under torchrun: rank 0 could not start the bootstrap store: " + uid.substr(1));
  if (const std::string ended = attempt_key("ended"); store.check(ended))
    throw Error(Errc::kBootstrap, "init under torchrun: the job ended before rank " + std::to_string(l.pe) +
                                      " arrived (torchrun's agent store says so): " + store.get(ended));
  return uid;
}

bool torch_store_tombstone(const LaunchSpec& l, const std::string& why, std::chrono::milliseconds timeout) {
  try {
    TorchStore store(l.store_host, l.store_port, timeout);
    const std::string key = attempt_key("ended");
    if (store.check(key)) return true;  // the first cause stays (a later one is mostly its echo)
    store.set(key, why);
    return store.check(key);  // answered after the set: the agent has it
  } catch (const std::exception&) {
    return false;  // the agent is gone too: nobody is left to arrive through it
  }
}

}  // namespace shmem::bootstrap
