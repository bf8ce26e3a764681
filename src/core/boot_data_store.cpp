#include "core/boot_data_store.hpp"

#include <cstdint>
#include <cstring>

#include "base/error.hpp"

namespace shmem::core {

// Every PE's host without an all-to-all through the store: each PE sets its key (O(N) bytes
// in), PE 0 reads them all (O(N)) and publishes the host table and, under each host's key, that
// host's entry; each PE reads its host's entry (core/boot_exchange.hpp). The others wait on a
// counter, not on every PE's key.
boot::HostSeen StoreBootData::hosts(const boot::NodeKey& mine) {
  const std::string prefix = "boot/node/";
  const int me = wait_.me, npes = wait_.npes;
  store().set(prefix + std::to_string(me), boot::encode(mine));
  store().add("boot/arrived", 1);  // what the waiting PEs read (PE 0 reads every key)
  const std::string my_key = "boot/host/" + boot::host_key(mine);
  std::string text;
  if (me == 0) {
    std::vector<boot::NodeKey> keys(static_cast<std::size_t>(npes));
    keys[0] = mine;
    for (int pe = 1; pe < npes; ++pe) {
      auto k = boot::decode_key(wait_.await(prefix + std::to_string(pe), prefix));
      if (!k)
        throw Error(Errc::kStore,
                    "PE " + std::to_string(pe) + " reported a malformed host key (PEs of different builds?)");
      keys[static_cast<std::size_t>(pe)] = std::move(*k);
    }
    const boot::HostTable t = boot::group_hosts(keys);
    store().set("boot/hosts", boot::encode(t));
    // Each host's entry under its key; PE 0's own last, so that it reads its entry back only
    // once every other host's is there.
    for (std::size_t h = 0; h < t.size(); ++h)
      if (t[h].lowest() != 0)
        store().set("boot/host/" + boot::host_key(keys[static_cast<std::size_t>(t[h].lowest())]),
                    boot::encode_seen(t, h));
    text = boot::encode_seen(t, 0);
    store().set(my_key, text);
  } else {
    text = wait_.await(my_key, prefix, "boot/arrived");
  }
  auto seen = boot::decode_seen(text, npes);
  if (!seen || !seen->entry.contains(me))
    throw Error(Errc::kStore, "the host entry PE 0 published is malformed (PEs of different builds?)");
  return std::move(*seen);
}

boot::HostTable StoreBootData::host_table() {
  auto table = boot::decode_table(store().get("boot/hosts", timeout_), wait_.npes);
  if (!table) throw Error(Errc::kStore, "the host table PE 0 published is malformed (PEs of different builds?)");
  return std::move(*table);
}

// O(1) store round trips per PE: a count of the PEs that missed some of their host's PEs.
bool StoreBootData::all_placed(bool mine) {
  if (!mine) store().add("boot/unreached", 1);
  store().barrier("boot/placed", wait_.npes, timeout_);
  return store().add("boot/unreached", 0) == 0;
}

void StoreBootData::barrier(const std::string& tag) { store().barrier(tag, wait_.npes, timeout_); }

// Every PE's blob, by PE, in O(N) store round trips: each PE sets its own key, PE 0 collects
// them all and publishes the concatenation, everyone else reads that one key.
std::vector<std::string> StoreBootData::allgather(const std::string& tag, const std::string& mine) {
  const std::string prefix = "ag/" + tag + "/";
  const int me = wait_.me, npes = wait_.npes;
  std::vector<std::string> all(static_cast<std::size_t>(npes));
  std::string packed;
  if (me == 0) {
    all[0] = mine;
    for (int pe = 1; pe < npes; ++pe)
      all[static_cast<std::size_t>(pe)] = store().get(prefix + std::to_string(pe), timeout_);
    for (const auto& v : all) {
      const std::uint64_t n = v.size();
      packed.append(reinterpret_cast<const char*>(&n), sizeof n);
      packed += v;
    }
    store().set(prefix + "all", packed);
    return all;
  }
  store().set(prefix + std::to_string(me), mine);
  packed = store().get(prefix + "all", timeout_);
  std::size_t pos = 0;
  for (auto& v : all) {
    std::uint64_t n = 0;
    if (packed.size() - pos < sizeof n) throw Error(Errc::kStore, "malformed allgather '" + tag + "' from the store");
    std::memcpy(&n, packed.data() + pos, sizeof n);
    pos += sizeof n;
    if (packed.size() - pos < n) throw Error(Errc::kStore, "malformed allgather '" + tag + "' from the store");
    v.assign(packed, pos, n);
    pos += n;
  }
  return all;
}

namespace {
std::string exchange_key(const std::string& tag, int pe) { return "xc/" + tag + "/" + std::to_string(pe); }
}  // namespace

void StoreBootData::publish(const std::string& tag, const std::string& mine) {
  store().set(exchange_key(tag, wait_.me), mine);
}

std::string StoreBootData::fetch(const std::string& tag, int pe) {
  return store().get(exchange_key(tag, pe), timeout_);
}

}  // namespace shmem::core
