// The wire format of the UCX transport's batched small puts (src/transport/ucx/am_put.hpp):
// what a batch holds (puts, adds and fetching atomics) comes back out in order, a full batch says so, and a payload that is cut
// short, holds a different number of records than its header says, or names memory the
// target rejects is refused (the records before the bad one are applied, none after it).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "transport/amo_op.hpp"
#include "transport/ucx/am_put.hpp"

using shmem::transport::ucx::am_record_bytes;
using shmem::transport::ucx::for_each_put;
using shmem::transport::ucx::kAmPutMax;
using shmem::transport::ucx::PutBatch;

namespace {

struct Put {
  std::size_t seg;
  std::uint64_t off;
  std::string data;
  std::uint8_t kind = shmem::transport::ucx::kRecordPut;
  bool operator==(const Put&) const = default;
};

bool decode(const void* payload, std::size_t length, std::uint32_t count, std::vector<Put>* out,
            std::uint64_t max_off = ~std::uint64_t{0}) {
  return for_each_put(
      payload, length, count,
      [&](std::size_t seg, std::uint64_t off, std::size_t len, std::uint8_t) { return seg <= 1 && off + len <= max_off; },
      [&](std::size_t seg, std::uint64_t off, const void* src, std::size_t len, std::uint8_t kind) {
        out->push_back({seg, off, std::string(static_cast<const char*>(src), len), kind});
      });
}

}  // namespace

TEST(UcxPutBatch, PutsComeBackInOrder) {
  PutBatch b;
  EXPECT_TRUE(b.empty());
  const std::vector<Put> puts = {{0, 64, "abcdefgh"}, {1, 8, "x"}, {0, 0, ""}, {0, 4096, std::string(13, 'q')}};
  for (const Put& p : puts) {
    ASSERT_TRUE(b.fits(p.data.size()));
    b.add(static_cast<std::uint8_t>(p.seg), p.off, p.data.data(), p.data.size());
  }
  EXPECT_EQ(b.count(), 4u);
  std::size_t want = 0;
  for (const Put& p : puts) want += am_record_bytes(p.data.size());
  EXPECT_EQ(b.size(), want);
  std::vector<Put> got;
  EXPECT_TRUE(decode(b.data(), b.size(), b.count(), &got));
  EXPECT_EQ(got, puts);
  b.clear();
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b.size(), 0u);
}

// An add record (a signal after its data) travels in the same batch, after the puts, with
// its kind and its addend.
TEST(UcxPutBatch, AddsFollowTheirPuts) {
  using shmem::transport::ucx::kRecordAdd;
  PutBatch b;
  const std::uint64_t addend = 0x0102030405060708ull;
  const std::uint32_t addend32 = 7;
  b.add(0, 128, "payload!", 8);
  b.add(0, 64, &addend, 8, kRecordAdd);
  b.add(1, 4, &addend32, 4, kRecordAdd);
  ASSERT_EQ(b.count(), 3u);
  std::vector<Put> got;
  ASSERT_TRUE(decode(b.data(), b.size(), b.count(), &got));
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0], (Put{0, 128, "payload!", shmem::transport::ucx::kRecordPut}));
  EXPECT_EQ(got[1], (Put{0, 64, std::string(reinterpret_cast<const char*>(&addend), 8), kRecordAdd}));
  EXPECT_EQ(got[2], (Put{1, 4, std::string(reinterpret_cast<const char*>(&addend32), 4), kRecordAdd}));
}

// Fetching atomics (kRecordFetch) travel among the puts, their arguments intact, in order, and
// do not end the batch.
TEST(UcxPutBatch, FetchesKeepTheirArgumentsAndOrder) {
  using shmem::transport::ucx::AmFetchArgs;
  using shmem::transport::ucx::kRecordFetch;
  PutBatch b;
  const AmFetchArgs inc{0, 0, static_cast<std::uint32_t>(shmem::AmoOp::kFetchInc), 8};
  const AmFetchArgs cas{0x1122334455667788ull, 42, static_cast<std::uint32_t>(shmem::AmoOp::kCompareSwap), 4};
  b.add(0, 0, "data", 4);
  b.add(0, 64, &inc, sizeof inc, kRecordFetch);
  b.add(1, 12, &cas, sizeof cas, kRecordFetch);
  b.add(0, 8, "more", 4);
  ASSERT_EQ(b.count(), 4u);
  std::vector<Put> got;
  ASSERT_TRUE(decode(b.data(), b.size(), b.count(), &got));
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[1], (Put{0, 64, std::string(reinterpret_cast<const char*>(&inc), sizeof inc), kRecordFetch}));
  EXPECT_EQ(got[2], (Put{1, 12, std::string(reinterpret_cast<const char*>(&cas), sizeof cas), kRecordFetch}));
  AmFetchArgs back{};
  std::memcpy(&back, got[2].data.data(), sizeof back);
  EXPECT_EQ(back.value, cas.value);
  EXPECT_EQ(back.cond, 42u);
  EXPECT_EQ(back.op, static_cast<std::uint32_t>(shmem::AmoOp::kCompareSwap));
  EXPECT_EQ(back.width, 4u);
  EXPECT_EQ(got[3].data, "more");
}

// Gets (kRecordGet) travel the same way; a batch counts the answers its asks will need and
// refuses an ask whose answer would take it past kMaxBytes.
TEST(UcxPutBatch, GetsCountTheirAnswers) {
  using shmem::transport::ucx::AmGetArgs;
  using shmem::transport::ucx::answer_bytes;
  using shmem::transport::ucx::kAmGetMax;
  using shmem::transport::ucx::kRecordGet;
  EXPECT_EQ(answer_bytes(false, 4), 8u);  // a fetch: 64 bits, whatever its width
  EXPECT_EQ(answer_bytes(true, 0), 0u);
  EXPECT_EQ(answer_bytes(true, 5), 8u);
  EXPECT_EQ(answer_bytes(true, 16), 16u);
  PutBatch b;
  const AmGetArgs small{5}, big{kAmGetMax};
  ASSERT_TRUE(b.fits_ask(sizeof small, answer_bytes(true, small.bytes)));
  b.add(0, 40, &small, sizeof small, kRecordGet);
  b.asks(answer_bytes(true, small.bytes));
  ASSERT_TRUE(b.fits_ask(sizeof big, answer_bytes(true, big.bytes)));
  b.add(1, 0, &big, sizeof big, kRecordGet);
  b.asks(answer_bytes(true, big.bytes));
  EXPECT_EQ(b.answer_size(), 8u + kAmGetMax);
  ASSERT_TRUE(b.fits_ask(sizeof big, answer_bytes(true, big.bytes)));  // 8 + 2 x 16 KiB <= 34 KiB
  b.add(1, 0, &big, sizeof big, kRecordGet);
  b.asks(answer_bytes(true, big.bytes));
  EXPECT_FALSE(b.fits_ask(sizeof big, answer_bytes(true, big.bytes)));  // a third would not
  EXPECT_TRUE(b.fits(8));                                                // though a put still does
  std::vector<Put> got;
  ASSERT_TRUE(decode(b.data(), b.size(), b.count(), &got));
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0], (Put{0, 40, std::string(reinterpret_cast<const char*>(&small), sizeof small), kRecordGet}));
  b.clear();
  EXPECT_EQ(b.answer_size(), 0u);
}

// amo_apply (transport/amo_op.hpp), which the target runs for each fetch: old values and results.
TEST(UcxPutBatch, AmoApplyReturnsTheOldValue) {
  std::uint64_t w = 10;
  EXPECT_EQ(shmem::amo_apply<std::uint64_t>(shmem::AmoOp::kFetchAdd, &w, 5, 0), 10u);
  EXPECT_EQ(w, 15u);
  EXPECT_EQ(shmem::amo_apply<std::uint64_t>(shmem::AmoOp::kCompareSwap, &w, 99, 14), 15u);  // no match
  EXPECT_EQ(w, 15u);
  EXPECT_EQ(shmem::amo_apply<std::uint64_t>(shmem::AmoOp::kCompareSwap, &w, 99, 15), 15u);
  EXPECT_EQ(w, 99u);
  std::uint32_t v = 0xf0;
  EXPECT_EQ(shmem::amo_apply<std::uint32_t>(shmem::AmoOp::kFetchXor, &v, 0xff, 0), 0xf0u);
  EXPECT_EQ(v, 0x0fu);
  EXPECT_EQ(shmem::amo_apply<std::uint32_t>(shmem::AmoOp::kSwap, &v, 7, 0), 0x0fu);
  EXPECT_EQ(shmem::amo_apply<std::uint32_t>(shmem::AmoOp::kFetch, &v, 0, 0), 7u);
  EXPECT_EQ(shmem::amo_apply<std::uint32_t>(shmem::AmoOp::kInc, &v, 0, 0), 0u);  // non-fetching: 0
  EXPECT_EQ(v, 8u);
}

TEST(UcxPutBatch, FullBatchSaysSo) {
  PutBatch b;
  const std::string big(kAmPutMax, 'z');
  EXPECT_TRUE(b.fits(kAmPutMax));  // the largest AM put always fits an empty batch
  int added = 0;
  while (b.fits(big.size())) {
    b.add(0, static_cast<std::uint64_t>(added) * kAmPutMax, big.data(), big.size());
    ++added;
  }
  EXPECT_GE(added, 2);
  EXPECT_LE(b.size(), PutBatch::kMaxBytes);
  EXPECT_FALSE(b.fits(big.size()));
  std::vector<Put> got;
  EXPECT_TRUE(decode(b.data(), b.size(), b.count(), &got));
  ASSERT_EQ(got.size(), static_cast<std::size_t>(added));
  EXPECT_EQ(got.back().off, static_cast<std::uint64_t>(added - 1) * kAmPutMax);
  EXPECT_EQ(got.back().data, big);
}

TEST(UcxPutBatch, MalformedPayloadsAreRefused) {
  PutBatch b;
  b.add(0, 0, "12345678", 8);
  b.add(0, 8, "abc", 3);
  std::vector<Put> got;
  // Cut short: inside the second record's data, and inside its header.
  EXPECT_FALSE(decode(b.data(), b.size() - 8, b.count(), &got));
  EXPECT_EQ(got.size(), 1u);
  got.clear();
  EXPECT_FALSE(decode(b.data(), am_record_bytes(8) + 4, b.count(), &got));
  EXPECT_EQ(got.size(), 1u);
  // More records than the header says, and fewer.
  got.clear();
  EXPECT_FALSE(decode(b.data(), b.size(), 1, &got));
  got.clear();
  EXPECT_FALSE(decode(b.data(), b.size(), 3, &got));
  EXPECT_EQ(got.size(), 2u);
  // A record the target rejects (outside its segment): stops there.
  got.clear();
  EXPECT_FALSE(decode(b.data(), b.size(), b.count(), &got, /*max_off=*/10));
  EXPECT_EQ(got.size(), 1u);
  // A length field larger than the payload.
  std::vector<char> bad(b.data(), b.data() + b.size());
  const std::uint32_t huge = 0xfffffff0u;
  std::memcpy(bad.data() + 8, &huge, sizeof huge);  // the first record's len
  got.clear();
  EXPECT_FALSE(decode(bad.data(), bad.size(), b.count(), &got));
  EXPECT_TRUE(got.empty());
  // An unknown record kind (the byte after seg): refused before it is applied.
  std::vector<char> odd(b.data(), b.data() + b.size());
  odd[am_record_bytes(8) + 13] = 9;  // the second record's kind
  got.clear();
  EXPECT_FALSE(decode(odd.data(), odd.size(), b.count(), &got));
  EXPECT_EQ(got.size(), 1u);
}
