#include "core/boot_data_store.hpp"

#include <cstdint>
#include <cstring>

#include "base/error.hpp"

namespace shmem::core {

// Every PE's host without an all-to-all through the store: each PE sets its key (O(N) bytes
// in), PE 0 reads them all (O(N)) and publishes the host table, O(hosts) bytes that every PE
// reads (core/boot_exchange.hpp). The others wait on a counter, not on every PE's key.
boot::HostTable StoreBootData::hosts(const boot::NodeKey& mine) {
  const std::string prefix = "boot/node/";
  const int me = wait_.me, npes = wait_.npes;
  store().set(prefix + std::to_string(me), boot::encode(mine));
  store().add("boot/arrived", 1);  // what the waiting PEs read (PE 0 reads every key)
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
    text = boot::encode(boot::group_hosts(keys));
    store().set("boot/hosts", text);
  } else {
    text = wait_.await("boot/hosts", prefix, "boot/arrived");
  }
  auto table = boot::decode_table(text, npes);
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
