#pragma once
// A client of torch.distributed's TCPStore (PyTorch 1.13's wire protocol), so that a C program
// started by torchrun meets through the store torchrun's agent already holds at
// MASTER_ADDR:MASTER_PORT (TORCHELASTIC_USE_AGENT_STORE=True) instead of listening there.
//
// Protocol (little-endian, as TCPStore speaks it): a request is one query byte (SET 0, GET 2,
// CHECK 4, WAIT 5) followed by strings, each a u64 length and its bytes; keys travel with
// TCPStore's "/" prefix. SET carries key and value and has no reply; CHECK and WAIT carry a u64
// count and the keys and are answered by one byte (CHECK: 0 when the keys exist, 1 when not;
// WAIT: 0 once they exist); GET is answered by a u64 length and the value.
#include <chrono>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>

#include "bootstrap/launch_env.hpp"
#include "util/parent_only_fd.hpp"

namespace shmem::bootstrap {

class TorchStore {
 public:
  // Connects within `timeout` (throws Error(kBootstrap) naming the address).
  TorchStore(const std::string& host, std::uint16_t port, std::chrono::milliseconds timeout);
  void set(const std::string& key, const std::string& value);
  // Waits (up to the timeout) until `key` exists, then returns its value.
  std::string get(const std::string& key);
  // Whether `key` exists now (no wait).
  bool check(const std::string& key);

 private:
  // Sends a one-key query and reads its one-byte answer, which must be one of `expected`
  // (otherwise throws, naming `what`).
  std::uint8_t ask_about(std::uint8_t query, const std::string& key, const char* what,
                         std::initializer_list<std::uint8_t> expected);
  void send_string(const std::string& s);
  void send_bytes(const void* p, std::size_t n);
  void recv_bytes(void* p, std::size_t n);
  std::string where_;
  util::ParentOnlyFd fd_;
};

// True when `l` is a torchrun launch whose MASTER_PORT is held by torchrun's agent store
// (TORCHELASTIC_USE_AGENT_STORE=True): the PEs then meet through that store
// (core/instances.cpp), rank 0 hosting the bootstrap store on a port of its own.
bool torch_agent_store(const LaunchSpec& l);

// The job's unique ID, met through the agent store at l.store_host:l.store_port: rank 0 calls
// `make_uid` (its bootstrap store on a port the kernel picks, with a fresh secret) and
// publishes the ID (or, when that throws, the reason, so that the others fail at once); the
// others wait up to `timeout_s` for it. The key is per torchrun attempt (restarts get a fresh one).
// A rank that finds the attempt's tombstone (torch_store_tombstone) fails at once with its cause:
// the job ended before it arrived.
std::string torch_store_uid(const LaunchSpec& l, double timeout_s, const std::function<std::string()>& make_uid);

// Leaves `why` (the job failed) in the agent store at l.store_host:l.store_port under the
// attempt's tombstone key (unless a cause is there already), so that a rank arriving later ends at once with the cause instead of
// waiting for a store that has gone. Best effort within `timeout` (the agent may be gone too);
// returns whether the store confirmed it.
bool torch_store_tombstone(const LaunchSpec& l, const std::string& why, std::chrono::milliseconds timeout);

}  // namespace shmem::bootstrap
