#pragma once
// Authentication of a hello on plain TCP (SHMEM_BOOTSTRAP_TLS=0): the job secret never crosses
// the network. The client first asks for a challenge (a fresh random nonce of this connection);
// its hello then carries HMAC-SHA256(secret, label | nonce | rank | world size), which the store
// recomputes. A recorded hello is worthless on another connection (another nonce), and a
// reader of the traffic learns nothing that lets it compute a proof.
#include <cstdint>
#include <string>
#include <string_view>

namespace shmem::bootstrap {

inline constexpr std::size_t kNonceBytes = 32;

std::string make_nonce();  // kNonceBytes random bytes; throws Error(kInternal) if none are available
std::string hello_proof(std::string_view secret, std::string_view nonce, std::int64_t rank, std::int64_t world);
// Constant-time comparison of a received proof with the expected one.
bool hello_proof_ok(std::string_view secret, std::string_view nonce, std::int64_t rank, std::int64_t world,
                    std::string_view proof);

}  // namespace shmem::bootstrap
