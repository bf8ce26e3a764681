#pragma once
// Small puts to peers whose RMA UCX emulates in software (UCX 1.13's TCP transport), sent as
// UCP active messages with a per-put acknowledgement of our own.
//
// Why: over an emulated transport, ucp_put_nbx is already an active message that the target
// answers with a completion message, but quiet (ucp_worker_flush / ucp_ep_flush) then also
// flushes the TCP endpoint, which UCX 1.13 does with a second request and answer (a zero-byte
// put and its ack). A put+quiet thus cost two messages each way, and the target's CPU woke up
// twice. With our own put message the target copies the data, then answers at once with the
// number of puts from us it has applied (cumulative, so a late answer is never wrong); quiet
// waits until every peer has answered every put: one message each way.
//
// The target applies messages in the order they arrive on the endpoint's single lane (emulation
// runs every RMA and atomic through that lane's active messages), so an AM put, a UCP get or
// atomic after it, and a fence keep their OpenSHMEM order.
#include <cstddef>
#include <cstdint>

namespace shmem::transport::ucx {

// Active message ids (ours; UCP's own protocols do not use the user id space).
inline constexpr unsigned kAmPutId = 0x5e01;
inline constexpr unsigned kAmAckId = 0x5e02;
// Non-fetching atomic adds (the library's own signals: barrier rounds, the collectives' leader
// channel, signal_add) the same way: the data is the 4- or 8-byte addend, applied with a CPU
// atomic, acknowledged with the puts, so that quiet costs no flush after them either.
inline constexpr unsigned kAmAddId = 0x5e03;

// Puts up to this size take the AM path (one eager message); larger ones use ucp_put_nbx,
// whose completion message per fragment is small next to the data.
inline constexpr std::size_t kAmPutMax = 4096;

struct AmPutHeader {
  std::uint64_t off;   // offset within the target's segment
  std::uint32_t from;  // the sending PE
  std::uint8_t seg;    // transport::Seg
  std::uint8_t pad[3];
};

struct AmAck {
  std::uint64_t applied;  // puts from the receiver of this ack applied so far
  std::uint32_t from;     // the PE that applied them
  std::uint32_t pad;
};

}  // namespace shmem::transport::ucx
