#include "core/addr_table.hpp"

#include <atomic>
#include <cstring>

#include "base/log.hpp"
#include "core/runtime.hpp"
#include "core/sync_wait.hpp"

namespace shmem::addr {
namespace {

Header& header(char* table) noexcept { return *reinterpret_cast<Header*>(table); }

std::uint32_t length(const char* s) noexcept {
  std::uint32_t len = 0;
  std::memcpy(&len, s, sizeof len);
  return len;
}

}  // namespace

std::size_t table_bytes(int npes) noexcept {
  const auto n = static_cast<std::size_t>(npes);
  return npes > 1 ? kHeaderBytes + n * kSlotBytes + n * kEntryBytes + hosts_capacity(npes) : 0;
}

namespace {
char* hosts_text(char* table, int npes) noexcept { return entry(table, npes, npes); }  // after the last line
}  // namespace

void put_hosts(char* table, int npes, const std::string& text) noexcept {
  Header& h = header(table);
  std::uint64_t state = 2;
  if (text.size() <= hosts_capacity(npes)) {
    std::memcpy(hosts_text(table, npes), text.data(), text.size());
    h.hosts_len = text.size();
    state = 1;
  }
  std::atomic_ref<std::uint64_t>(h.hosts_ready).store(state, std::memory_order_release);
}

std::optional<std::string> wait_hosts(Runtime& rt, char* table, int npes) {
  Header& h = header(table);
  std::atomic_ref<std::uint64_t> ready(h.hosts_ready);
  wait_word(rt, "this host's leader to hand out the host table", &h.hosts_ready,
            [&] { return ready.load(std::memory_order_acquire) != 0; });
  if (ready.load(std::memory_order_acquire) != 1) return std::nullopt;
  return std::string(hosts_text(table, npes), h.hosts_len);
}

std::size_t write_slot(char* s, std::string_view blob, std::size_t cap) noexcept {
  if (blob.empty() || blob.size() > cap - sizeof(std::uint32_t)) {
    std::memcpy(s, &kTooBig, sizeof kTooBig);
    return sizeof kTooBig;
  }
  const auto len = static_cast<std::uint32_t>(blob.size());
  std::memcpy(s + sizeof len, blob.data(), blob.size());
  std::memcpy(s, &len, sizeof len);
  return sizeof len + blob.size();
}

std::size_t used_bytes(const char* s, std::size_t cap) noexcept {
  const std::uint32_t len = length(s);
  return sizeof len + (len == kTooBig || len > cap - sizeof len ? 0 : len);
}

std::optional<std::string> read_slot(const char* s, std::size_t cap) {
  const std::uint32_t len = length(s);
  if (len == 0 || len == kTooBig || len > cap - sizeof len) return std::nullopt;
  return std::string(s + sizeof len, len);
}

void TableExchange::publish(const std::string& tag, const std::string& mine) {
  store_.publish(tag, mine);
  if (!table_ || !tag_.empty()) return;
  tag_ = tag;
  write_slot(slot(table_, me_), mine);
  std::atomic_ref<std::uint64_t>(header(table_).published).fetch_add(1, std::memory_order_release);
}

std::string TableExchange::fetch(const std::string& tag, int pe) {
  if (table_ && tag == tag_ && std::atomic_ref<std::uint64_t>(header(table_).done).load(std::memory_order_acquire)) {
    if (auto blob = read_slot(slot(table_, pe))) return *blob;
  }
  from_store_.fetch_add(1, std::memory_order_relaxed);
  return store_.fetch(tag, pe);
}

std::uint64_t TableExchange::store_fetches() const noexcept { return from_store_.load(std::memory_order_relaxed); }

void share(Runtime& rt, transport::RemoteTransport& remote, const Ring& ring, char* table, int npes,
           std::uint64_t table_off) {
  Header& h = header(table);
  const int nhosts = ring.nhosts, next = ring.next_leader;
  const auto mine = static_cast<std::uint64_t>(ring.mine->size());
  std::atomic_ref<std::uint64_t> published(h.published), received(h.received);
  if (!ring.hosts) write_slot(entry(table, npes, ring.my_host), boot::encode_entry(*ring.mine), kEntryBytes);
  wait_word(rt, "this host's PEs to write their transport addresses into the host's table", &h.published,
            [&] { return published.load(std::memory_order_acquire) >= mine; });
  const char* what = "shmem_init (address ring)";
  for (int k = 0; k + 1 < nhosts; ++k) {
    if (k > 0)
      wait_word(rt, "the previous host's leader to pass on the transport addresses (the init's address ring)",
                &h.received, [&] { return received.load(std::memory_order_acquire) >= static_cast<std::uint64_t>(k); });
    const int b = ring_block(ring.my_host, k, nhosts);
    std::optional<boot::HostEntry> line;
    if (!ring.hosts) {
      const char* e = entry(table, npes, b);
      if (auto text = read_slot(e, kEntryBytes); text && !text->empty() && text->back() == '\n')
        line = boot::decode_entry(std::string_view(*text).substr(0, text->size() - 1), npes);
      if (!line) {
        log::write(log::Level::kFatal, "init",
                   "PE %d: the host leaders' ring brought a malformed line for host %d of the host table "
                   "(PEs of different builds?)",
                   rt.my_pe(), b);
        rt.abort_job(1);
      }
      remote.put(next, transport::Seg::kHeap, table_off + static_cast<std::uint64_t>(e - table), e,
                 used_bytes(e, kEntryBytes), true, what);
    }
    const auto& ranges = ring.hosts ? (*ring.hosts)[static_cast<std::size_t>(b)].ranges : line->ranges;
    for (const auto& [first, last] : ranges)
      for (int pe = first; pe <= last; ++pe) {
        const char* s = slot(table, pe);
        remote.put(next, transport::Seg::kHeap, table_off + static_cast<std::uint64_t>(s - table), s, used_bytes(s),
                   true, what);
      }
    remote.quiet(next);  // the slots are there before the count says so
    remote.signal_add(next, transport::Seg::kHeap, table_off + offsetof(Header, received), 1, what);
  }
  if (nhosts > 1)
    wait_word(rt, "the previous host's leader to pass on the transport addresses (the init's address ring)",
              &h.received,
              [&] { return received.load(std::memory_order_acquire) >= static_cast<std::uint64_t>(nhosts - 1); });
  std::atomic_ref<std::uint64_t>(h.done).store(1, std::memory_order_release);
}

std::optional<boot::HostTable> ring_hosts(char* table, int npes, int nhosts) {
  std::string text = "H1\n";
  for (int b = 0; b < nhosts; ++b) {
    auto line = read_slot(entry(table, npes, b), kEntryBytes);
    if (!line) return std::nullopt;
    text += *line;
  }
  return boot::decode_table(text, npes);
}

}  // namespace shmem::addr
