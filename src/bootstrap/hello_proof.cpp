#include "bootstrap/hello_proof.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "base/error.hpp"

namespace shmem::bootstrap {
namespace {

void put_i64(std::string& s, std::int64_t v) {
  const auto u = static_cast<std::uint64_t>(v);
  for (int i = 0; i < 8; ++i) s.push_back(static_cast<char>((u >> (8 * i)) & 0xff));
}

}  // namespace

std::string make_nonce() {
  std::string n(kNonceBytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(n.data()), static_cast<int>(n.size())) != 1)
    throw Error(Errc::kInternal, "cannot draw a random challenge for the bootstrap store (RAND_bytes failed)");
  return n;
}

std::string hello_proof(std::string_view secret, std::string_view nonce, std::int64_t rank, std::int64_t world) {
  std::string msg = "shmem store hello v2";
  msg.append(nonce);
  put_i64(msg, rank);
  put_i64(msg, world);
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (!HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
            reinterpret_cast<const unsigned char*>(msg.data()), msg.size(), mac, &len))
    throw Error(Errc::kInternal, "cannot compute the hello's HMAC-SHA256");
  return std::string(reinterpret_cast<const char*>(mac), len);
}

bool hello_proof_ok(std::string_view secret, std::string_view nonce, std::int64_t rank, std::int64_t world,
                    std::string_view proof) {
  const std::string want = hello_proof(secret, nonce, rank, world);
  return proof.size() == want.size() && CRYPTO_memcmp(proof.data(), want.data(), want.size()) == 0;
}

}  // namespace shmem::bootstrap
