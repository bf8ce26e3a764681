// Authentication: TLS 1.3 with the job secret as PSK, plain TCP with the secret in hello,
// and mutual certificate authentication (CA, certificates and CRL generated per test suite).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "bootstrap_store_util.hpp"

namespace shmem::bootstrap {
namespace {

using namespace test;

TEST(StoreTlsPsk, HappyPath) {
  auto server = make_server(psk_tls());
  auto a = make_client(*server, psk_tls(), 0);
  auto b = make_client(*server, psk_tls(), 1);
  a->set("k", "secret data");
  EXPECT_EQ(b->get("k", 1s), "secret data");
  EXPECT_EQ(b->add("n", 2), 2);
  a->goodbye();
  b->goodbye();
}

TEST(StoreTlsPsk, WrongSecretRefusedWhileGoodClientKeepsWorking) {
  auto server = make_server(psk_tls());
  auto good = make_client(*server, psk_tls(), 0);
  good->set("before", "1");
  expect_error([&] { make_client(*server, psk_tls("not the job secret"), 1); }, Errc::kAuth, "SHMEM_JOB_SECRET");
  expect_error([&] { make_client(*server, psk_tls("not the job secret"), 1); }, Errc::kAuth, "TLS handshake");
  EXPECT_FALSE(server->rank_connected(1));
  good->set("after", "2");
  EXPECT_EQ(good->get("before", 1s), "1");
  EXPECT_EQ(good->get("after", 1s), "2");
}

TEST(StoreTlsPsk, MissingSecretRefused) {
  auto server = make_server(psk_tls());
  expect_error([&] { make_client(*server, psk_tls(""), 1); }, Errc::kAuth, "SHMEM_JOB_SECRET");
  expect_server_works(*server, psk_tls());
}

TEST(StoreTlsPsk, ServerNeedsASecretOrCertificate) {
  expect_error([] { make_server(psk_tls("")); }, Errc::kInvalidValue, "SHMEM_JOB_SECRET");
}

TEST(StoreTlsOff, HappyPath) {
  auto server = make_server(plain_tls());
  auto a = make_client(*server, plain_tls(), 0);
  a->set("k", "v");
  EXPECT_EQ(a->get("k", 1s), "v");
  EXPECT_TRUE(server->rank_connected(0));
  a->goodbye();
}

TEST(StoreTlsOff, WrongSecretHelloRefused) {
  auto server = make_server(plain_tls());
  auto good = make_client(*server, plain_tls(), 0);
  expect_error([&] { make_client(*server, plain_tls("wrong"), 1); }, Errc::kAuth, "SHMEM_JOB_SECRET");
  expect_error([&] { make_client(*server, plain_tls(""), 1); }, Errc::kAuth, "did not match");
  EXPECT_FALSE(server->rank_connected(1));
  good->set("still", "here");
  EXPECT_EQ(good->get("still", 1s), "here");
}

TEST(StoreTlsOff, ServerWithoutSecretAcceptsAnyHello) {
  auto server = make_server(plain_tls(""));
  auto c = make_client(*server, plain_tls("whatever"), 0);
  c->set("k", "v");
  EXPECT_EQ(c->get("k", 1s), "v");
}

TEST(StoreTlsMismatch, PlainClientToTlsServerRefused) {
  auto server = make_server(psk_tls());
  auto good = make_client(*server, psk_tls(), 0);
  expect_error([&] { make_client(*server, plain_tls(), 1); }, Errc::kAuth, "SHMEM_BOOTSTRAP_TLS");
  good->set("k", "v");
  EXPECT_EQ(good->get("k", 1s), "v");
}

TEST(StoreTlsMismatch, TlsClientToPlainServerRefused) {
  auto server = make_server(plain_tls());
  auto good = make_client(*server, plain_tls(), 0);
  expect_error([&] { make_client(*server, psk_tls(), 1); }, Errc::kAuth, "TLS handshake");
  good->set("k", "v");
  EXPECT_EQ(good->get("k", 1s), "v");
}

// ---- certificates --------------------------------------------------------------------------

class StoreTlsCert : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    const std::string d = dir_->path();
    auto run = [&](const std::string& cmd) {
      std::string full = "cd '" + d + "' && " + cmd + " >/dev/null 2>&1";
      if (std::system(full.c_str()) != 0) {
        ok_ = false;
        ADD_FAILURE() << "command failed: " << cmd;
      }
    };
    const std::string ec = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
    auto ca = [&](const std::string& n) { run("openssl req -x509 " + ec + " -keyout " + n + ".key -out " + n + ".pem -subj /CN=" + n + " -days 2"); };
    auto leaf = [&](const std::string& n, const std::string& ca) {
      run("openssl req " + ec + " -keyout " + n + ".key -out " + n + ".csr -subj /CN=" + n);
      run("openssl x509 -req -in " + n + ".csr -CA " + ca + ".pem -CAkey " + ca + ".key -CAcreateserial -out " + n +
          ".pem -days 2");
    };
    ok_ = true;
    ca("ca1");
    ca("ca2");
    leaf("server", "ca1");
    leaf("client", "ca1");
    leaf("revoked", "ca1");
    leaf("other", "ca2");
    run("openssl pkcs8 -topk8 -in client.key -out client_enc.key -passout pass:hunter2");
    // A CRL from ca1 revoking "revoked".
    std::ofstream(dir_->file("ca.cnf")) << "[ca]\ndefault_ca=d\n[d]\ndatabase=index.txt\ncrlnumber=crlnumber\n"
                                          "default_md=sha256\ndefault_crl_days=2\n";
    std::ofstream(dir_->file("index.txt")).flush();
    std::ofstream(dir_->file("crlnumber")) << "01\n";
    run("openssl ca -config ca.cnf -keyfile ca1.key -cert ca1.pem -revoke revoked.pem");
    run("openssl ca -config ca.cnf -keyfile ca1.key -cert ca1.pem -gencrl -out crl.pem");
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  void SetUp() override {
    if (!ok_) GTEST_SKIP() << "certificate generation with the openssl CLI failed";
  }

  static TlsConfig cert_tls(const std::string& name, const std::string& ca = "ca1") {
    TlsConfig t;
    t.enabled = true;
    t.apply_tls_info("tlsCaFile: " + dir_->file(ca + ".pem") + "; tlsCert: " + dir_->file(name + ".pem") +
                      "; tlsPk: " + dir_->file(name + ".key") + ";");
    return t;
  }

  static TempDir* dir_;
  static bool ok_;
};
TempDir* StoreTlsCert::dir_ = nullptr;
bool StoreTlsCert::ok_ = false;

TEST_F(StoreTlsCert, MutualAuthHappyPath) {
  auto server = make_server(cert_tls("server"));
  auto a = make_client(*server, cert_tls("client"), 0);
  auto b = make_client(*server, cert_tls("client"), 1);
  a->set("k", "over mutual TLS");
  EXPECT_EQ(b->get("k", 1s), "over mutual TLS");
  a->goodbye();
  b->goodbye();
}

TEST_F(StoreTlsCert, ClientCertFromAnotherCaRefused) {
  auto server = make_server(cert_tls("server"));
  auto good = make_client(*server, cert_tls("client"), 0);
  // "other" is signed by ca2; it trusts ca1, so it accepts the server, but not vice versa.
  expect_error([&] { make_client(*server, cert_tls("other", "ca1"), 1); }, Errc::kAuth, "certificates");
  EXPECT_FALSE(server->rank_connected(1));
  good->set("k", "v");
  EXPECT_EQ(good->get("k", 1s), "v");
}

TEST_F(StoreTlsCert, ServerFromAnotherCaRefusedByClient) {
  auto server = make_server(cert_tls("server"));
  // The client trusts only ca2, so the server's certificate fails its verification.
  expect_error([&] { make_client(*server, cert_tls("other", "ca2"), 1); }, Errc::kAuth, "certificate verify failed");
  expect_server_works(*server, cert_tls("client"));
}

TEST_F(StoreTlsCert, ClientWithoutCertificateRefused) {
  auto server = make_server(cert_tls("server"));
  expect_error([&] { make_client(*server, psk_tls(), 1); }, Errc::kAuth, "");
  expect_server_works(*server, cert_tls("client"));
}

TEST_F(StoreTlsCert, SeveralCaFilesAreAllLoaded) {
  TlsConfig server_tls = cert_tls("server");
  server_tls.apply_tls_info("tlsCaFile: " + dir_->file("ca2.pem") + ", " + dir_->file("ca1.pem"));
  auto server = make_server(server_tls);
  auto from_ca1 = make_client(*server, cert_tls("client", "ca1"), 0);
  auto from_ca2 = make_client(*server, cert_tls("other", "ca1"), 1);
  from_ca1->set("k", "1");
  EXPECT_EQ(from_ca2->get("k", 1s), "1");
}

TEST_F(StoreTlsCert, EncryptedInMemoryKeyTakesPrecedence) {
  auto server = make_server(cert_tls("server"));
  TlsConfig t = cert_tls("client");
  t.key_file = "/nonexistent/ignored.key";  // key_pem wins over key_file
  t.key_pem = read_file(dir_->file("client_enc.key"));
  t.key_password = "hunter2";
  auto c = make_client(*server, t, 0);
  c->set("k", "v");
  EXPECT_EQ(c->get("k", 1s), "v");
  t.key_password = "wrong";
  expect_error([&] { make_client(*server, t, 1); }, Errc::kInvalidValue, "private key");
}

TEST_F(StoreTlsCert, RevokedClientRefusedWithCrl) {
  TlsConfig server_tls = cert_tls("server");
  server_tls.apply_tls_info("tlsCrlFile: " + dir_->file("crl.pem"));
  auto server = make_server(server_tls);
  auto good = make_client(*server, cert_tls("client"), 0);
  expect_error([&] { make_client(*server, cert_tls("revoked"), 1); }, Errc::kAuth, "certificates");
  good->set("k", "v");
  EXPECT_EQ(good->get("k", 1s), "v");
}

TEST_F(StoreTlsCert, BadSettingsAreReportedUpFront) {
  TlsConfig t = cert_tls("server");
  t.cert_file = dir_->file("missing.pem");
  expect_error([&] { make_server(t); }, Errc::kInvalidValue, "missing.pem");
  t = cert_tls("server");
  t.key_file = dir_->file("client.key");  // does not match the certificate
  expect_error([&] { make_server(t); }, Errc::kInvalidValue, "does not match");
  t = cert_tls("server");
  t.ca_file.clear();
  expect_error([&] { make_server(t); }, Errc::kInvalidValue, "tlsCaFile");
  t = cert_tls("server");
  t.key_file.clear();
  expect_error([&] { make_server(t); }, Errc::kInvalidValue, "private key");
}

}  // namespace
}  // namespace shmem::bootstrap
