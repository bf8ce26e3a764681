#include "core/boot_data_pmix.hpp"

#include "base/error.hpp"

namespace shmem::core {

void PmixBootData::fence(bool collect, const char* step, const std::string& tag) {
  try {
    const std::string what = step + (tag.empty() ? std::string() : " '" + tag + "'");
    pmix_.fence(timeout_s_, collect, what.c_str());
  } catch (const Error& e) {
    throw Error(e.code(), "PE " + std::to_string(me_) + ": " + step + (tag.empty() ? "" : " '" + tag + "'") + ": " +
                              e.what() + " (the deadline is SHMEM_BOOTSTRAP_TIMEOUT)");
  }
}

std::vector<std::string> PmixBootData::gather(const std::string& name, const std::string& mine, const char* step) {
  pmix_.put_bytes(key(name), mine);
  fence(true, step, name);
  std::vector<std::string> all(static_cast<std::size_t>(npes_));
  for (int pe = 0; pe < npes_; ++pe)
    all[static_cast<std::size_t>(pe)] = pe == me_ ? mine : pmix_.get_bytes(pe, key(name), timeout_s_);
  return all;
}

// Every PE builds the host table itself from the N keys (boot::group_hosts is deterministic),
// so no PE waits for PE 0 to publish it.
boot::HostSeen PmixBootData::hosts(const boot::NodeKey& mine) {
  const std::vector<std::string> texts = gather("node", boot::encode(mine), "the exchange of host keys");
  std::vector<boot::NodeKey> keys(static_cast<std::size_t>(npes_));
  for (int pe = 0; pe < npes_; ++pe) {
    auto k = boot::decode_key(texts[static_cast<std::size_t>(pe)]);
    if (!k)
      throw Error(Errc::kBootstrap,
                  "PE " + std::to_string(pe) + " reported a malformed host key over PMIx (PEs of different builds?)");
    keys[static_cast<std::size_t>(pe)] = std::move(*k);
  }
  table_ = boot::group_hosts(keys);
  const int h = boot::host_index(table_, npes_)[static_cast<std::size_t>(me_)];
  const std::size_t n = table_.size();
  return boot::HostSeen{table_[static_cast<std::size_t>(h)], h, static_cast<int>(n),
                        table_[(static_cast<std::size_t>(h) + 1) % n].lowest(), true};
}

bool PmixBootData::all_placed(bool mine) {
  for (const std::string& v : gather("placed", mine ? "1" : "0", "the check of node-local peers"))
    if (v != "1") return false;
  return true;
}

void PmixBootData::barrier(const std::string& tag) { fence(false, "a barrier", tag); }

std::vector<std::string> PmixBootData::allgather(const std::string& tag, const std::string& mine) {
  return gather("ag." + tag, mine, "an allgather");
}

void PmixBootData::publish(const std::string& tag, const std::string& mine) {
  pmix_.put_bytes(key("xc." + tag), mine);
  fence(true, "the transport's exchange", tag);
}

std::string PmixBootData::fetch(const std::string& tag, int pe) {
  return pmix_.get_bytes(pe, key("xc." + tag), timeout_s_);
}

}  // namespace shmem::core
