// Request handling of the store server, run on the event loop with the store lock taken as
// needed. A request that must wait is parked on its connection (try_unpark answers it).

#include <charconv>
#include <string>
#include <system_error>

#include "bootstrap/hello_proof.hpp"
#include "bootstrap/store_server_impl.hpp"
#include "base/log.hpp"

namespace shmem::bootstrap {

using namespace wire;
using server_detail::Conn;
using server_detail::Parked;
using server_detail::Phase;
using server_detail::Violation;

namespace {

// Parses a counter value; absent keys count as 0.
bool parse_i64(std::string_view s, std::int64_t* out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

std::string ms_text(std::int64_t ms) { return std::to_string(ms) + " ms"; }

server_detail::Clock::time_point deadline_after(std::int64_t timeout_ms) {
  const bool bounded = timeout_ms >= 0 && timeout_ms < (std::int64_t{1} << 40);
  return bounded ? server_detail::Clock::now() + Millis(timeout_ms) : server_detail::Clock::time_point::max();
}

}  // namespace

void StoreServer::Impl::reply(Conn& c, std::uint16_t op, std::uint32_t id, FrameWriter& w) {
  c.out += w.finish(static_cast<std::uint16_t>(op | kReplyBit), id);
}

void StoreServer::Impl::reply_error(Conn& c, std::uint16_t op, std::uint32_t id, Status st, const std::string& msg) {
  FrameWriter w;
  w.u32(static_cast<std::uint32_t>(st)).bytes(msg.size() > kMaxKey * 4 ? msg.substr(0, kMaxKey * 4) : msg);
  reply(c, op, id, w);
}

std::string StoreServer::Impl::kv_refusal(const std::string& key, std::size_t len) const {
  auto it = kv.find(key);
  const std::size_t old = it == kv.end() ? 0 : key.size() + it->second.size();
  const std::size_t after = kv_bytes - old + key.size() + len;
  if (after <= kv_max_bytes || after <= kv_bytes) return {};
  return "the bootstrap store is full: it holds " + std::to_string(kv_bytes) + " bytes, and " + std::to_string(len) +
         " more for key '" + printable(key) + "' would pass SHMEM_STORE_MAX_SIZE (" + std::to_string(kv_max_bytes) +
         " bytes)";
}

void StoreServer::Impl::kv_assign(const std::string& key, std::string_view value) {
  auto [it, fresh] = kv.try_emplace(key);
  kv_bytes -= fresh ? 0 : key.size() + it->second.size();
  it->second.assign(value);
  kv_bytes += key.size() + value.size();
}

bool StoreServer::Impl::kv_erase(const std::string& key) {
  auto it = kv.find(key);
  if (it == kv.end()) return false;
  kv_bytes -= key.size() + it->second.size();
  kv.erase(it);
  return true;
}

bool StoreServer::Impl::handle_challenge(Conn& c, const Header& h, PayloadReader& in) {
  in.expect_end();
  if (tls) throw Violation{"challenge on a TLS connection"};
  if (c.said_hello || !c.nonce.empty()) throw Violation{"second challenge on one connection"};
  c.nonce = make_nonce();
  FrameWriter out;
  out.u32(static_cast<std::uint32_t>(Status::kOk)).bytes(c.nonce);
  reply(c, h.op, h.id, out);
  return true;
}

bool StoreServer::Impl::handle_hello(Conn& c, const Header& h, PayloadReader& in) {
  if (c.said_hello) throw Violation{"second hello on one connection"};
  std::int64_t rank = in.i64();
  std::string_view proof = in.bytes(kMaxKey, "proof");
  std::int64_t world = in.at_end() ? 0 : in.i64();
  in.expect_end();
  const std::int64_t world_sent = world;
  if (rank < -1 || rank > 0x7fffffff) throw Violation{"hello with invalid rank " + std::to_string(rank)};
  // kClaimProbe: a process that also claims `rank` found the store's port taken (by us, whose
  // host claims that rank too): the job is misconfigured whichever hello came first.
  const bool claim_probe = world == kClaimProbe;
  if (claim_probe) world = 0;
  if (world < 0 || world > 0x7fffffff) throw Violation{"hello with invalid world size " + std::to_string(world)};
  if (c.trusted() && rank != c.declared_rank) {
    // The agent that opened the channel (or the launcher that handed over the socketpair)
    // started the PE of declared_rank on it.
    const std::string why = "hello as rank " + std::to_string(rank) + " on the " +
                            (c.parent ? "channel that " + c.peer + " opened" : "socketpair the launcher made") +
                            " for PE " + std::to_string(c.declared_rank);
    SHMEM_WARN("store", "refused a hello: %s", why.c_str());
    reply_error(c, h.op, h.id, Status::kBadRequest, why + " (SHMEM_PE differs from the rank the agent started)");
    return false;
  }
  // A channel was authenticated with its relay's connection, an adopted socketpair by its owner.
  if (!tls && !c.trusted() && !opts.tls.secret.empty() &&
      (c.nonce.empty() || !hello_proof_ok(opts.tls.secret, c.nonce, rank, world_sent, proof))) {
    const char* what = c.nonce.empty() ? "hello without a challenge (a client of another shmem version?)"
                                       : "wrong job secret in hello";
    warnings.warn(c.source, what, false,
                  "authentication failed from " + c.peer + ": " + what + " (rank " + std::to_string(rank) + ")");
    auth_failed(c.peer, static_cast<int>(rank), "secret");
    reply_error(c, h.op, h.id, Status::kAuth,
                c.nonce.empty() ? "a hello on plain TCP must answer a challenge first (shmem versions differ?)"
                                : "the job secret did not match the store's");
    return false;
  }
  if (rank >= 0) {
    const int r = static_cast<int>(rank), w = static_cast<int>(world);
    std::string refusal;
    bool fail_job = true;
    {
      std::lock_guard<std::mutex> g(mu);
      if (w > 0 && job_size == 0) {
        job_size = w;
        job_size_from = r;
      }
      if (w > 0 && w != job_size) {
        refusal = "WORLD_SIZE differs between ranks: rank " + std::to_string(job_size_from) + " has " +
                  std::to_string(job_size) + ", rank " + std::to_string(r) + " has " + std::to_string(w);
      } else if (job_size > 0 && r >= job_size) {
        refusal = "RANK " + std::to_string(r) + " is outside the job: WORLD_SIZE is " + std::to_string(job_size) +
                  " (ranks 0.." + std::to_string(job_size - 1) + ")";
      } else if (claim_probe) {
        fail_job = !gathered();
        refusal = "RANK " + std::to_string(r) + " claimed twice: " + c.peer + " also claims rank " + std::to_string(r) +
                  " and found this store's port taken";
      } else if (live.count(r)) {
        // While the job gathers this is a misconfiguration; later, an impersonation attempt
        // (or a stray process) that must not be able to end the job in the rank's name.
        fail_job = !gathered();
        refusal = "RANK " + std::to_string(r) + " claimed twice: " + c.peer + " said hello as rank " +
                  std::to_string(r) + " while that rank is connected";
      } else {
        connected.insert(r);
        live.insert(r);
        c.live = true;
      }
      // A rank that failed authentication before anyone said the job's size is inside it.
      for (const auto& [claimed, why] : auth_claims)
        if (refusal.empty() && job_size > 0 && claimed < job_size && !live.count(claimed)) {
          refusal = why;
          fail_job = true;
        }
      if (job_size > 0) auth_claims.clear();
      if (!refusal.empty() && c.live) {
        live.erase(r);
        c.live = false;
      }
    }
    if (!refusal.empty()) {
      if (fail_job)
        enter_failed(refusal);
      else
        SHMEM_WARN("store", "refused a hello from %s: %s", c.peer.c_str(), refusal.c_str());
      reply_error(c, h.op, h.id, Status::kBadRequest, refusal);
      return false;
    }
  }
  note_pending_end(c);
  c.phase = Phase::kReady;
  c.said_hello = true;
  c.rank = static_cast<int>(rank);
  SHMEM_DEBUG_LOG("store", "hello from %s as rank %d", c.peer.c_str(), c.rank);
  FrameWriter out;
  out.u32(static_cast<std::uint32_t>(Status::kOk));
  reply(c, h.op, h.id, out);
  return true;
}

bool StoreServer::Impl::try_unpark(Conn& c, Clock::time_point now) {
  if (!c.parked) return false;
  const Parked& p = *c.parked;
  const auto op = static_cast<std::uint16_t>(p.op);
  FrameWriter out;
  std::unique_lock<std::mutex> lk(mu);
  if (stopping) {
    lk.unlock();
    reply_error(c, op, p.id, Status::kShutdown, "the bootstrap store is shutting down");
  } else if (failed && p.op == Op::kWaitFailure) {
    out.u32(static_cast<std::uint32_t>(Status::kOk)).bytes(fail_reason).i64(fail_status);
    lk.unlock();
    reply(c, op, p.id, out);
  } else if (failed) {
    std::string why = fail_reason;
    lk.unlock();
    reply_error(c, op, p.id, Status::kFailed, why);
  } else if (p.op == Op::kWaitFailure) {
    return false;
  } else if (auto it = kv.find(p.key); it != kv.end()) {
    out.u32(static_cast<std::uint32_t>(Status::kOk));
    if (p.op == Op::kGet) out.bytes(it->second);
    lk.unlock();
    reply(c, op, p.id, out);
  } else if (now >= p.deadline) {
    std::string msg;
    if (p.op == Op::kGet) {
      msg = "timed out after " + ms_text(p.timeout_ms) + " waiting for store key '" + printable(p.key) + "'";
    } else {
      std::int64_t seen = 0;
      auto cnt = kv.find(p.name + "/count");
      if (cnt != kv.end()) parse_i64(cnt->second, &seen);
      msg = "barrier '" + printable(p.name) + "' timed out after " + ms_text(p.timeout_ms) + ": " +
            std::to_string(seen) + " of " + std::to_string(p.nranks) + " PEs arrived";
    }
    lk.unlock();
    reply_error(c, op, p.id, Status::kTimeout, msg);
  } else {
    return false;
  }
  c.parked.reset();
  return true;
}

bool StoreServer::Impl::handle(Conn& c, const Header& h, std::string_view payload) {
  auto op = static_cast<Op>(h.op);
  PayloadReader in(payload);
  FrameWriter out;
  if (op == Op::kHello) return handle_hello(c, h, in);
  if (op == Op::kChallenge) return handle_challenge(c, h, in);
  if (!c.said_hello) throw Violation{std::string("expected hello first, got ") + op_name(op)};
  if (op == Op::kMuxOpen || op == Op::kMuxData || op == Op::kMuxClose) return handle_mux(c, h, payload);
  auto ok = [&] {
    out.u32(static_cast<std::uint32_t>(Status::kOk));
    reply(c, h.op, h.id, out);
    return true;
  };
  auto park = [&](Parked p) {
    p.op = op;
    p.id = h.id;
    p.deadline = deadline_after(p.timeout_ms);
    c.parked = std::move(p);
    try_unpark(c, Clock::now());
    return true;
  };

  switch (op) {
    case Op::kGoodbye: {
      in.expect_end();
      c.said_goodbye = true;
      {
        std::lock_guard<std::mutex> g(mu);
        if (c.rank >= 0) finalized.insert(c.rank);
      }
      cv.notify_all();
      return ok();
    }
    case Op::kGlobalExit: {
      std::int64_t status = in.i64();
      in.expect_end();
      int st = static_cast<int>(status);
      SHMEM_INFO_LOG("store", "PE %d requested a global exit with status %d", c.rank, st);
      if (opts.on_global_exit) {
        try {
          opts.on_global_exit(c.rank, st);
        } catch (...) {
          SHMEM_ERROR("store", "on_global_exit callback threw");
        }
      }
      enter_failed("PE " + std::to_string(c.rank) + " called shmem_global_exit(" + std::to_string(st) + ")", st);
      return ok();
    }
    case Op::kLeave: {
      std::int64_t status = in.i64();
      std::string reason(in.bytes(kMaxKey, "reason"));
      in.expect_end();
      if (c.rank < 0) throw Violation{"leave from an anonymous connection"};
      // The reason is the PE's own words, but the PE it names is the one that authenticated.
      const std::string self = "PE " + std::to_string(c.rank) + " ";
      if (!reason.starts_with(self)) reason.insert(0, self + "left: ");
      c.left = true;
      depart(c.rank, reason, static_cast<int>(status & 0xff));
      return ok();
    }
    case Op::kWaitFailure: {
      in.expect_end();
      return park(Parked{});
    }
    default: break;
  }

  std::unique_lock<std::mutex> lk(mu);
  if (failed) {
    std::string why = fail_reason;
    lk.unlock();
    reply_error(c, h.op, h.id, Status::kFailed, why);
    return true;
  }

  switch (op) {
    case Op::kSet: {
      std::string key(in.bytes(kMaxKey, "key"));
      std::string_view value = in.bytes(kMaxValue, "value");
      in.expect_end();
      if (std::string full = kv_refusal(key, value.size()); !full.empty()) {
        lk.unlock();
        reply_error(c, h.op, h.id, Status::kBadRequest, full);
        return true;
      }
      kv_assign(key, value);
      lk.unlock();
      changed_keys.insert(std::move(key));
      return ok();
    }
    case Op::kGet: {
      Parked p;
      p.key = std::string(in.bytes(kMaxKey, "key"));
      p.timeout_ms = in.i64();
      in.expect_end();
      lk.unlock();
      return park(std::move(p));
    }
    case Op::kTryGet: {
      std::string key(in.bytes(kMaxKey, "key"));
      in.expect_end();
      auto it = kv.find(key);
      if (it == kv.end())
        out.u32(static_cast<std::uint32_t>(Status::kNotFound));
      else
        out.u32(static_cast<std::uint32_t>(Status::kOk)).bytes(it->second);
      lk.unlock();
      reply(c, h.op, h.id, out);
      return true;
    }
    case Op::kAdd: {
      std::string key(in.bytes(kMaxKey, "key"));
      std::int64_t delta = in.i64();
      in.expect_end();
      std::int64_t cur = 0;
      auto it = kv.find(key);
      if (it != kv.end() && !parse_i64(it->second, &cur)) {
        std::string msg = "store key '" + printable(key) + "' holds '" + printable(it->second, 40) +
                          "', which is not an integer counter";
        lk.unlock();
        reply_error(c, h.op, h.id, Status::kBadRequest, msg);
        return true;
      }
      std::int64_t next;
      if (__builtin_add_overflow(cur, delta, &next)) {
        lk.unlock();
        reply_error(c, h.op, h.id, Status::kBadRequest, "counter '" + printable(key) + "' would overflow");
        return true;
      }
      kv_assign(key, std::to_string(next));
      lk.unlock();
      changed_keys.insert(std::move(key));
      out.u32(static_cast<std::uint32_t>(Status::kOk)).i64(next);
      reply(c, h.op, h.id, out);
      return true;
    }
    case Op::kCompareAndSet: {
      std::string key(in.bytes(kMaxKey, "key"));
      std::string_view expected = in.bytes(kMaxValue, "expected value");
      std::string_view desired = in.bytes(kMaxValue, "desired value");
      in.expect_end();
      auto it = kv.find(key);
      bool match = expected.empty() ? it == kv.end() : (it != kv.end() && it->second == expected);
      if (match && !desired.empty()) {
        if (std::string full = kv_refusal(key, desired.size()); !full.empty()) {
          lk.unlock();
          reply_error(c, h.op, h.id, Status::kBadRequest, full);
          return true;
        }
      }
      if (match) {
        // "" stands for "absent" on both sides, so a desired "" removes the key.
        if (desired.empty())
          kv_erase(key);
        else
          kv_assign(key, desired);
      }
      auto now = kv.find(key);
      out.u32(static_cast<std::uint32_t>(Status::kOk)).u32(match ? 1 : 0).bytes(now == kv.end() ? "" : now->second);
      lk.unlock();
      if (match) changed_keys.insert(std::move(key));
      reply(c, h.op, h.id, out);
      return true;
    }
    case Op::kRemove: {
      std::string key(in.bytes(kMaxKey, "key"));
      in.expect_end();
      bool existed = kv_erase(key);
      lk.unlock();
      out.u32(static_cast<std::uint32_t>(Status::kOk)).u32(existed ? 1 : 0);
      reply(c, h.op, h.id, out);
      return true;
    }
    case Op::kBarrier: {
      std::string name(in.bytes(kMaxKey - 8, "barrier name"));
      std::int64_t nranks = in.i64();
      std::int64_t timeout_ms = in.i64();
      in.expect_end();
      if (nranks <= 0) {
        lk.unlock();
        reply_error(c, h.op, h.id, Status::kBadRequest,
                    "barrier '" + printable(name) + "' with " + std::to_string(nranks) + " participants");
        return true;
      }
      // The same keys a client-side add + get barrier would use, so the state is inspectable.
      std::string count_key = name + "/count";
      std::string go_key = name + "/go";
      std::int64_t arrived = 0;
      auto it = kv.find(count_key);
      if (it != kv.end() && !parse_i64(it->second, &arrived)) arrived = nranks;  // poisoned: reject below
      ++arrived;
      if (arrived > nranks) {
        lk.unlock();
        reply_error(c, h.op, h.id, Status::kBadRequest,
                    "barrier '" + printable(name) + "' entered by more than " + std::to_string(nranks) +
                        " callers (each barrier name may be used once)");
        return true;
      }
      kv_assign(count_key, std::to_string(arrived));
      if (arrived == nranks) kv_assign(go_key, "1");
      lk.unlock();
      if (arrived == nranks) changed_keys.insert(go_key);
      Parked p;
      p.key = std::move(go_key);
      p.name = std::move(name);
      p.nranks = nranks;
      p.timeout_ms = timeout_ms;
      return park(std::move(p));
    }
    default: break;
  }
  throw Violation{"unhandled op"};
}

}  // namespace shmem::bootstrap
