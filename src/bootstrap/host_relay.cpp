#include "bootstrap/host_relay.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "base/error.hpp"
#include "base/log.hpp"
#include "util/event_fd.hpp"
#include "util/fd_pass.hpp"
#include "util/parent_only_fd.hpp"
#include "util/socket.hpp"

namespace shmem::bootstrap {
namespace {

constexpr std::uint32_t kMagic = 0x73685231;  // "shR1"
// How long the owner's last act waits for the other PEs of its host to close their channels.
constexpr Millis kDrainBound{30000};
// A joiner's request is 8 bytes written at once; a connection that does not send them is dropped.
constexpr Millis kRequestWait{2000};

struct Request {
  std::uint32_t magic;
  std::int32_t rank;
};
// Reply::status besides 0 and an Errc: the store refused the owner's credentials; each PE
// connects on its own, so that the store can name the rank whose secret is wrong.
constexpr std::int32_t kConnectYourself = 1;

struct Reply {
  std::uint32_t magic;
  std::int32_t status;  // 0: two descriptors attached; kConnectYourself; else an Errc, the message follows
  std::int32_t owner_pe;
  std::uint32_t length;  // of the message that follows
};

// "\0shmem-relay-<hex>": an HMAC of the job under its secret, so the name, which every process
// can read in /proc/net/unix, tells nothing and cannot be guessed without the secret. The name
// includes how the store is trusted (TLS on or off, the CA and CRL files): a PE joins only a
// relay whose owner checks the store as this PE would, so a PE told to trust another CA
// connects on its own and is refused, as it would be without a relay.
sockaddr_un door_address(const HostRelay::Options& o, socklen_t* len) {
  const TlsConfig& t = o.relay.tls;
  const std::string trust = std::string(t.enabled ? "tls" : "plain") + "|" + t.ca_file + "|" + t.ca_path + "|" +
                            t.crl_file + "|" + t.crl_path;
  const std::string text = "shmem host relay v1/" + o.job + "/" + o.relay.store_host + ":" +
                           std::to_string(o.relay.store_port) + "/" + std::to_string(::getuid()) + "/" + trust;
  const std::string& key = o.relay.tls.secret;
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (!HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(text.data()),
            text.size(), mac, &n))
    throw Error(Errc::kInternal, "host relay: cannot compute the socket's name (HMAC-SHA256)");
  static const char* hex = "0123456789abcdef";
  std::string name = "shmem-relay-";
  for (unsigned i = 0; i < 20 && i < n; ++i) {
    name += hex[mac[i] >> 4];
    name += hex[mac[i] & 15];
  }
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::memcpy(a.sun_path + 1, name.data(), name.size());  // sun_path[0] == 0: abstract
  *len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  return a;
}

bool same_uid(int fd) {
  ucred cred{};
  socklen_t cl = sizeof cred;
  return ::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) == 0 && cred.uid == ::getuid();
}

bool send_reply(int fd, int status, int owner_pe, const std::string& msg, std::span<const int> fds) {
  Reply rep{kMagic, status, owner_pe, static_cast<std::uint32_t>(msg.size())};
  std::string bytes(reinterpret_cast<const char*>(&rep), sizeof rep);
  bytes += msg;
  return util::send_with_fds(fd, bytes, fds);
}

}  // namespace

struct HostRelay::Impl {
  int me = -1;
  int owner_pe = -1;
  util::UniqueFd store_ch, watcher_ch;

  // A joiner: its connection to the owner, on which the owner's word comes when the relay ends.
  util::ParentOnlyFd to_owner;

  // The owner.
  util::ParentOnlyFd door;
  util::EventFd wake;
  std::unique_ptr<StoreRelay> relay;
  std::thread thread;
  std::mutex mu;
  std::condition_variable cv;
  std::size_t joiners = 0;  // connections of PEs that got their channels and still run
  bool ready = false, stop = false, door_closing = false;
  int failed_code = 0;  // the Errc of the owner's failure to reach the store
  std::string failed_why;
  struct Joiner {
    util::ParentOnlyFd fd;
    int rank = -1;  // -1 until its request came
  };
  std::vector<Joiner> waiting, joined;  // the thread's

  void run() noexcept;
  void answer(Joiner& j);  // moves it to joined, or drops it
};

void HostRelay::Impl::answer(Joiner& j) {
  int code;
  std::string why;
  {
    std::lock_guard<std::mutex> g(mu);
    code = failed_code;
    why = failed_why;
  }
  if (code) {
    send_reply(j.fd.get(), code, me, why, {});
    j.fd.reset();
    return;
  }
  try {
    util::UniqueFd s = relay->add(j.rank), w = relay->add(-1);
    const std::array<int, 2> fds{s.get(), w.get()};
    if (!send_reply(j.fd.get(), 0, me, "", fds)) {
      SHMEM_DEBUG_LOG("store", "host relay: PE %d left before it got its channels", j.rank);
      j.fd.reset();
      return;
    }
    SHMEM_DEBUG_LOG("store", "host relay: PE %d's store connection goes through this PE", j.rank);
    joined.push_back(std::move(j));
  } catch (const Error& e) {
    send_reply(j.fd.get(), static_cast<int>(e.code()), me, e.what(), {});
    j.fd.reset();
  }
}

void HostRelay::Impl::run() noexcept {
  std::vector<pollfd> fds;
  bool told = false;  // the relay ended and the joiners heard why
  for (;;) {
    bool is_ready, closing, stopping;
    {
      std::lock_guard<std::mutex> g(mu);
      stopping = stop;
      is_ready = ready;
      closing = door_closing;
    }
    if (closing) door.reset();
    if (stopping) {
      // The owner failed to reach the store (or is done): those waiting hear it (they sent
      // their request as they connected) instead of connecting themselves.
      for (auto& j : waiting) {
        Request req{};
        if (j.rank < 0 && util::recv_all(j.fd.get(), &req, sizeof req).ok() && req.magic == kMagic && req.rank >= 0)
          j.rank = req.rank;
        if (j.rank >= 0 && failed_code) answer(j);
      }
      return;
    }
    if (is_ready)
      for (auto& j : waiting)
        if (j.fd && j.rank >= 0) answer(j);
    std::erase_if(waiting, [](const Joiner& j) { return !j.fd; });
    std::erase_if(joined, [](const Joiner& j) { return !j.fd; });
    {
      std::lock_guard<std::mutex> g(mu);
      joiners = joined.size();
    }
    cv.notify_all();
    fds.clear();
    fds.push_back({wake.fd(), POLLIN, 0});
    fds.push_back({door ? door.get() : -1, POLLIN, 0});
    fds.push_back({is_ready && relay && !told ? relay->ended_fd() : -1, POLLIN, 0});
    for (auto& j : waiting) fds.push_back({j.fd.get(), POLLIN, 0});
    for (auto& j : joined) fds.push_back({j.fd.get(), POLLIN, 0});
    const std::size_t nw = waiting.size(), nj = joined.size();
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      SHMEM_WARN("store", "host relay: poll: %s; no more PEs of this host can join", std::strerror(errno));
      return;
    }
    if (fds[0].revents) wake.drain();
    if (fds[2].revents) {
      // The store connection ended; the relay closes every channel. Each joiner hears why.
      const std::string why = relay->ended().why;
      for (auto& j : joined) {
        util::send_all(j.fd.get(), why.data(), why.size());
        j.fd.reset();
      }
      told = true;
    }
    // (fds has an entry for each of the first nw waiting and nj joined: the loop adds after.)
    const std::size_t base = 3;
    for (std::size_t k = 0; k < nw; ++k) {
      Joiner& j = waiting[k];
      if (!fds[base + k].revents) continue;
      Request req{};
      if (j.rank >= 0 || !util::recv_all(j.fd.get(), &req, sizeof req).ok() || req.magic != kMagic || req.rank < 0) {
        j.fd.reset();  // not one of ours, or it left
        continue;
      }
      j.rank = req.rank;
    }
    for (std::size_t k = 0; k < nj; ++k)
      if (fds[base + nw + k].revents) joined[k].fd.reset();  // that PE's process ended
    if (fds[1].revents & POLLIN) {
      util::UniqueFd c(::accept4(door.get(), nullptr, nullptr, SOCK_CLOEXEC));
      if (c && same_uid(c.get())) {
        util::set_io_timeouts(c.get(), kRequestWait, kRequestWait);
        waiting.push_back({std::move(c), -1});
      } else if (c) {
        SHMEM_WARN("store", "host relay: refused a connection from another user");
      }
    }
  }
}

HostRelay::HostRelay(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

std::unique_ptr<HostRelay> HostRelay::open(const Options& o) {
  auto m = std::make_unique<Impl>();
  m->me = o.rank;
  socklen_t len = 0;
  const sockaddr_un addr = door_address(o, &len);
  // Up to three tries: join the owner; else become it; a lost race to bind joins the winner.
  for (int attempt = 0; attempt < 3; ++attempt) {
    util::UniqueFd s(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!s) return nullptr;
    if (::connect(s.get(), reinterpret_cast<const sockaddr*>(&addr), len) == 0) {
      if (!same_uid(s.get())) {
        SHMEM_WARN("store", "host relay: the socket for this job belongs to another user; connecting directly");
        return nullptr;
      }
      // The owner answers once its store connection is up: within its connect timeout.
      util::set_io_timeouts(s.get(), o.relay.connect_timeout + Millis(5000), Millis(5000));
      const Request req{kMagic, o.rank};
      if (!util::send_all(s.get(), &req, sizeof req).ok()) continue;
      Reply rep{};
      std::array<util::UniqueFd, 2> got;
      if (util::recv_with_fds(s.get(), {reinterpret_cast<char*>(&rep), sizeof rep}, got) != sizeof rep ||
          rep.magic != kMagic) {
        // Its door closed as we came, or it ended: the name may be free now.
        SHMEM_DEBUG_LOG("store", "host relay: the owner did not answer");
        continue;
      }
      std::string msg(rep.length > 4096 ? 4096 : rep.length, '\0');
      if (!msg.empty() && !util::recv_all(s.get(), msg.data(), msg.size()).ok()) return nullptr;
      if (rep.status == kConnectYourself) return nullptr;
      if (rep.status != 0) throw Error(static_cast<Errc>(rep.status), msg);
      if (!got[0] || !got[1]) return nullptr;
      util::set_io_timeouts(s.get(), Millis{0}, Millis{0});
      m->owner_pe = rep.owner_pe;
      m->store_ch = std::move(got[0]);
      m->watcher_ch = std::move(got[1]);
      m->to_owner = std::move(s);
      SHMEM_DEBUG_LOG("store", "host relay: this PE reaches the store through PE %d", m->owner_pe);
      return std::unique_ptr<HostRelay>(new HostRelay(std::move(m)));
    }
    if (errno != ECONNREFUSED && errno != ENOENT) return nullptr;
    if (::bind(s.get(), reinterpret_cast<const sockaddr*>(&addr), len) != 0) {
      if (errno == EADDRINUSE) continue;  // another PE of this host got there first: join it
      return nullptr;
    }
    if (::listen(s.get(), 4096) != 0) return nullptr;
    m->door = std::move(s);
    break;
  }
  if (!m->door) return nullptr;
  // The owner: the socket answers once the relay is up (or failed); joiners wait meanwhile.
  m->owner_pe = o.rank;
  if (!m->wake) return nullptr;
  Impl* raw = m.get();
  m->thread = std::thread([raw] { raw->run(); });
  std::unique_ptr<HostRelay> self(new HostRelay(std::move(m)));
  StoreRelay::Options ro = o.relay;
  ro.close_ends_on_end = true;
  ro.closed_hint = "the PE hosting it ended?";  // no launcher: PE 0 hosts the store
  try {
    raw->relay = std::make_unique<StoreRelay>(ro);
    raw->store_ch = raw->relay->add(o.rank);
    raw->watcher_ch = raw->relay->add(-1);
  } catch (const Error& e) {
    // self's destructor stops the thread, which first tells the PEs waiting.
    const bool refused = e.code() == Errc::kAuth;
    {
      std::lock_guard<std::mutex> g(raw->mu);
      raw->failed_code = refused ? kConnectYourself : static_cast<int>(e.code());
      raw->failed_why = e.what();
      raw->ready = true;
    }
    raw->wake.signal();
    if (refused) return nullptr;  // as this rank, on its own connection: the store names it
    throw;
  }
  {
    std::lock_guard<std::mutex> g(raw->mu);
    raw->ready = true;
  }
  raw->wake.signal();
  SHMEM_DEBUG_LOG("store", "host relay: this PE relays its host's store connections");
  return self;
}

HostRelay::~HostRelay() {
  Impl& m = *impl_;
  if (!m.thread.joinable()) return;  // a joiner: its descriptors close
  close_door();
  m.store_ch.reset();  // (not taken when init failed before)
  m.watcher_ch.reset();
  if (m.relay && !m.relay->wait_drained(kDrainBound))
    SHMEM_WARN("store",
               "PE %d: other PEs of this host still held their store channels %lld s after this PE "
               "finalized; closing the host's store connection",
               m.me, static_cast<long long>(kDrainBound.count() / 1000));
  {
    std::lock_guard<std::mutex> g(m.mu);
    m.stop = true;
  }
  m.wake.signal();
  m.thread.join();
  m.relay.reset();
}

util::UniqueFd HostRelay::take_store() { return std::move(impl_->store_ch); }
util::UniqueFd HostRelay::take_watcher() { return std::move(impl_->watcher_ch); }
int HostRelay::owner_pe() const noexcept { return impl_->owner_pe; }
bool HostRelay::owner() const noexcept { return impl_->owner_pe == impl_->me; }

void HostRelay::close_door() noexcept {
  Impl& m = *impl_;
  if (!m.thread.joinable()) return;
  {
    std::lock_guard<std::mutex> g(m.mu);
    m.door_closing = true;
  }
  m.wake.signal();
}

void HostRelay::linger(Millis bound) noexcept {
  Impl& m = *impl_;
  if (!m.thread.joinable()) return;
  std::unique_lock<std::mutex> lk(m.mu);
  m.cv.wait_for(lk, bound, [&] { return m.joiners == 0; });
}

std::string HostRelay::why_lost(Millis wait) {
  Impl& m = *impl_;
  if (m.relay) return m.relay->ended().why;  // ends before it closes the channels
  if (!m.to_owner || !util::wait_readable(m.to_owner.get(), static_cast<int>(wait.count()))) return {};
  std::string why;
  char buf[1024];
  util::set_io_timeouts(m.to_owner.get(), wait, wait);
  for (;;) {
    const ssize_t r = ::recv(m.to_owner.get(), buf, sizeof buf, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0 || why.size() > 4096) break;
    why.append(buf, static_cast<std::size_t>(r));
  }
  if (why.empty()) {
    // It ended before finalize (an owner that finalizes waits for its PEs' channels to close):
    // said as the store says any PE's loss.
    SHMEM_WARN("store", "PE %d, which relayed this host's connection to the bootstrap store, ended", m.owner_pe);
    return "PE " + std::to_string(m.owner_pe) + " lost: connection closed before shmem_finalize";
  }
  return why;
}

}  // namespace shmem::bootstrap
