// Wire format, address parsing and Ascend SHMEM's TLS info string.
#include <gtest/gtest.h>

#include "bootstrap/frame.hpp"
#include "bootstrap/store.hpp"
#include "bootstrap/tls.hpp"
#include "bootstrap_store_util.hpp"

namespace shmem::bootstrap {
namespace {

using namespace wire;
using test::expect_error;
using test::header_bytes;

TEST(StoreFrame, HeaderRoundTrip) {
  FrameWriter w;
  w.u32(7).i64(-42).bytes("key").bytes(std::string_view("\0v", 2));
  std::string frame = w.finish(static_cast<std::uint16_t>(Op::kSet), 99);
  ASSERT_EQ(frame.size(), kHeaderSize + 4 + 8 + (4 + 3) + (4 + 2));
  Header h;
  ASSERT_EQ(decode_header(reinterpret_cast<const unsigned char*>(frame.data()), false, &h, nullptr), nullptr);
  EXPECT_EQ(h.op, static_cast<std::uint16_t>(Op::kSet));
  EXPECT_EQ(h.id, 99u);
  EXPECT_EQ(h.length, frame.size() - kHeaderSize);
  PayloadReader in(std::string_view(frame).substr(kHeaderSize));
  EXPECT_EQ(in.u32(), 7u);
  EXPECT_EQ(in.i64(), -42);
  EXPECT_EQ(in.bytes(kMaxKey, "key"), "key");
  EXPECT_EQ(in.bytes(kMaxValue, "value"), std::string_view("\0v", 2));
  EXPECT_NO_THROW(in.expect_end());
}

TEST(StoreFrame, DecodeRejectsBadHeaders) {
  auto check = [](const std::string& hdr, bool want_reply, const char* expected) {
    Header h;
    std::string detail;
    const char* bad = decode_header(reinterpret_cast<const unsigned char*>(hdr.data()), want_reply, &h, &detail);
    ASSERT_NE(bad, nullptr);
    EXPECT_STREQ(bad, expected);
  };
  check(header_bytes(0xdeadbeef, kVersion, 2, 1, 0), false, "bad magic");
  check(header_bytes(kMagic, kVersion + 1, 2, 1, 0), false, "unsupported protocol version");
  check(header_bytes(kMagic, kVersion, 0, 1, 0), false, "unknown op");
  check(header_bytes(kMagic, kVersion, 200, 1, 0), false, "unknown op");
  check(header_bytes(kMagic, kVersion, 2 | kReplyBit, 1, 0), false, "unknown op");  // a reply sent as request
  check(header_bytes(kMagic, kVersion, 2, 1, 0), true, "unknown op");               // a request sent as reply
  check(header_bytes(kMagic, kVersion, 2, 1, 0xffffffffu), false, "frame too large");
  check(header_bytes(kMagic, kVersion, 2, 1, static_cast<std::uint32_t>(kMaxPayload + 1)), false, "frame too large");
  Header h;
  std::string ok = header_bytes(kMagic, kVersion, 2, 1, static_cast<std::uint32_t>(kMaxPayload));
  EXPECT_EQ(decode_header(reinterpret_cast<const unsigned char*>(ok.data()), false, &h, nullptr), nullptr);
}

TEST(StoreFrame, ReaderRejectsTruncatedAndOversizedFields) {
  FrameWriter w;
  w.bytes(std::string(kMaxKey + 1, 'k'));
  std::string frame = w.finish(2, 1);
  PayloadReader over(std::string_view(frame).substr(kHeaderSize));
  EXPECT_THROW(over.bytes(kMaxKey, "key"), FrameError);

  std::string claims_more = header_bytes(0, 0, 0, 0, 0).substr(0, 4);  // u32 length 0 ...
  claims_more[0] = 10;                                                  // ... now 10, with no bytes after
  PayloadReader trunc(claims_more);
  EXPECT_THROW(trunc.bytes(kMaxKey, "key"), FrameError);

  PayloadReader short_int(std::string_view("abc"));
  EXPECT_THROW(short_int.i64(), FrameError);

  PayloadReader trailing(std::string_view("abcdef"));
  EXPECT_EQ(trailing.u32(), 0x64636261u);
  EXPECT_THROW(trailing.expect_end(), FrameError);
}

TEST(StoreFrame, PrintableEscapesAndShortens) {
  EXPECT_EQ(printable("ab\ncd"), "ab\\x0acd");
  EXPECT_EQ(printable(std::string(300, 'x'), 10), std::string(10, 'x') + "...");
}

TEST(StoreParseHostPort, AcceptsHostPortForms) {
  EXPECT_EQ(parse_host_port("127.0.0.1:5555", "SHMEM_STORE_ADDR"), std::make_pair(std::string("127.0.0.1"), std::uint16_t{5555}));
  EXPECT_EQ(parse_host_port("node-1.example:80", "x"), std::make_pair(std::string("node-1.example"), std::uint16_t{80}));
  EXPECT_EQ(parse_host_port("[::1]:65535", "x"), std::make_pair(std::string("::1"), std::uint16_t{65535}));
}

TEST(StoreParseHostPort, RejectsBadInputNamingTheSetting) {
  for (const char* bad : {"", "127.0.0.1", "127.0.0.1:", ":5555", "host:0", "host:65536", "host:12x", "host:-1",
                          "::1:5555", "[::1]5555", "[::1:5555", "ho st:1"}) {
    SCOPED_TRACE(bad);
    expect_error([&] { parse_host_port(bad, "SHMEM_STORE_ADDR"); }, Errc::kInvalidValue, "SHMEM_STORE_ADDR");
  }
}

TEST(StoreTlsInfo, ParsesAllKeys) {
  TlsConfig t;
  t.apply_tls_info(
      "  tlsCaPath: /ca/dir ; tlsCaFile: /a/ca1.pem, /a/ca2.pem ,; tlsCert:/a/c.pem;tlsPk: /a/c.key;"
      " tlsPkPwd: pw:with:colons ; tlsCrlPath: /crl ; tlsCrlFile: /a/r1.pem,/a/r2.pem; packagePath: /opt/x;");
  EXPECT_EQ(t.ca_path, "/ca/dir");
  EXPECT_EQ(t.ca_file, "/a/ca1.pem,/a/ca2.pem");
  EXPECT_EQ(t.cert_file, "/a/c.pem");
  EXPECT_EQ(t.key_file, "/a/c.key");
  EXPECT_EQ(t.key_password, "pw:with:colons");
  EXPECT_EQ(t.crl_path, "/crl");
  EXPECT_EQ(t.crl_file, "/a/r1.pem,/a/r2.pem");
  EXPECT_TRUE(t.uses_certificates());
  EXPECT_TRUE(t.enabled);
}

TEST(StoreTlsInfo, EmptyStringChangesNothing) {
  TlsConfig t;
  t.apply_tls_info("  ;; ");
  EXPECT_FALSE(t.uses_certificates());
  EXPECT_TRUE(t.ca_file.empty());
}

TEST(StoreTlsInfo, RejectsUnknownKeyNamingIt) {
  TlsConfig t;
  expect_error([&] { t.apply_tls_info("tlsCert: /a; tlsBogus: 1;"); }, Errc::kInvalidValue, "tlsBogus");
  EXPECT_TRUE(t.cert_file.empty()) << "a rejected string must leave the config untouched";
  expect_error([&] { t.apply_tls_info("tlsCert /a"); }, Errc::kInvalidValue, "tlsCert /a");
}

TEST(StoreTlsInfo, RejectsOverlongString) {
  TlsConfig t;
  std::string info = "tlsCert: " + std::string(10 * 1024, 'a') + ";";
  expect_error([&] { t.apply_tls_info(info); }, Errc::kInvalidValue, "limit");
  std::string fits = "tlsCert: " + std::string(10 * 1024 - 10, 'a') + ";";
  EXPECT_NO_THROW(t.apply_tls_info(fits));
}

}  // namespace
}  // namespace shmem::bootstrap
