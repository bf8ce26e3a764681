#include "bootstrap/frame.hpp"

#include <cstdio>
#include <cstring>

namespace shmem::bootstrap::wire {
namespace {

void put_le(unsigned char* p, std::uint64_t v, int n) noexcept {
  for (int i = 0; i < n; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}

std::uint64_t get_le(const unsigned char* p, int n) noexcept {
  std::uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= static_cast<std::uint64_t>(p[i]) << (8 * i);
  return v;
}

}  // namespace

bool is_known_op(std::uint16_t op) noexcept {
  return op >= static_cast<std::uint16_t>(Op::kHello) && op <= static_cast<std::uint16_t>(Op::kMuxClose);
}

const char* op_name(Op op) noexcept {
  switch (op) {
    case Op::kHello: return "hello";
    case Op::kSet: return "set";
    case Op::kGet: return "get";
    case Op::kTryGet: return "try_get";
    case Op::kAdd: return "add";
    case Op::kCompareAndSet: return "compare_and_set";
    case Op::kRemove: return "remove";
    case Op::kBarrier: return "barrier";
    case Op::kWaitFailure: return "wait_failure";
    case Op::kGlobalExit: return "global_exit";
    case Op::kGoodbye: return "goodbye";
    case Op::kLeave: return "leave";
    case Op::kChallenge: return "challenge";
    case Op::kMuxOpen: return "channel open";
    case Op::kMuxData: return "channel data";
    case Op::kMuxClose: return "channel close";
  }
  return "?";
}

bool is_known_status(std::uint32_t s) noexcept { return s <= static_cast<std::uint32_t>(Status::kShutdown); }

void encode_header(const Header& h, unsigned char out[kHeaderSize]) noexcept {
  put_le(out, kMagic, 4);
  put_le(out + 4, kVersion, 2);
  put_le(out + 6, h.op, 2);
  put_le(out + 8, h.id, 4);
  put_le(out + 12, h.length, 4);
}

const char* decode_header(const unsigned char in[kHeaderSize], bool want_reply, Header* out,
                          std::string* detail) {
  char buf[128];
  auto magic = static_cast<std::uint32_t>(get_le(in, 4));
  if (magic != kMagic) {
    std::snprintf(buf, sizeof buf, "0x%08x", magic);
    if (detail) *detail = buf;
    return "bad magic";
  }
  auto version = static_cast<std::uint16_t>(get_le(in + 4, 2));
  if (version != kVersion) {
    std::snprintf(buf, sizeof buf, "peer speaks version %u, this build speaks %u", version, kVersion);
    if (detail) *detail = buf;
    return "unsupported protocol version";
  }
  auto op = static_cast<std::uint16_t>(get_le(in + 6, 2));
  bool is_reply = (op & kReplyBit) != 0;
  if (is_reply != want_reply || !is_known_op(static_cast<std::uint16_t>(op & ~kReplyBit))) {
    std::snprintf(buf, sizeof buf, "op 0x%04x", op);
    if (detail) *detail = buf;
    return "unknown op";
  }
  auto length = static_cast<std::uint32_t>(get_le(in + 12, 4));
  if (length > kMaxPayload) {
    std::snprintf(buf, sizeof buf, "%u bytes, limit %zu", length, kMaxPayload);
    if (detail) *detail = buf;
    return "frame too large";
  }
  out->op = op;
  out->id = static_cast<std::uint32_t>(get_le(in + 8, 4));
  out->length = length;
  return nullptr;
}

FrameWriter::FrameWriter() { buf_.resize(kHeaderSize); }

FrameWriter& FrameWriter::u32(std::uint32_t v) {
  unsigned char b[4];
  put_le(b, v, 4);
  buf_.append(reinterpret_cast<const char*>(b), 4);
  return *this;
}

FrameWriter& FrameWriter::i64(std::int64_t v) {
  unsigned char b[8];
  put_le(b, static_cast<std::uint64_t>(v), 8);
  buf_.append(reinterpret_cast<const char*>(b), 8);
  return *this;
}

FrameWriter& FrameWriter::bytes(std::string_view s) {
  u32(static_cast<std::uint32_t>(s.size()));
  buf_.append(s);
  return *this;
}

FrameWriter& FrameWriter::raw(std::string_view s) {
  buf_.append(s);
  return *this;
}

std::string FrameWriter::finish(std::uint16_t op, std::uint32_t id) {
  Header h;
  h.op = op;
  h.id = id;
  h.length = static_cast<std::uint32_t>(payload_size());
  encode_header(h, reinterpret_cast<unsigned char*>(buf_.data()));
  return std::move(buf_);
}

std::uint32_t PayloadReader::u32() {
  if (rest_.size() < 4) throw FrameError("truncated payload (expected a 32-bit field)");
  auto v = static_cast<std::uint32_t>(get_le(reinterpret_cast<const unsigned char*>(rest_.data()), 4));
  rest_.remove_prefix(4);
  return v;
}

std::int64_t PayloadReader::i64() {
  if (rest_.size() < 8) throw FrameError("truncated payload (expected a 64-bit field)");
  auto v = static_cast<std::int64_t>(get_le(reinterpret_cast<const unsigned char*>(rest_.data()), 8));
  rest_.remove_prefix(8);
  return v;
}

std::string_view PayloadReader::bytes(std::size_t max, const char* what) {
  std::uint32_t n = u32();
  if (n > max)
    throw FrameError(std::string(what) + " of " + std::to_string(n) + " bytes exceeds the limit of " +
                     std::to_string(max));
  if (rest_.size() < n) throw FrameError(std::string("truncated payload in ") + what);
  std::string_view s = rest_.substr(0, n);
  rest_.remove_prefix(n);
  return s;
}

void PayloadReader::expect_end() const {
  if (!rest_.empty())
    throw FrameError(std::to_string(rest_.size()) + " unexpected trailing bytes in payload");
}

std::string printable(std::string_view s, std::size_t max_len) {
  std::string out;
  out.reserve(s.size() < max_len ? s.size() : max_len);
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (out.size() >= max_len) {
      out += "...";
      break;
    }
    auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", c);
      out += b;
    }
  }
  return out;
}

}  // namespace shmem::bootstrap::wire
