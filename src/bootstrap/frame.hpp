#pragma once
// Wire format of the bootstrap store protocol.
//
// Every message is one frame: a fixed 16-byte header followed by `length` payload bytes.
//   offset 0  u32 magic    kMagic
//   offset 4  u16 version  kVersion
//   offset 6  u16 op       request op, or request op | kReplyBit in a reply
//   offset 8  u32 id       request id chosen by the client, echoed in the reply
//   offset 12 u32 length   payload bytes that follow (<= kMaxPayload)
// All integers are little-endian. A payload is a sequence of fields: integers are fixed
// 8-byte little-endian values, byte strings are a u32 length followed by the bytes.
// A reply payload starts with a u32 Status; on an error status the only field is a message.
// The limits are checked before anything is allocated, so a peer cannot make the other side
// reserve more than kMaxPayload bytes.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace shmem::bootstrap::wire {

inline constexpr std::uint32_t kMagic = 0x53534D53;  // "SMSS" on the wire
inline constexpr std::uint16_t kVersion = 2;         // 2: plain-TCP hellos prove the secret (hello_proof.hpp)
inline constexpr std::size_t kHeaderSize = 16;
inline constexpr std::size_t kMaxKey = 4096;
inline constexpr std::size_t kMaxValue = std::size_t{64} << 20;
// Room for one maximal value plus keys, integers and field lengths.
inline constexpr std::size_t kMaxPayload = kMaxValue + 4 * kMaxKey;
inline constexpr std::uint16_t kReplyBit = 0x8000;

enum class Op : std::uint16_t {
  // i64 rank, bytes proof (plain TCP only: hello_proof.hpp; empty under TLS), [i64 world size:
  // 0 = not said]
  kHello = 1,
  kSet = 2,
  kGet = 3,
  kTryGet = 4,
  kAdd = 5,
  kCompareAndSet = 6,
  kRemove = 7,
  kBarrier = 8,
  kWaitFailure = 9,
  kGlobalExit = 10,
  kGoodbye = 11,
  // A PE leaves without shmem_finalize (exit(n), or an implicit finalize that could not meet the
  // others): i64 exit status, bytes reason. The store fails with that reason and status.
  kLeave = 12,
  // Plain TCP, before hello: reply = bytes nonce, the challenge the hello's proof answers.
  kChallenge = 13,
  // A host agent's relay (store_relay.hpp): one authenticated connection carries its PEs'
  // connections as channels, named by the header's id. None of them has a reply of its own:
  // both sides send them as they come, the store with kReplyBit set.
  // Opens channel `id` for the PE the agent started as i64 rank (its hello must say that
  // rank), bytes host (for messages).
  kMuxOpen = 14,
  // The payload is the channel's next bytes: its own frames, cut anywhere.
  kMuxData = 15,
  // The channel ended: bytes reason (empty: the PE closed it). From the store: it closed the
  // channel after its last reply (a refused hello, a protocol violation), or it got kMuxData
  // for a channel that is not open there ("channel N is not open at the store").
  kMuxClose = 16,
};
bool is_known_op(std::uint16_t op) noexcept;
const char* op_name(Op op) noexcept;

enum class Status : std::uint32_t {
  kOk = 0,
  kNotFound = 1,    // try_get/remove of an absent key
  kTimeout = 2,     // get/barrier deadline passed
  kFailed = 3,      // the store is in the failed state; message = the reason
  kBadRequest = 4,  // e.g. add on a value that is not an integer
  kAuth = 5,        // wrong job secret in hello
  kShutdown = 6,    // the server is shutting down
};
bool is_known_status(std::uint32_t s) noexcept;

struct Header {
  std::uint16_t op = 0;
  std::uint32_t id = 0;
  std::uint32_t length = 0;
};

void encode_header(const Header& h, unsigned char out[kHeaderSize]) noexcept;
// Checks magic, version, op and length. Returns nullptr when the header is acceptable,
// otherwise a static description of what is wrong (`detail` receives specifics).
// `want_reply` selects whether a request op or a reply op is expected.
const char* decode_header(const unsigned char in[kHeaderSize], bool want_reply, Header* out,
                          std::string* detail);

// Thrown by PayloadReader on a malformed payload; the connection is then closed.
class FrameError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Builds a whole frame (header + payload) in one buffer so it goes out in one write.
class FrameWriter {
 public:
  FrameWriter();
  FrameWriter& u32(std::uint32_t v);
  FrameWriter& i64(std::int64_t v);
  FrameWriter& bytes(std::string_view s);
  FrameWriter& raw(std::string_view s);  // bytes without a length (kMuxData's payload)
  std::size_t payload_size() const noexcept { return buf_.size() - kHeaderSize; }
  // Fills in the header and hands out the frame.
  std::string finish(std::uint16_t op, std::uint32_t id);

 private:
  std::string buf_;
};

class PayloadReader {
 public:
  explicit PayloadReader(std::string_view payload) : rest_(payload) {}
  std::uint32_t u32();
  std::int64_t i64();
  // A byte string of at most `max` bytes; `what` names the field in the error.
  std::string_view bytes(std::size_t max, const char* what);
  // Throws if bytes remain (a peer speaking a different dialect).
  void expect_end() const;
  bool at_end() const noexcept { return rest_.empty(); }

 private:
  std::string_view rest_;
};

// Key text for messages: non-printable bytes escaped, long keys shortened.
std::string printable(std::string_view s, std::size_t max_len = 200);

}  // namespace shmem::bootstrap::wire
