#pragma once
// A store connection that said its hello, taken out of a StoreClient (StoreClient::release) by
// a host agent's relay, which goes on speaking the store's frames on it (store_relay.hpp).
#include <chrono>
#include <string>

#include "bootstrap/tls_conn.hpp"
#include "util/parent_only_fd.hpp"

namespace shmem::bootstrap {

struct StoreLink {
  util::ParentOnlyFd fd;                  // a forked child gets /dev/null in its place
  Channel ch;                             // over fd, with or without TLS
  std::string where;                      // "host:port" of the store, for messages
  std::chrono::seconds host_timeout{60};  // SHMEM_HOST_TIMEOUT, the connection's keepalive
};

}  // namespace shmem::bootstrap
