#include "bootstrap/store_relay.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "bootstrap/frame.hpp"
#include "bootstrap/store_link.hpp"
#include "base/error.hpp"
#include "base/log.hpp"
#include "util/event_fd.hpp"
#include "util/parent_only_fd.hpp"
#include "util/socket.hpp"

namespace shmem::bootstrap {

using namespace wire;

namespace {

constexpr std::size_t kReadChunk = 64 * 1024;
// Bytes for the store that may wait before the relay stops reading its PEs (they wait).
constexpr std::size_t kMaxBacklog = std::size_t{4} << 20;

}  // namespace

struct StoreRelay::Impl {
  struct Pe {
    int rank = -1;
    std::uint32_t chan = 0;
    util::ParentOnlyFd fd;  // the relay's end (marked: not the PE's, which the PE inherits)
    bool opened = false;   // kMuxOpen sent (at its first bytes)
    bool closing = false;  // the store closed the channel: its last bytes go out, then the end closes
    std::string out;       // for the PE
    std::size_t out_off = 0;
  };

  std::string host;
  std::unique_ptr<StoreLink> up;
  std::string up_in, up_out;
  std::size_t up_out_off = 0;
  bool up_want_write = false;  // TLS needs the socket writable to go on reading
  util::EventFd wake, ended_evt;
  std::thread thread;

  mutable std::mutex mu;  // guards what other threads touch
  mutable std::condition_variable drained;
  std::vector<std::unique_ptr<Pe>> added;
  std::size_t open_ends = 0;  // ends add() returned that are not closed yet
  bool stop = false;
  bool close_ends_on_end = false;
  std::string closed_hint;
  End end;

  std::map<std::uint32_t, std::unique_ptr<Pe>> pes;  // the thread's, by channel
  std::uint32_t next_chan = 1;                       // under mu (add)

  void run() noexcept;
  bool ended_now() const {
    std::lock_guard<std::mutex> g(mu);
    return end.ended;
  }
  void finish(bool silent, std::string why) {
    {
      std::lock_guard<std::mutex> g(mu);
      if (end.ended) return;
      end.ended = true;
      end.silent = silent;
      end.why = std::move(why);
    }
    ended_evt.signal();
    drained.notify_all();
  }
  std::string silent_why() const {
    return "no reply from the host of the bootstrap store (" + up->where + ") for " +
           std::to_string(up->host_timeout.count()) +
           " s (SHMEM_HOST_TIMEOUT): the network link to the launcher's host is down, or that host is gone";
  }
  void queue(Op op, std::uint32_t chan, FrameWriter& w) { up_out += w.finish(static_cast<std::uint16_t>(op), chan); }
  void read_pe(Pe& pe);
  void write_pe(Pe& pe);
  void close_pe(Pe& pe);  // the PE's end closed (or broke): its channel closes
  void read_up();
  bool take_frames();  // hands the complete frames read to their PEs; false if one is invalid
  void write_up();
  void on_frame(const Header& h, std::string_view payload);
};

void StoreRelay::Impl::close_pe(Pe& pe) {
  if (pe.opened && !pe.closing) {
    FrameWriter w;
    w.bytes("");
    queue(Op::kMuxClose, pe.chan, w);
  }
  pe.fd.reset();
}

void StoreRelay::Impl::read_pe(Pe& pe) {
  char buf[kReadChunk];
  ssize_t r = ::recv(pe.fd.get(), buf, sizeof buf, MSG_DONTWAIT);
  if (r < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) return;
  if (r <= 0) {
    close_pe(pe);
    return;
  }
  if (!pe.opened) {
    pe.opened = true;
    FrameWriter w;
    w.i64(pe.rank).bytes(host);
    queue(Op::kMuxOpen, pe.chan, w);
  }
  FrameWriter w;
  w.raw(std::string_view(buf, static_cast<std::size_t>(r)));
  queue(Op::kMuxData, pe.chan, w);
}

void StoreRelay::Impl::write_pe(Pe& pe) {
  while (pe.fd && pe.out_off < pe.out.size()) {
    ssize_t w =
        ::send(pe.fd.get(), pe.out.data() + pe.out_off, pe.out.size() - pe.out_off, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (w > 0) {
      pe.out_off += static_cast<std::size_t>(w);
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    close_pe(pe);  // it is gone; its end reads as closed
    return;
  }
  pe.out.clear();
  pe.out_off = 0;
  if (pe.closing) pe.fd.reset();  // the store's last replies are out: the PE reads the end
}

void StoreRelay::Impl::on_frame(const Header& h, std::string_view payload) {
  const auto op = static_cast<Op>(h.op & ~kReplyBit);
  auto it = pes.find(h.id);
  if (it == pes.end() || !it->second->fd) return;  // that PE's end closed meanwhile
  Pe& pe = *it->second;
  if (op == Op::kMuxData) {
    pe.out.append(payload);
    write_pe(pe);
  } else if (op == Op::kMuxClose) {
    pe.closing = true;
    PayloadReader in(payload);
    const std::string why(in.bytes(kMaxKey, "reason"));
    SHMEM_DEBUG_LOG("store", "the store closed PE %d's channel%s%s", pe.rank, why.empty() ? "" : ": ", why.c_str());
    write_pe(pe);
  } else {
    throw FrameError(std::string("unexpected ") + op_name(op) + " from the store");
  }
}

void StoreRelay::Impl::read_up() {
  char buf[kReadChunk];
  for (;;) {
    std::size_t got = 0;
    Channel::Nb r = up->ch.read_some(buf, sizeof buf, &got);
    if (r == Channel::Nb::kOk) {
      up_in.append(buf, got);
      continue;
    }
    if (r == Channel::Nb::kWantRead || r == Channel::Nb::kWantWrite) {
      up_want_write = r == Channel::Nb::kWantWrite;
      break;
    }
    // What came before the end goes to its PEs first (the replies to their goodbyes).
    if (!take_frames()) return;
    const int err = up->ch.sys_errno();
    if (err == ETIMEDOUT || err == EHOSTUNREACH || err == ENETUNREACH) {
      finish(true, silent_why());
    } else if (r == Channel::Nb::kEof) {
      finish(false, "the bootstrap store at " + up->where + " closed this host's connection (" + closed_hint + ")");
    } else {
      finish(false, "lost the connection to the bootstrap store at " + up->where + " (" +
                        (up->ch.tls_error().empty() ? std::string("connection error") : up->ch.tls_error()) + ")");
    }
    return;
  }
  take_frames();
}

bool StoreRelay::Impl::take_frames() {
  std::size_t off = 0;
  try {
    while (up_in.size() - off >= kHeaderSize) {
      Header h;
      std::string detail;
      if (const char* bad =
              decode_header(reinterpret_cast<const unsigned char*>(up_in.data() + off), true, &h, &detail))
        throw FrameError(std::string(bad) + " " + detail);
      if (up_in.size() - off - kHeaderSize < h.length) break;
      on_frame(h, std::string_view(up_in.data() + off + kHeaderSize, h.length));
      off += kHeaderSize + h.length;
    }
  } catch (const FrameError& e) {
    finish(false, "the bootstrap store at " + up->where + " sent an invalid frame to this host's relay: " + e.what());
    return false;
  }
  up_in.erase(0, off);
  return true;
}

void StoreRelay::Impl::write_up() {
  while (up_out_off < up_out.size()) {
    std::size_t put = 0;
    Channel::Nb r = up->ch.write_some(up_out.data() + up_out_off, up_out.size() - up_out_off, &put);
    if (r == Channel::Nb::kOk) {
      up_out_off += put;
      continue;
    }
    if (r == Channel::Nb::kWantWrite || r == Channel::Nb::kWantRead) return;
    // A read tells why (a timeout, the store's end); this only notes that it broke.
    const int err = up->ch.sys_errno();
    if (err == ETIMEDOUT || err == EHOSTUNREACH || err == ENETUNREACH)
      finish(true, silent_why());
    else
      finish(false, "lost the connection to the bootstrap store at " + up->where + " (" +
                        (r == Channel::Nb::kEof ? std::string("connection closed") : up->ch.tls_error()) + ")");
    return;
  }
  up_out.clear();
  up_out_off = 0;
}

void StoreRelay::Impl::run() noexcept {
  std::vector<pollfd> fds;
  std::vector<Pe*> owners;
  for (;;) {
    {
      std::lock_guard<std::mutex> g(mu);
      if (stop) return;
      for (auto& pe : added) pes.emplace(pe->chan, std::move(pe));
      added.clear();
    }
    const bool dead = ended_now();
    if (dead && close_ends_on_end)
      for (auto& [chan, pe] : pes) {
        if (pe->fd) write_pe(*pe);  // what the store said last (a small reply fits the socket)
        pe->fd.reset();             // then each PE reads the end of its channel
      }
    std::size_t closed = 0;
    for (auto it = pes.begin(); it != pes.end();) {
      if (it->second->fd) {
        ++it;
      } else {
        it = pes.erase(it);
        ++closed;
      }
    }
    if (closed) {
      std::lock_guard<std::mutex> g(mu);
      open_ends -= closed;
      if (open_ends == 0) drained.notify_all();
    }
    fds.clear();
    owners.clear();
    fds.push_back({wake.fd(), POLLIN, 0});
    if (!dead) {
      short up_ev = POLLIN;
      if (up_out_off < up_out.size() || up_want_write) up_ev |= POLLOUT;
      fds.push_back({up->fd.get(), up_ev, 0});
      const bool room = up_out.size() - up_out_off < kMaxBacklog;
      for (auto& [chan, pe] : pes) {
        short ev = 0;
        if (room && !pe->closing) ev |= POLLIN;
        if (pe->out_off < pe->out.size()) ev |= POLLOUT;
        if (!ev) continue;
        fds.push_back({pe->fd.get(), ev, 0});
        owners.push_back(pe.get());
      }
    }
    // Every wait ends with an event: the store, a PE, or add()/the destructor through wake.
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      finish(false, std::string("the relay to the bootstrap store failed: poll: ") + std::strerror(errno));
      continue;
    }
    if (fds[0].revents) wake.drain();
    if (dead) continue;
    if (fds[1].revents & (POLLIN | POLLERR | POLLHUP | POLLOUT)) read_up();
    for (std::size_t k = 0; k < owners.size(); ++k) {
      Pe& pe = *owners[k];
      const short re = fds[k + 2].revents;
      if (!re || !pe.fd) continue;
      if (re & POLLOUT) write_pe(pe);
      if (pe.fd && (re & (POLLIN | POLLHUP | POLLERR))) read_pe(pe);
    }
    if (!ended_now()) write_up();
  }
}

StoreRelay::StoreRelay(const Options& opts) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.host = opts.host;
  m.close_ends_on_end = opts.close_ends_on_end;
  m.closed_hint = opts.closed_hint;
  if (!m.wake || !m.ended_evt)
    throw Error(Errc::kInternal, std::string("StoreRelay: eventfd: ") + std::strerror(errno));
  StoreClient client(opts.store_host, opts.store_port, opts.tls, -1, opts.connect_timeout, 0, opts.unreachable,
                     opts.gone);
  m.up = client.release();
  const int fl = ::fcntl(m.up->fd.get(), F_GETFL);
  if (fl < 0 || ::fcntl(m.up->fd.get(), F_SETFL, fl | O_NONBLOCK) < 0)
    throw Error(Errc::kInternal, std::string("StoreRelay: fcntl(O_NONBLOCK): ") + std::strerror(errno));
  try {
    m.thread = std::thread([&m] { m.run(); });
  } catch (const std::system_error& e) {
    throw Error(Errc::kInternal, std::string("StoreRelay: cannot start its thread: ") + e.what());
  }
}

StoreRelay::~StoreRelay() {
  Impl& m = *impl_;
  {
    std::lock_guard<std::mutex> g(m.mu);
    m.stop = true;
  }
  m.wake.signal();
  if (m.thread.joinable()) m.thread.join();
  if (!m.up || m.ended_now()) return;
  // What is queued (the channels of PEs that ended) goes out, for at most a second; the
  // channels still open close with the connection (goodbye said, or the store reports them).
  for (int tries = 0; tries < 100 && m.up_out_off < m.up_out.size() && !m.ended_now(); ++tries) {
    m.write_up();
    pollfd p{m.up->fd.get(), POLLOUT, 0};
    if (m.up_out_off < m.up_out.size()) ::poll(&p, 1, 10);
  }
  m.up->ch.close_notify();
}

util::UniqueFd StoreRelay::add(int rank) {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    throw Error(Errc::kInternal, std::string("StoreRelay::add: socketpair: ") + std::strerror(errno));
  util::UniqueFd mine(sv[0]), theirs(sv[1]);
  auto pe = std::make_unique<Impl::Pe>();
  pe->rank = rank;
  pe->fd = std::move(mine);
  {
    std::lock_guard<std::mutex> g(impl_->mu);
    pe->chan = impl_->next_chan++;
    impl_->added.push_back(std::move(pe));
    ++impl_->open_ends;
  }
  impl_->wake.signal();
  return theirs;
}

bool StoreRelay::wait_drained(Millis timeout) const {
  std::unique_lock<std::mutex> lk(impl_->mu);
  return impl_->drained.wait_for(lk, timeout, [&] { return impl_->open_ends == 0 || impl_->end.ended; });
}

int StoreRelay::ended_fd() const noexcept { return impl_->ended_evt.fd(); }

StoreRelay::End StoreRelay::ended() const {
  std::lock_guard<std::mutex> g(impl_->mu);
  return impl_->end;
}

}  // namespace shmem::bootstrap
