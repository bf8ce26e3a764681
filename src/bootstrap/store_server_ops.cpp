// Request handling of the store server: one function per connection request, run on that
// connection's thread with the store lock taken as needed.
#include <openssl/crypto.h>

#include <charconv>
#include <string>
#include <system_error>

#include "bootstrap/store_server_impl.hpp"
#include "base/log.hpp"

namespace shmem::bootstrap {

using namespace wire;
using server_detail::Violation;

namespace {

// Parses a counter value; absent keys count as 0.
bool parse_i64(std::string_view s, std::int64_t* out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

std::string ms_text(std::int64_t ms) { return std::to_string(ms) + " ms"; }

}  // namespace

bool StoreServer::Impl::handle(Session& s, const Header& h, std::string_view payload) {
  auto op = static_cast<Op>(h.op);
  PayloadReader in(payload);
  FrameWriter out;

  if (op == Op::kHello) {
    if (s.said_hello) throw Violation{"second hello on one connection"};
    std::int64_t rank = in.i64();
    std::string_view secret = in.bytes(kMaxKey, "secret");
    in.expect_end();
    if (rank < -1 || rank > 0x7fffffff) throw Violation{"hello with invalid rank " + std::to_string(rank)};
    if (!tls && !opts.tls.secret.empty() &&
        (secret.size() != opts.tls.secret.size() ||
         CRYPTO_memcmp(secret.data(), opts.tls.secret.data(), secret.size()) != 0)) {
      SHMEM_WARN("store", "authentication failed from %s: wrong job secret in hello (rank %d)",
                 s.conn->peer.c_str(), static_cast<int>(rank));
      reply_error(s, h, Status::kAuth, "the job secret did not match the store's");
      return false;
    }
    s.said_hello = true;
    s.rank = static_cast<int>(rank);
    if (s.rank >= 0) {
      std::lock_guard<std::mutex> g(mu);
      connected.insert(s.rank);
    }
    SHMEM_DEBUG_LOG("store", "hello from %s as rank %d", s.conn->peer.c_str(), s.rank);
    out.u32(static_cast<std::uint32_t>(Status::kOk));
    return reply(s, h, out);
  }
  if (!s.said_hello) throw Violation{std::string("expected hello first, got ") + op_name(op)};

  std::unique_lock<std::mutex> lk(mu);
  auto failed_reply = [&] {
    std::string why = fail_reason;
    lk.unlock();
    return reply_error(s, h, Status::kFailed, why);
  };
  auto wait_error = [&](WaitEnd end, const std::string& timeout_msg) {
    switch (end) {
      case WaitEnd::kFailed: return failed_reply();
      case WaitEnd::kTimeout:
        lk.unlock();
        return reply_error(s, h, Status::kTimeout, timeout_msg);
      case WaitEnd::kStopping:
        lk.unlock();
        return reply_error(s, h, Status::kShutdown, "the bootstrap store is shutting down");
      case WaitEnd::kHungUp:
      case WaitEnd::kReady: break;
    }
    return false;
  };

  switch (op) {
    case Op::kHello: break;  // handled above
    case Op::kGoodbye: {
      in.expect_end();
      s.said_goodbye = true;
      if (s.rank >= 0) finalized.insert(s.rank);
      lk.unlock();
      out.u32(static_cast<std::uint32_t>(Status::kOk));
      return reply(s, h, out);
    }
    case Op::kGlobalExit: {
      std::int64_t status = in.i64();
      in.expect_end();
      lk.unlock();
      int st = static_cast<int>(status);
      SHMEM_INFO_LOG("store", "PE %d requested a global exit with status %d", s.rank, st);
      if (opts.on_global_exit) {
        try {
          opts.on_global_exit(s.rank, st);
        } catch (...) {
          SHMEM_ERROR("store", "on_global_exit callback threw");
        }
      }
      enter_failed("PE " + std::to_string(s.rank) + " called shmem_global_exit(" + std::to_string(st) + ")");
      out.u32(static_cast<std::uint32_t>(Status::kOk));
      return reply(s, h, out);
    }
    case Op::kWaitFailure: {
      in.expect_end();
      WaitEnd end = wait(lk, s, -1, [] { return false; });
      if (end == WaitEnd::kFailed) {
        std::string why = fail_reason;
        lk.unlock();
        out.u32(static_cast<std::uint32_t>(Status::kOk)).bytes(why);
        return reply(s, h, out);
      }
      return wait_error(end, "");
    }
    default: break;
  }

  if (failed) return failed_reply();

  switch (op) {
    case Op::kSet: {
      std::string key(in.bytes(kMaxKey, "key"));
      std::string_view value = in.bytes(kMaxValue, "value");
      in.expect_end();
      kv[std::move(key)].assign(value);
      lk.unlock();
      cv.notify_all();
      out.u32(static_cast<std::uint32_t>(Status::kOk));
      return reply(s, h, out);
    }
    case Op::kGet: {
      std::string key(in.bytes(kMaxKey, "key"));
      std::int64_t timeout_ms = in.i64();
      in.expect_end();
      auto it = kv.end();
      WaitEnd end = wait(lk, s, timeout_ms, [&] { return (it = kv.find(key)) != kv.end(); });
      if (end == WaitEnd::kReady) {
        out.u32(static_cast<std::uint32_t>(Status::kOk)).bytes(it->second);
        lk.unlock();
        return reply(s, h, out);
      }
      return wait_error(end, "timed out after " + ms_text(timeout_ms) + " waiting for store key '" +
                                 printable(key) + "'");
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
      return reply(s, h, out);
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
        return reply_error(s, h, Status::kBadRequest, msg);
      }
      std::int64_t next;
      if (__builtin_add_overflow(cur, delta, &next)) {
        lk.unlock();
        return reply_error(s, h, Status::kBadRequest, "counter '" + printable(key) + "' would overflow");
      }
      kv[key] = std::to_string(next);
      lk.unlock();
      cv.notify_all();
      out.u32(static_cast<std::uint32_t>(Status::kOk)).i64(next);
      return reply(s, h, out);
    }
    case Op::kCompareAndSet: {
      std::string key(in.bytes(kMaxKey, "key"));
      std::string_view expected = in.bytes(kMaxValue, "expected value");
      std::string_view desired = in.bytes(kMaxValue, "desired value");
      in.expect_end();
      auto it = kv.find(key);
      bool match = expected.empty() ? it == kv.end() : (it != kv.end() && it->second == expected);
      if (match) {
        // "" stands for "absent" on both sides, so a desired "" removes the key.
        if (desired.empty()) {
          if (it != kv.end()) kv.erase(it);
        } else {
          kv[key].assign(desired);
        }
      }
      auto now = kv.find(key);
      out.u32(static_cast<std::uint32_t>(Status::kOk)).u32(match ? 1 : 0).bytes(now == kv.end() ? "" : now->second);
      lk.unlock();
      if (match) cv.notify_all();
      return reply(s, h, out);
    }
    case Op::kRemove: {
      std::string key(in.bytes(kMaxKey, "key"));
      in.expect_end();
      bool existed = kv.erase(key) > 0;
      lk.unlock();
      out.u32(static_cast<std::uint32_t>(Status::kOk)).u32(existed ? 1 : 0);
      return reply(s, h, out);
    }
    case Op::kBarrier: {
      std::string name(in.bytes(kMaxKey - 8, "barrier name"));
      std::int64_t nranks = in.i64();
      std::int64_t timeout_ms = in.i64();
      in.expect_end();
      if (nranks <= 0) {
        lk.unlock();
        return reply_error(s, h, Status::kBadRequest, "barrier '" + printable(name) + "' with " +
                                                          std::to_string(nranks) + " participants");
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
        return reply_error(s, h, Status::kBadRequest,
                           "barrier '" + printable(name) + "' entered by more than " + std::to_string(nranks) +
                               " callers (each barrier name may be used once)");
      }
      kv[count_key] = std::to_string(arrived);
      if (arrived == nranks) {
        kv[go_key] = "1";
        cv.notify_all();
      }
      WaitEnd end = wait(lk, s, timeout_ms, [&] { return kv.count(go_key) > 0; });
      if (end == WaitEnd::kReady) {
        lk.unlock();
        out.u32(static_cast<std::uint32_t>(Status::kOk));
        return reply(s, h, out);
      }
      std::string msg;
      if (end == WaitEnd::kTimeout) {
        std::int64_t seen = 0;
        auto c = kv.find(count_key);
        if (c != kv.end()) parse_i64(c->second, &seen);
        msg = "barrier '" + printable(name) + "' timed out after " + ms_text(timeout_ms) + ": " +
              std::to_string(seen) + " of " + std::to_string(nranks) + " PEs arrived";
      }
      return wait_error(end, msg);
    }
    default: break;
  }
  throw Violation{"unhandled op"};
}

}  // namespace shmem::bootstrap
