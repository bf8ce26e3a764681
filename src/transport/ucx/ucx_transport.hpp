#pragma once
// The UCX backend: one UCP context and worker per Runtime, an endpoint and the rkeys of the
// heap and static-data segments per remote PE it talks to, made on first use from the blob
// that PE published at set-up.
#include <memory>
#include <string>

#include "transport/transport.hpp"

namespace shmem::transport::ucx {

// Throws std::runtime_error naming the UCX call and status on failure.
std::unique_ptr<RemoteTransport> create(const Setup& setup);
std::string library_version();
// The network resources a UCP context finds on this host ("tcp/eth0, tcp/lo, ..."), honouring
// UCX_TLS and UCX_NET_DEVICES; throws std::runtime_error when UCX cannot start.
std::string probe();

}  // namespace shmem::transport::ucx
