#pragma once
// Internal interface for initialisation with explicit attributes (Ascend SHMEM's
// aclshmemx_init_attr and friends) and for several runtimes ("instances") in one process.
// The plain shmem_init path (core::init) reads everything from the environment instead.
#include <cstddef>
#include <cstdint>
#include <string>

namespace shmem::core {

enum class BootstrapMode : int {
  kEnvironment,  // oshrun / torchrun-style variables / singleton (what shmem_init does)
  kTcp,          // store_url "tcp://host:port"; PE 0 hosts the store there
  kUniqueId,     // unique_id from uniqueid_create() on PE 0, broadcast by the application
  kMpi,          // an MPI communicator (mpi_comm points at it); needs the MPI plugin
};

struct InitSpec {
  BootstrapMode mode = BootstrapMode::kEnvironment;
  int pe = -1;                  // required for kTcp / kUniqueId
  int npes = -1;
  std::string store_url;        // kTcp
  const void* unique_id = nullptr;  // kUniqueId: kUniqueIdBytes bytes
  const void* mpi_comm = nullptr;   // kMpi: MPI_Comm* (nullptr = MPI_COMM_WORLD)
  std::uint64_t heap_size = 0;      // 0 = SHMEM_SYMMETRIC_SIZE
  double connect_timeout_s = 0;     // 0 = SHMEM_BOOTSTRAP_TIMEOUT
  double control_timeout_s = 0;     // 0 = SHMEM_BOOTSTRAP_TIMEOUT
  std::uint64_t instance_id = 0;    // 0 = the default instance
  int thread_level = 0;
};

// Opaque unique ID: PE 0's store address, a per-job secret and a random job id.
constexpr std::size_t kUniqueIdBytes = 124;
// On the PE that will be PE 0: starts the store (listening) and fills `out`. Throws Error.
void uniqueid_create(void* out);

// Store TLS settings for the next initialisation (Ascend SHMEM's aclshmemx_set_conf_store_tls):
// enable/disable and Ascend SHMEM's "key: value;" option string. Throws Error(kInvalidValue) for a
// bad string, Error(kInvalidArgument) after initialisation.
void set_store_tls(bool enable, const std::string& tls_info);
// Private key content (PEM) and its password for certificate mode; `decrypt` (optional) turns
// an encrypted password into plain text: returns 0 on success and sets plain_len.
using DecryptFn = int (*)(const char* cipher, std::size_t cipher_len, char* plain, std::size_t& plain_len);
void set_store_tls_key(const std::string& key_pem, const std::string& password, DecryptFn decrypt);

// Initialises the instance spec.instance_id (throws Error; a second init of a live instance
// with the same id is an Error(kInvalidArgument)). The new instance becomes current.
void init_with(const InitSpec& spec);
// Instance management: the current instance serves every API call.
std::uint64_t instance_current() noexcept;           // id of the current instance
int instance_set(std::uint64_t id) noexcept;         // 0, or nonzero if no such live instance
int instance_finalize(std::uint64_t id) noexcept;    // collective; 0, or nonzero if unknown
// In a child that a PE forked without exec: warns that `routine` is ignored there and returns
// true (the finalize entry points check it first: they must not wait for the PE's streams).
bool ignored_in_forked_child(const char* routine) noexcept;
// 0 = not initialised, 2 = initialised (aclshmem: ACLSHMEM_STATUS_NOT_INITIALIZED / IS_INITIALIZED).
int init_status() noexcept;

}  // namespace shmem::core
