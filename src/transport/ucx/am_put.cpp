// The UCX transport's own active messages to peers whose RMA UCX emulates (am_put.hpp says why
// and holds the wire format): the sender's batches of small puts and non-fetching adds, the
// target's handlers that apply them, the acknowledgements that let quiet complete them, and the
// records that ask for an answer (nonblocking fetching atomics and small gets) with their answers.
// Everything here runs with the transport's mutex held (the handlers from within
// ucp_worker_progress).
#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <new>
#include <string>

#include "transport/ucx/ucx_transport_impl.hpp"

namespace shmem::transport::ucx {

void UcxTransport::am_put(Peer& p, Seg seg, std::uint64_t off, const void* src, std::size_t bytes) noexcept {
  std::lock_guard<std::mutex> lk(mu_);
  issued();
  if (!p.batch.fits(bytes)) send_batch(p);
  if (p.batch.empty()) batched_.push_back(p.pe);
  p.batch.add(static_cast<std::uint8_t>(seg), off, src, bytes);
  p.am_owed = ++p.am_sent;
  touch(p);
}

void UcxTransport::am_add(Peer& p, Seg seg, std::uint64_t off, std::uint64_t value, std::size_t width,
                          bool owed) noexcept {
  const std::uint32_t value32 = static_cast<std::uint32_t>(value);
  std::lock_guard<std::mutex> lk(mu_);
  issued();
  if (!p.batch.fits(width)) send_batch(p);
  p.batch.add(static_cast<std::uint8_t>(seg), off, width == 8 ? static_cast<const void*>(&value) : &value32, width,
              kRecordAdd);
  ++p.am_sent;
  if (owed) {
    p.am_owed = p.am_sent;
    touch(p);
  }
  send_batch(p);  // with the puts before it, in one message
}

void UcxTransport::am_ask(Peer& p, Seg seg, std::uint64_t off, const void* args, std::size_t args_bytes,
                          std::uint8_t kind, void* to, std::size_t bytes) noexcept {
  const bool get = kind == kRecordGet;
  std::unique_lock<std::mutex> lk(mu_);
  issued();
  if (p.ask_sent - p.ask_done >= kMaxAsks) {  // bounded: wait for the older half's answers
    send_batch(p, true);
    const std::uint64_t enough = p.ask_sent - kMaxAsks / 2;
    drive_until(lk, [&] { return p.ask_done >= enough; });
  }
  if (!p.batch.fits_ask(args_bytes, answer_bytes(get, bytes))) send_batch(p);
  if (p.batch.empty()) batched_.push_back(p.pe);
  p.batch.add(static_cast<std::uint8_t>(seg), off, args, args_bytes, kind);
  p.batch.asks(answer_bytes(get, bytes));
  p.am_owed = ++p.am_sent;
  touch(p);
  p.ask_slots.push_back(Peer::AskSlot{to, static_cast<std::uint32_t>(bytes), get});
  ++p.ask_sent;
  touch(p);
}

void UcxTransport::am_fetch(Peer& p, Seg seg, std::uint64_t off, AmoOp op, std::size_t width, std::uint64_t value,
                            std::uint64_t cond, void* fetch_to) noexcept {
  const AmFetchArgs args{value, cond, static_cast<std::uint32_t>(op), static_cast<std::uint32_t>(width)};
  am_ask(p, seg, off, &args, sizeof args, kRecordFetch, fetch_to, width);
}

void UcxTransport::am_get(Peer& p, Seg seg, std::uint64_t off, void* dst, std::size_t bytes) noexcept {
  const AmGetArgs args{bytes};
  am_ask(p, seg, off, &args, sizeof args, kRecordGet, dst, bytes);
}

namespace {

// A batch on its way: UCX reads the header and the data until the send completes.
struct BatchInFlight {
  static constexpr const char* kWhat = "shmem_put";
  AmBatchHeader header;
  PutBatch batch;
  Peer* peer;
};

// Sends an active message whose header and data live in *m (a BatchInFlight or an AnswerOut,
// heap-allocated), and deletes m once UCX no longer reads it: at once when the send completed
// or failed immediately, else when it completes (a failure then is the peer's, reported as
// T::kWhat). Returns the immediate failure, or UCS_OK.
template <class T>
void owned_sent(void* request, ucs_status_t st, void* user) {
  auto* m = static_cast<T*>(user);
  if (st != UCS_OK && st != UCS_ERR_CANCELED) m->peer->owner->peer_failed(m->peer->pe, st, T::kWhat);
  delete m;
  ucp_request_free(request);
}
template <class T>
ucs_status_t send_owned(ucp_ep_h ep, unsigned id, T* m, const void* header, std::size_t header_bytes, const void* data,
                        std::size_t bytes, std::uint32_t flags) noexcept {
  ucp_request_param_t prm{};
  prm.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
  prm.cb.send = owned_sent<T>;
  prm.user_data = m;
  prm.flags = flags;
  ucs_status_ptr_t r = ucp_am_send_nbx(ep, id, header, header_bytes, data, bytes, &prm);
  if (r != nullptr && !UCS_PTR_IS_ERR(r)) return UCS_OK;  // the callback deletes m
  delete m;
  return UCS_PTR_STATUS(r);
}

// A piece of a large put on its way (am_put_large): UCX reads its header until the send
// completes, and the data from the caller's buffer; a blocking put counts its pieces not yet
// sent in *pending.
struct PieceInFlight {
  AmPiece header;
  Peer* peer;
  std::size_t* pending;
};
void piece_sent(void* request, ucs_status_t st, void* user) {
  auto* m = static_cast<PieceInFlight*>(user);
  if (st != UCS_OK && st != UCS_ERR_CANCELED) m->peer->owner->peer_failed(m->peer->pe, st, "shmem_put");
  if (m->pending) --*m->pending;
  delete m;
  ucp_request_free(request);
}

}  // namespace

void UcxTransport::am_put_large(Peer& p, Seg seg, std::uint64_t off, const void* src, std::size_t bytes,
                                bool nbi) noexcept {
  std::unique_lock<std::mutex> lk(mu_);
  issued();
  send_batch(p);  // the puts before it go first
  std::size_t pending = 0;
  const char* data = static_cast<const char*>(src);
  for (std::size_t at = 0; at < bytes; at += kAmPieceMax) {
    const std::size_t n = std::min(kAmPieceMax, bytes - at);
    auto* m = new (std::nothrow)
        PieceInFlight{{off + at, static_cast<std::uint32_t>(setup_.me), static_cast<std::uint8_t>(seg), {}},
                      &p,
                      nbi ? nullptr : &pending};
    if (!m) fail("shmem_put (no memory for a piece of a large put)", p.pe, UCS_ERR_NO_MEMORY);
    ucp_request_param_t prm{};
    prm.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
    prm.cb.send = piece_sent;
    prm.user_data = m;
    // REPLY: acknowledged on the endpoint it came by, as the batches (send_batch).
    prm.flags = UCP_AM_SEND_FLAG_EAGER | UCP_AM_SEND_FLAG_REPLY;
    ucs_status_ptr_t r = ucp_am_send_nbx(p.ep, kAmPieceId, &m->header, sizeof m->header, data + at, n, &prm);
    if (r == nullptr || UCS_PTR_IS_ERR(r)) delete m;  // done (or failed) at once: no callback
    if (UCS_PTR_IS_ERR(r)) {
      lk.unlock();
      fail("shmem_put", p.pe, UCS_PTR_STATUS(r));
    }
    if (r != nullptr && !nbi) ++pending;
    p.am_owed = ++p.am_sent;
  }
  touch(p);
  if (!nbi) drive_until(lk, [&] { return pending == 0; });  // local completion: UCX is done with src
}

template <class H>
H UcxTransport::incoming(const void* header, std::size_t header_length, bool well_formed, const char* what) noexcept {
  H h{};
  if (header_length != sizeof h || !well_formed)
    fail((std::string(what) + " (malformed message: a different build of the library?)").c_str(), -1,
         UCS_ERR_INVALID_PARAM);
  std::memcpy(&h, header, sizeof h);
  if (h.from >= peers_.size() || !setup_.remote[h.from])
    fail((std::string(what) + " (from no remote PE)").c_str(), -1, UCS_ERR_INVALID_PARAM);
  return h;
}

void UcxTransport::send_batch(Peer& p, bool ack_now) noexcept {
  if (p.batch.empty() && !ack_now) return;
  auto* b = new (std::nothrow)
      BatchInFlight{{static_cast<std::uint32_t>(setup_.me), p.batch.count(), ack_now ? kAckNow : 0u, 0}, {}, &p};
  if (!b) fail("shmem_put (no memory for a batch of puts)", p.pe, UCS_ERR_NO_MEMORY);
  std::swap(b->batch, p.batch);
  // REPLY: the target acknowledges on the endpoint the batch came by, which exists even
  // before the target has created its own endpoint to us (a put during init's barrier).
  const ucs_status_t st = send_owned(p.ep, kAmPutId, b, &b->header, sizeof b->header, b->batch.data(), b->batch.size(),
                                     UCP_AM_SEND_FLAG_EAGER | UCP_AM_SEND_FLAG_REPLY);
  if (st != UCS_OK) fail("shmem_put", p.pe, st);
}

void UcxTransport::send_batches() noexcept {
  while (!batched_.empty()) {
    const int pe = batched_.back();
    batched_.pop_back();
    send_batch(peers_[static_cast<std::size_t>(pe)]);
  }
}

void UcxTransport::applied_from(std::uint32_t from, std::uint64_t count, bool ack_now, ucp_ep_h reply_ep) noexcept {
  Peer& p = peers_[from];
  p.am_applied += count;
  p.ack_ep = reply_ep;
  if (!p.ack_due && (ack_now || p.am_applied - p.am_answered >= kLazyAckRecords)) {
    p.ack_due = true;
    ack_due_.push_back(static_cast<int>(from));
  }
}

// The target side of am_put: copy into our segments, then have the puts acknowledged.
ucs_status_t UcxTransport::on_am_put(void* arg, const void* header, size_t header_length, void* data, size_t length,
                                     const ucp_am_recv_param_t* param) {
  auto* t = static_cast<UcxTransport*>(arg);
  const auto h = t->incoming<AmBatchHeader>(header, header_length,
                                            !(param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) &&
                                                (param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP),
                                            "an incoming put");
  std::size_t bad_seg = 0, bad_len = 0;
  std::uint64_t bad_off = 0;
  Peer& from = t->peers_[h.from];
  std::unique_ptr<AnswerOut> reply;  // the answers to this batch's asks
  bool bad_fetch = false;
  auto answer = [&](const void* bytes, std::size_t n, std::size_t padded) {
    if (!reply) {
      reply = std::make_unique<AnswerOut>();
      reply->header = AmAnswer{from.ask_applied, static_cast<std::uint32_t>(t->setup_.me), 0};
      reply->peer = &from;
      reply->ep = param->reply_ep;
    }
    const std::size_t at = reply->payload.size();
    reply->payload.resize(at + padded);
    if (n) std::memcpy(reply->payload.data() + at, bytes, n);
    ++reply->header.count;
    ++from.ask_applied;
  };
  const bool ok = for_each_put(
      data, length, h.count,
      [&](std::size_t seg, std::uint64_t off, std::size_t len, std::uint8_t kind) {
        bad_seg = seg, bad_off = off, bad_len = len;
        if (kind == kRecordFetch)
          return seg <= 1 && len == sizeof(AmFetchArgs) && t->seg_size_[seg] >= 8 && off <= t->seg_size_[seg] - 8;
        if (kind == kRecordGet) return seg <= 1 && len == sizeof(AmGetArgs) && off <= t->seg_size_[seg];
        return seg <= 1 && off <= t->seg_size_[seg] && len <= t->seg_size_[seg] - off &&
               (kind == kRecordPut || ((len == 4 || len == 8) && off % len == 0));
      },
      [&](std::size_t seg, std::uint64_t off, const void* src, std::size_t len, std::uint8_t kind) {
        char* at = t->seg_base_[seg] + off;
        if (kind == kRecordGet) {
          if (bad_fetch) return;
          AmGetArgs g{};
          std::memcpy(&g, src, sizeof g);
          if (g.bytes > kAmGetMax || g.bytes > t->seg_size_[seg] - off) {
            bad_fetch = true;
            return;
          }
          answer(at, g.bytes, answer_bytes(true, g.bytes));
        } else if (kind == kRecordFetch) {
          if (bad_fetch) return;
          AmFetchArgs a{};
          std::memcpy(&a, src, sizeof a);
          const auto op = static_cast<AmoOp>(a.op);
          if (a.op > static_cast<std::uint32_t>(AmoOp::kXor) || !amo_fetches(op) || (a.width != 4 && a.width != 8) ||
              off % a.width != 0) {
            bad_fetch = true;
            return;
          }
          const std::uint64_t old =
              a.width == 8 ? amo_apply<std::uint64_t>(op, reinterpret_cast<std::uint64_t*>(at), a.value, a.cond)
                           : amo_apply<std::uint32_t>(op, reinterpret_cast<std::uint32_t*>(at),
                                                      static_cast<std::uint32_t>(a.value),
                                                      static_cast<std::uint32_t>(a.cond));
          answer(&old, sizeof old, sizeof old);
        } else if (kind == kRecordPut) {
          std::memcpy(at, src, len);
        } else if (len == 8) {
          std::uint64_t v = 0;
          std::memcpy(&v, src, 8);
          std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t*>(at)).fetch_add(v);
        } else {
          std::uint32_t v = 0;
          std::memcpy(&v, src, 4);
          std::atomic_ref<std::uint32_t>(*reinterpret_cast<std::uint32_t*>(at)).fetch_add(v);
        }
      });
  if (!ok || bad_fetch) {
    const std::string what = "an incoming put from PE " + std::to_string(h.from) + " (" + std::to_string(bad_len) +
                             " bytes at offset " + std::to_string(bad_off) + " of segment " + std::to_string(bad_seg) +
                             ": outside this PE's segments, a misaligned atomic, or a malformed batch)";
    t->fail(what.c_str(), -1, UCS_ERR_INVALID_PARAM);
  }
  if (reply) t->answers_.push_back(std::move(reply));
  t->applied_from(h.from, h.count, (h.flags & kAckNow) != 0, param->reply_ep);
  return UCS_OK;
}

// The target side of am_put_large: one piece, copied into our segment.
ucs_status_t UcxTransport::on_am_piece(void* arg, const void* header, size_t header_length, void* data, size_t length,
                                       const ucp_am_recv_param_t* param) {
  auto* t = static_cast<UcxTransport*>(arg);
  const auto h = t->incoming<AmPiece>(
      header, header_length,
      !(param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) && (param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP),
      "an incoming put");
  if (h.seg > 1 || h.off > t->seg_size_[h.seg] || length > t->seg_size_[h.seg] - h.off) {
    const std::string what = "an incoming put from PE " + std::to_string(h.from) + " (" + std::to_string(length) +
                             " bytes at offset " + std::to_string(h.off) + " of segment " + std::to_string(h.seg) +
                             ": outside this PE's segments)";
    t->fail(what.c_str(), -1, UCS_ERR_INVALID_PARAM);
  }
  if (length) std::memcpy(t->seg_base_[h.seg] + h.off, data, length);
  t->applied_from(h.from, 1, false, param->reply_ep);
  return UCS_OK;
}

void UcxTransport::send_answers() noexcept {
  for (auto& out : answers_) {
    AnswerOut* r = out.release();
    const int pe = r->peer->pe;
    const ucs_status_t st = send_owned(r->ep, kAmAnswerId, r, &r->header, sizeof r->header, r->payload.data(),
                                       r->payload.size(), UCP_AM_SEND_FLAG_EAGER);
    if (st != UCS_OK) peer_failed(pe, st, AnswerOut::kWhat);
  }
  answers_.clear();
}

// The sender's side of an answer: the asks' answers, in the order they were issued.
ucs_status_t UcxTransport::on_am_answer(void* arg, const void* header, size_t header_length, void* data,
                                        size_t length, const ucp_am_recv_param_t* param) {
  auto* t = static_cast<UcxTransport*>(arg);
  const auto h = t->incoming<AmAnswer>(header, header_length, !(param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV),
                                       "an incoming answer to gets or atomics");
  Peer& p = t->peers_[h.from];
  std::size_t want = 0;
  if (h.first == p.ask_done && h.count <= p.ask_slots.size())
    for (std::uint32_t i = 0; i < h.count; ++i) want += answer_bytes(p.ask_slots[i].get, p.ask_slots[i].bytes);
  if (h.first != p.ask_done || h.count > p.ask_slots.size() || length != want)
    t->fail("an incoming answer to gets or atomics (not the one expected next)", static_cast<int>(h.from),
            UCS_ERR_INVALID_PARAM);
  const char* v = static_cast<const char*>(data);
  for (std::uint32_t i = 0; i < h.count; ++i) {
    const Peer::AskSlot slot = p.ask_slots.front();
    p.ask_slots.pop_front();
    if (slot.get) {
      if (slot.bytes) std::memcpy(slot.to, v, slot.bytes);
    } else if (slot.to) {  // (none for a set: its old value is dropped)
      std::uint64_t old = 0;
      std::memcpy(&old, v, sizeof old);
      if (slot.bytes == 8) {
        std::memcpy(slot.to, &old, 8);
      } else {
        const auto old32 = static_cast<std::uint32_t>(old);
        std::memcpy(slot.to, &old32, 4);
      }
    }
    v += answer_bytes(slot.get, slot.bytes);
  }
  p.ask_done += h.count;
  return UCS_OK;
}

void UcxTransport::send_acks() noexcept {
  for (const int pe : ack_due_) {
    Peer& p = peers_[static_cast<std::size_t>(pe)];
    p.ack_due = false;
    p.ack_out = AmAck{p.am_applied, static_cast<std::uint32_t>(setup_.me), 0};
    p.am_answered = p.am_applied;
    ucp_request_param_t prm{};
    nbi_param(prm, p);
    prm.op_attr_mask |= UCP_OP_ATTR_FIELD_FLAGS;
    prm.flags = UCP_AM_SEND_FLAG_EAGER;
    ucs_status_ptr_t r = ucp_am_send_nbx(p.ack_ep, kAmAckId, &p.ack_out, sizeof p.ack_out, nullptr, 0, &prm);
    if (UCS_PTR_IS_ERR(r)) peer_failed(pe, UCS_PTR_STATUS(r), "acknowledging puts");
  }
  ack_due_.clear();
}

// The sender's side: the target has applied this many of our puts and adds.
ucs_status_t UcxTransport::on_am_ack(void* arg, const void* header, size_t header_length, void*, size_t,
                                     const ucp_am_recv_param_t*) {
  auto* t = static_cast<UcxTransport*>(arg);
  const auto a = t->incoming<AmAck>(header, header_length, true, "an incoming put acknowledgement");
  Peer& p = t->peers_[a.from];
  if (a.applied > p.am_acked) p.am_acked = a.applied;
  return UCS_OK;
}

}  // namespace shmem::transport::ucx
