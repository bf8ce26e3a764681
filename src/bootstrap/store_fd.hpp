#pragma once
// SHMEM_STORE_FD: a PE started by a host agent reaches the store through the agent's relay
// (store_relay.hpp), on one end of a socketpair the agent left open across exec.
#include "util/unique_fd.hpp"

namespace shmem::bootstrap {

// Takes the descriptor SHMEM_STORE_FD names, once per process: the first call owns it (and
// marks it close-on-exec, so that the PE's own children do not hold it); later calls, and a
// process without the variable, get an empty one (a later init connects to SHMEM_STORE_ADDR).
// Throws Error(kInvalidValue) naming the variable when it is not a number or not a stream
// socket.
util::UniqueFd take_store_fd();

}  // namespace shmem::bootstrap
