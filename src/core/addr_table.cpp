#include "core/addr_table.hpp"

#include <atomic>
#include <cstring>

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
  return npes > 1 ? kHeaderBytes + static_cast<std::size_t>(npes) * kSlotBytes + hosts_capacity(npes) : 0;
}

namespace {
char* hosts_text(char* table, int npes) noexcept { return slot(table, npes); }  // after the last slot
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

std::size_t write_slot(char* s, std::string_view blob) noexcept {
  if (blob.empty() || blob.size() > kSlotBytes - sizeof(std::uint32_t)) {
    std::memcpy(s, &kTooBig, sizeof kTooBig);
    return sizeof kTooBig;
  }
  const auto len = static_cast<std::uint32_t>(blob.size());
  std::memcpy(s + sizeof len, blob.data(), blob.size());
  std::memcpy(s, &len, sizeof len);
  return sizeof len + blob.size();
}

std::size_t used_bytes(const char* s) noexcept {
  const std::uint32_t len = length(s);
  return sizeof len + (len == kTooBig || len > kSlotBytes - sizeof len ? 0 : len);
}

std::optional<std::string> read_slot(const char* s) {
  const std::uint32_t len = length(s);
  if (len == 0 || len == kTooBig || len > kSlotBytes - sizeof len) return std::nullopt;
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
  std::atomic_ref<std::uint64_t>(from_store_).fetch_add(1, std::memory_order_relaxed);
  return store_.fetch(tag, pe);
}

std::uint64_t TableExchange::store_fetches() const noexcept {
  return std::atomic_ref<std::uint64_t>(const_cast<std::uint64_t&>(from_store_)).load(std::memory_order_relaxed);
}

void share(Runtime& rt, transport::RemoteTransport& remote, const boot::HostTable& hosts, int my_host, char* table,
           std::uint64_t table_off) {
  Header& h = header(table);
  const int nhosts = static_cast<int>(hosts.size());
  const auto mine = static_cast<std::uint64_t>(hosts[static_cast<std::size_t>(my_host)].size());
  std::atomic_ref<std::uint64_t> published(h.published), received(h.received);
  wait_word(rt, "this host's PEs to write their transport addresses into the host's table", &h.published,
            [&] { return published.load(std::memory_order_acquire) >= mine; });
  const int next = hosts[static_cast<std::size_t>((my_host + 1) % nhosts)].lowest();
  for (int k = 0; k + 1 < nhosts; ++k) {
    if (k > 0)
      wait_word(rt, "the previous host's leader to pass on the transport addresses (the init's address ring)",
                &h.received, [&] { return received.load(std::memory_order_acquire) >= static_cast<std::uint64_t>(k); });
    for (const auto& [first, last] : hosts[static_cast<std::size_t>(ring_block(my_host, k, nhosts))].ranges)
      for (int pe = first; pe <= last; ++pe) {
        const char* s = slot(table, pe);
        const std::uint64_t off = table_off + static_cast<std::uint64_t>(s - table);
        remote.put(next, transport::Seg::kHeap, off, s, used_bytes(s), true, "shmem_init (address ring)");
      }
    remote.quiet(next);  // the slots are there before the count says so
    remote.signal_add(next, transport::Seg::kHeap, table_off + offsetof(Header, received), 1,
                      "shmem_init (address ring)");
  }
  if (nhosts > 1)
    wait_word(rt, "the previous host's leader to pass on the transport addresses (the init's address ring)",
              &h.received,
              [&] { return received.load(std::memory_order_acquire) >= static_cast<std::uint64_t>(nhosts - 1); });
  std::atomic_ref<std::uint64_t>(h.done).store(1, std::memory_order_release);
}

}  // namespace shmem::addr
