#pragma once
// Puts to peers whose RMA UCX emulates in software (UCX 1.13's TCP transport), sent as UCP
// active messages with an acknowledgement of our own: small ones in batches, larger ones in
// pieces sent zero-copy (kAmPieceId). This header holds the wire format
// (no UCX types: tests/unit checks it); am_put.cpp sends and receives it.
//
// Why: over an emulated transport, ucp_put_nbx is already an active message that the target
// answers with a completion message, but quiet (ucp_worker_flush / ucp_ep_flush) then also
// flushes the TCP endpoint, which UCX 1.13 does with a second request and answer (a zero-byte
// put and its ack). A put+quiet thus cost two messages each way, and the target's CPU woke up
// twice. With our own put message the target copies the data, then answers with the number of
// puts from us it has applied (cumulative, so a late answer is never wrong); quiet waits until
// every peer has answered every put: one message each way.
//
// Puts to one peer are gathered into a batch (one message for many small puts: an iput of 256
// elements is one message, not 256). A put returns once its data is in the batch (the source
// may be reused: local completion); the batch goes out before any other operation to that
// peer, at fence and quiet, when it is full, and whenever the transport is driven (a wait, a
// blocking call, the progress thread), so a put never waits for more than the caller's next
// library call or, while the caller computes, the progress thread's next round.
//
// The target applies messages in the order they arrive on the endpoint's single lane (emulation
// runs every RMA and atomic through that lane's active messages), and the records of a batch in
// their order, so an AM put, a UCP get or atomic after it, and a fence keep their OpenSHMEM
// order.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace shmem::transport::ucx {

// Active message ids (ours; UCP's own protocols do not use the user id space).
inline constexpr unsigned kAmPutId = 0x5e01;
inline constexpr unsigned kAmAckId = 0x5e02;

// Puts up to this size go in batches; larger ones as pieces (kAmPieceId, below).
inline constexpr std::size_t kAmPutMax = 16384;

// Larger puts to such a peer go as pieces of up to kAmPieceMax bytes, each one active message
// (kAmPieceId, header AmPiece, the data as it is) sent zero-copy from the caller's buffer; the
// target copies each into its segment on arrival. ucp_put_nbx over the emulated lane copied
// every byte once more on the sender (into UCX's send buffer) and had the target answer each
// fragment. A piece is one TCP segment (the loader's 132 KiB, less headers), so that UCX
// neither fragments nor reassembles it; it travels on the same lane as the batches, in issue
// order, counts as one record for the acknowledgements, and completes at quiet like them.
inline constexpr unsigned kAmPieceId = 0x5e04;
inline constexpr std::size_t kAmPieceMax = std::size_t{128} << 10;
struct AmPiece {
  std::uint64_t off;  // offset within the target's segment
  std::uint32_t from;
  std::uint8_t seg;  // transport::Seg
  std::uint8_t pad[3];
};
static_assert(sizeof(AmPiece) == 16);

// A batch's records are puts (kRecordPut), non-fetching atomic adds (kRecordAdd: the
// library's own signals — barrier rounds, the collectives' leader channel, put_signal's and
// signal_add's adds — of a 4- or 8-byte addend, applied with a CPU atomic). An add closes the
// batch: it goes out at once, in the same message as the puts before it, so data and its
// signal cost one message, and is acknowledged with the puts (quiet needs no UCX flush); or
// records that ask for an answer (kRecordFetch, kRecordGet, below).
inline constexpr std::uint8_t kRecordPut = 0;
inline constexpr std::uint8_t kRecordAdd = 1;
// Records that ask for an answer: a fetching atomic in its nonblocking form (kRecordFetch:
// shmem_*_atomic_fetch_*_nbi, swap, compare_swap, fetch; its data is an AmFetchArgs) and a
// small nonblocking get (kRecordGet: shmem_getmem_nbi, each element of an iget; its data is an
// AmGetArgs). They do not close the batch, so a stream of them travels many to a message; the
// target applies them in order (fetches with amo_apply, the CPU atomics of node-local PEs) and
// answers each batch that held any with one AmAnswer: for each such record, in record order, an
// answer of answer_bytes() (the old value as 64 bits, or the bytes read, padded to 8), counted
// from `first` (the asks from that sender it had answered before the batch). The sender
// stores each answer where the call asked, and quiet waits for every answer.
inline constexpr std::uint8_t kRecordFetch = 2;
inline constexpr std::uint8_t kRecordGet = 3;
inline constexpr unsigned kAmAnswerId = 0x5e03;
struct AmFetchArgs {
  std::uint64_t value;
  std::uint64_t cond;
  std::uint32_t op;     // AmoOp, a fetching one (amo_fetches)
  std::uint32_t width;  // 4 or 8; the record's offset is a multiple of it
};
static_assert(sizeof(AmFetchArgs) == 24);
struct AmGetArgs {
  std::uint64_t bytes;  // read from the record's offset, at most kAmGetMax
};
// Nonblocking gets up to this size take the AM path (larger ones, and blocking gets, are UCP
// gets); one batch's answers are at most PutBatch::kMaxBytes.
inline constexpr std::size_t kAmGetMax = 16384;
struct AmAnswer {  // the header; the payload is the answers
  std::uint64_t first;
  std::uint32_t from;  // the PE that applied the records
  std::uint32_t count;
};
// Bytes of one answer in an AmAnswer's payload: a fetch's (8) or a get's of `bytes`.
constexpr std::size_t answer_bytes(bool get, std::size_t bytes) { return get ? (bytes + 7) / 8 * 8 : 8; }

// The active message's header: who sent the batch, how many records it holds, and whether the
// sender waits for the acknowledgement (its quiet: kAckNow). A target acknowledges what it
// applied at once when asked, and otherwise only every kLazyAckRecords records, so a stream
// of puts or broadcasts costs no answer per message; a quiet sends its peers' batches asking
// (an empty one when nothing is left to send but answers are), which costs one message each
// way as before.
inline constexpr std::uint32_t kAckNow = 1;
inline constexpr std::uint64_t kLazyAckRecords = 256;
struct AmBatchHeader {
  std::uint32_t from;
  std::uint32_t count;
  std::uint32_t flags;
  std::uint32_t pad;
};

// One put in a batch's payload, followed by `len` bytes of data padded to 8.
struct AmPutRecord {
  std::uint64_t off;  // offset within the target's segment
  std::uint32_t len;
  std::uint8_t seg;   // transport::Seg
  std::uint8_t kind;  // kRecordPut or kRecordAdd
  std::uint8_t pad[2];
};

struct AmAck {
  std::uint64_t applied;  // puts from the receiver of this ack applied so far
  std::uint32_t from;     // the PE that applied them
  std::uint32_t pad;
};

inline constexpr std::size_t am_record_bytes(std::size_t len) { return sizeof(AmPutRecord) + (len + 7) / 8 * 8; }

// The puts gathered for one peer.
class PutBatch {
 public:
  // A batch never grows past this (a put of kAmPutMax always fits in an empty one).
  static constexpr std::size_t kMaxBytes = 34816;  // two puts of kAmPutMax
  static_assert(am_record_bytes(kAmPutMax) <= kMaxBytes);

  bool empty() const noexcept { return count_ == 0; }
  std::uint32_t count() const noexcept { return count_; }
  const char* data() const noexcept { return buf_.data(); }
  std::size_t size() const noexcept { return buf_.size(); }
  // Whether a put of `len` bytes fits next to what is there; and whether a record asking for
  // an answer of `answer` bytes does (record and answer: one batch's answers stay within
  // kMaxBytes too).
  bool fits(std::size_t len) const noexcept { return buf_.size() + am_record_bytes(len) <= kMaxBytes; }
  bool fits_ask(std::size_t len, std::size_t answer) const noexcept {
    return fits(len) && answer_bytes_ + answer <= kMaxBytes;
  }
  // Counts an answer the batch's last record asks for.
  void asks(std::size_t answer) noexcept { answer_bytes_ += answer; }
  std::size_t answer_size() const noexcept { return answer_bytes_; }
  // Appends a put, or an add of the len-byte addend at src (the caller checked fits()).
  void add(std::uint8_t seg, std::uint64_t off, const void* src, std::size_t len, std::uint8_t kind = kRecordPut) {
    if (buf_.capacity() < kMaxBytes) buf_.reserve(kMaxBytes);
    const AmPutRecord rec{off, static_cast<std::uint32_t>(len), seg, kind, {}};
    const std::size_t at = buf_.size();
    buf_.resize(at + am_record_bytes(len));
    std::memcpy(buf_.data() + at, &rec, sizeof rec);
    if (len) std::memcpy(buf_.data() + at + sizeof rec, src, len);
    ++count_;
  }
  void clear() noexcept {
    buf_.clear();
    count_ = 0;
    answer_bytes_ = 0;
  }

 private:
  std::vector<char> buf_;
  std::uint32_t count_ = 0;
  std::size_t answer_bytes_ = 0;
};

// Calls apply(seg, off, data, len, kind) for each of the `count` records in a batch's payload,
// in order. Returns false (having applied the records before it) at the first record that
// does not fit in the payload, has an unknown kind, or that `valid(seg, off, len, kind)`
// rejects, or when the payload holds more or fewer records than `count`.
template <class Valid, class Apply>
bool for_each_put(const void* payload, std::size_t length, std::uint32_t count, Valid&& valid, Apply&& apply) {
  const char* p = static_cast<const char*>(payload);
  std::size_t pos = 0;
  for (std::uint32_t i = 0; i < count; ++i) {
    AmPutRecord rec{};
    if (length - pos < sizeof rec) return false;
    std::memcpy(&rec, p + pos, sizeof rec);
    const std::size_t step = am_record_bytes(rec.len);
    if (step > length - pos || rec.kind > kRecordGet || !valid(rec.seg, rec.off, rec.len, rec.kind)) return false;
    apply(rec.seg, rec.off, p + pos + sizeof rec, rec.len, rec.kind);
    pos += step;
  }
  return pos == length;
}

}  // namespace shmem::transport::ucx
