// A host agent's relay (store_relay.hpp) at the store: one authenticated connection carries
// the connections of the PEs its agent started, each as a channel (kMuxOpen/Data/Close, the
// channel in the header's id). A channel is a Conn without a socket: its own phase, hello,
// parked request and goodbye, handled exactly as a connection of its own; its bytes arrive in
// the parent's kMuxData frames and its replies leave in kMuxData frames on the parent. Losing
// the parent loses every channel on it, each with the parent's reason (the first loss fails
// the job; the others are its consequence).
#include <algorithm>
#include <string>
#include <vector>

#include "bootstrap/store_server_impl.hpp"
#include "base/log.hpp"

namespace shmem::bootstrap {

using namespace wire;
using server_detail::Clock;
using server_detail::Conn;
using server_detail::kMaxUnhandledInput;
using server_detail::Phase;
using server_detail::Violation;

namespace {

// Channels one relay may hold (one per PE of its host), and the most one reply frame carries.
constexpr std::size_t kMaxChannels = 1 << 16;
constexpr std::size_t kMuxChunk = 1 << 20;

std::uint16_t to_agent(Op op) { return static_cast<std::uint16_t>(static_cast<std::uint16_t>(op) | kReplyBit); }

}  // namespace

bool StoreServer::Impl::handle_mux(Conn& c, const Header& h, std::string_view payload) {
  const auto op = static_cast<Op>(h.op);
  if (c.parent) throw Violation{std::string(op_name(op)) + " inside a channel"};
  if (c.rank >= 0) throw Violation{std::string(op_name(op)) + " on PE " + std::to_string(c.rank) + "'s own connection"};
  const std::string id = std::to_string(h.id);
  auto it = c.channels.find(h.id);
  if (op == Op::kMuxOpen) {
    PayloadReader in(payload);
    const std::int64_t rank = in.i64();
    std::string host(in.bytes(kMaxKey, "host"));
    in.expect_end();
    // -1: an anonymous channel (a PE's job watcher, core/job_watcher.hpp); its hello says -1.
    if (rank < -1 || rank > 0x7fffffff)
      throw Violation{"channel " + id + " opened for invalid rank " + std::to_string(rank)};
    if (it != c.channels.end()) throw Violation{"channel " + id + " opened twice"};
    if (c.channels.size() >= kMaxChannels)
      throw Violation{"more than " + std::to_string(kMaxChannels) + " channels on one relay"};
    if (c.host.empty()) c.host = host;
    c.relay = true;
    auto ch = std::make_unique<Conn>();
    ch->parent = &c;
    ch->chan = h.id;
    ch->declared_rank = static_cast<int>(rank);
    ch->host = host;
    ch->peer = "host " + host + "'s relay (" + c.peer + ")";
    ch->source = c.source;
    ch->phase = Phase::kHello;
    ch->accepted = Clock::now();
    ch->handshake_deadline = Clock::time_point::max();  // the PE says hello when it gets there
    Conn* raw = ch.get();
    conns.emplace(next_channel_key--, std::move(ch));
    c.channels.emplace(h.id, raw);
    if (rank >= 0) ++channels_total;  // (not the PEs' job watchers)
    SHMEM_DEBUG_LOG("store", "channel %u of %s opened for PE %lld", h.id, raw->peer.c_str(),
                    static_cast<long long>(rank));
    return true;
  }
  if (it == c.channels.end()) {
    // Data for a channel that is not open here (never opened, or the store closed it and its
    // kMuxClose crossed the agent's frames): the agent hears that it is closed, with the reason.
    // A close of such a channel needs no answer.
    if (op == Op::kMuxData) {
      const std::string why = "channel " + id + " is not open at the store";
      SHMEM_DEBUG_LOG("store", "%s: %s sent %zu bytes for it", why.c_str(), c.peer.c_str(), payload.size());
      FrameWriter w;
      w.bytes(why);
      c.out += w.finish(to_agent(Op::kMuxClose), h.id);
    }
    return true;
  }
  Conn& ch = *it->second;
  if (op == Op::kMuxClose) {
    PayloadReader in(payload);
    std::string why(in.bytes(kMaxKey, "reason"));
    in.expect_end();
    ch.peer_closed = true;
    if (!why.empty()) ch.lost_why = std::move(why);
    if (!ch.in.empty())
      drop(ch, "truncated frame", "channel closed after " + std::to_string(ch.in.size()) + " bytes of a frame");
    else
      close_conn(ch, true);  // as a connection that closes: a loss unless it said goodbye or left
    return true;
  }
  if (op != Op::kMuxData) throw Violation{"unhandled channel op"};
  ch.in.append(payload);
  ch.heard = true;
  if (ch.parked && ch.in.size() > kMaxUnhandledInput) {
    drop(ch, "protocol violation", "sent " + std::to_string(ch.in.size()) + " bytes while a request was unanswered");
    return true;
  }
  handle_frames(ch);
  if (ch.phase != Phase::kClosing) flush(ch);  // into the parent's output, written after its frames
  return true;
}

void StoreServer::Impl::mux_flush(Conn& ch) {
  Conn& p = *ch.parent;
  if (p.phase != Phase::kClosing && ch.out_off < ch.out.size()) {
    std::string_view rest(ch.out.data() + ch.out_off, ch.out.size() - ch.out_off);
    while (!rest.empty()) {
      const std::size_t n = std::min(rest.size(), kMuxChunk);
      FrameWriter w;
      w.raw(rest.substr(0, n));
      p.out += w.finish(to_agent(Op::kMuxData), ch.chan);
      rest.remove_prefix(n);
    }
    if (!p.relay_dirty) {
      p.relay_dirty = true;
      dirty_relays.push_back(p.fd.get());
    }
  }
  ch.out.clear();
  ch.out_off = 0;
}

void StoreServer::Impl::mux_closed(Conn& ch) {
  Conn& p = *ch.parent;
  p.channels.erase(ch.chan);
  if (ch.peer_closed || p.phase == Phase::kClosing) return;
  mux_flush(ch);  // its last replies (a refusal) go first
  FrameWriter w;
  w.bytes(ch.lost_why);
  p.out += w.finish(to_agent(Op::kMuxClose), ch.chan);
  if (!p.relay_dirty) {
    p.relay_dirty = true;
    dirty_relays.push_back(p.fd.get());
  }
}

void StoreServer::Impl::close_channels(Conn& relay) {
  if (relay.channels.empty()) return;
  const std::string why = !relay.lost_why.empty()
                              ? relay.lost_why
                              : "the connection from host " + relay.host + "'s relay (" + relay.peer + ") closed";
  // In the order the relay opened them: a PE's relay (host_relay.hpp) opens its owner's first,
  // and the first loss is the one the job fails with; when that PE died, it is the one named.
  std::vector<std::pair<std::uint32_t, Conn*>> channels(relay.channels.begin(), relay.channels.end());
  relay.channels.clear();
  std::sort(channels.begin(), channels.end());
  for (auto& [id, ch] : channels) {
    ch->peer_closed = true;
    if (ch->lost_why.empty()) ch->lost_why = why;
    close_conn(*ch, true);
  }
}

void StoreServer::Impl::flush_relays() {
  auto keys = std::move(dirty_relays);
  dirty_relays.clear();
  for (int key : keys) {
    auto it = conns.find(key);
    if (it == conns.end()) continue;
    Conn& p = *it->second;
    p.relay_dirty = false;
    if (p.phase == Phase::kClosing) continue;
    flush(p);
    update_interest(p);
  }
}

}  // namespace shmem::bootstrap
