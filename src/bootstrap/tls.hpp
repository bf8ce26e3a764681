#pragma once
#include <string>
#include <string_view>

namespace shmem::bootstrap {

// How the store's connections are protected.
// - enabled && no certificate: TLS 1.3 with an external PSK derived from `secret`
//   (the per-job secret), so a process without it can neither join nor read.
// - enabled && cert_file set: TLS 1.3 with mutual certificate authentication against the CA
//   (and CRLs when given).
// - !enabled: plain TCP; the secret is still checked in the hello frame.
struct TlsConfig {
  bool enabled = true;
  std::string secret;  // raw bytes of the per-job secret
  std::string ca_file;
  std::string ca_path;
  std::string cert_file;
  std::string key_file;
  std::string key_pem;       // private key content (aclshmemx_set_config_store_tls_key)
  std::string key_password;
  std::string crl_file;
  std::string crl_path;

  bool uses_certificates() const { return !cert_file.empty(); }
  // Parses Ascend SHMEM's option string "tlsCaFile: /a/ca.pem; tlsCert: /a/c.pem; ..." into the
  // certificate fields. Keys: tlsCaPath, tlsCaFile, tlsCert, tlsPk, tlsPkPwd, tlsCrlPath,
  // tlsCrlFile (unknown keys are rejected, naming the key; tlsCaFile/tlsCrlFile may list
  // several comma-separated files, of which we load each). Throws Error(kInvalidValue).
  void apply_tls_info(std::string_view info);
};

}  // namespace shmem::bootstrap
