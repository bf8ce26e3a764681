#include "core/boot_exchange.hpp"

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <map>
#include <tuple>

#include "core/cpus.hpp"

namespace shmem::boot {

std::string encode(const NodeKey& k) { return k.host + "\n" + k.kernel + "\n" + k.netns + "\n" + k.share; }

std::optional<NodeKey> decode_key(const std::string& text) {
  NodeKey k;
  std::string* fields[] = {&k.host, &k.kernel, &k.netns};
  std::size_t pos = 0;
  for (std::string* f : fields) {
    const std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) return std::nullopt;
    f->assign(text, pos, end - pos);
    pos = end + 1;
  }
  k.share.assign(text, pos, std::string::npos);
  return k;
}

bool HostEntry::contains(int pe) const noexcept {
  for (const auto& [first, last] : ranges)
    if (pe >= first && pe <= last) return true;
  return false;
}

int HostEntry::size() const noexcept {
  int n = 0;
  for (const auto& [first, last] : ranges) n += last - first + 1;
  return n;
}

HostTable group_hosts(const std::vector<NodeKey>& keys) {
  HostTable t;
  std::map<std::tuple<std::string, std::string, std::string>, std::size_t> index;
  std::map<std::string, std::vector<std::string>> shares;  // by kernel
  std::vector<std::string> kernel_of;                      // by host index
  for (int pe = 0; pe < static_cast<int>(keys.size()); ++pe) {
    const NodeKey& k = keys[static_cast<std::size_t>(pe)];
    auto [it, fresh] = index.emplace(std::make_tuple(k.host, k.kernel, k.netns), t.size());
    if (fresh) {
      t.push_back(HostEntry{k.host, {}, false});
      kernel_of.push_back(k.kernel);
    }
    auto& r = t[it->second].ranges;
    if (!r.empty() && r.back().second == pe - 1)
      r.back().second = pe;
    else
      r.emplace_back(pe, pe);
    shares[k.kernel].push_back(k.share);
  }
  std::map<std::string, bool> verdict;
  for (const auto& [kernel, s] : shares) verdict[kernel] = cpus::pes_outnumber_cpus(s);
  for (std::size_t h = 0; h < t.size(); ++h) t[h].oversubscribed = verdict[kernel_of[h]];
  return t;
}

std::string encode_entry(const HostEntry& h) {
  std::string out = h.name + "\t" + (h.oversubscribed ? "1" : "0") + "\t";
  for (std::size_t i = 0; i < h.ranges.size(); ++i) {
    if (i) out += ",";
    out += std::to_string(h.ranges[i].first);
    if (h.ranges[i].second != h.ranges[i].first) out += "-" + std::to_string(h.ranges[i].second);
  }
  return out + "\n";
}

namespace {

bool parse_int(std::string_view s, int* v) {
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
  return ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

// One line of encode_entry (without its newline); its ranges ascending, within 0..npes-1.
std::optional<HostEntry> decode_entry(std::string_view line, int npes) {
  const std::size_t t1 = line.find('\t'), t2 = line.find('\t', t1 == std::string_view::npos ? t1 : t1 + 1);
  if (t1 == std::string_view::npos || t2 == std::string_view::npos) return std::nullopt;
  HostEntry h;
  h.name = std::string(line.substr(0, t1));
  const std::string_view verdict = line.substr(t1 + 1, t2 - t1 - 1);
  if (verdict != "0" && verdict != "1") return std::nullopt;
  h.oversubscribed = verdict == "1";
  std::string_view ranges = line.substr(t2 + 1);
  while (!ranges.empty()) {
    const std::size_t comma = ranges.find(',');
    const std::string_view r = ranges.substr(0, comma);
    ranges = comma == std::string_view::npos ? std::string_view{} : ranges.substr(comma + 1);
    const std::size_t dash = r.find('-');
    int first = 0, last = 0;
    if (!parse_int(r.substr(0, dash), &first)) return std::nullopt;
    last = first;
    if (dash != std::string_view::npos && !parse_int(r.substr(dash + 1), &last)) return std::nullopt;
    if (first < 0 || last < first || last >= npes) return std::nullopt;
    if (!h.ranges.empty() && first <= h.ranges.back().second) return std::nullopt;
    h.ranges.emplace_back(first, last);
  }
  if (h.ranges.empty()) return std::nullopt;
  return h;
}

std::string encode(const HostTable& t) {
  std::string out = "H1\n";
  for (const HostEntry& h : t) out += encode_entry(h);
  return out;
}

std::optional<HostTable> decode_table(const std::string& text, int npes) {
  if (text.compare(0, 3, "H1\n") != 0) return std::nullopt;
  HostTable t;
  std::vector<char> seen(static_cast<std::size_t>(npes > 0 ? npes : 0), 0);
  int covered = 0;
  std::size_t pos = 3;
  while (pos < text.size()) {
    const std::size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) return std::nullopt;
    auto h = decode_entry(std::string_view(text.data() + pos, eol - pos), npes);
    pos = eol + 1;
    if (!h) return std::nullopt;
    for (const auto& [first, last] : h->ranges) {
      for (int pe = first; pe <= last; ++pe) {
        if (seen[static_cast<std::size_t>(pe)]) return std::nullopt;
        seen[static_cast<std::size_t>(pe)] = 1;
      }
      covered += last - first + 1;
    }
    t.push_back(std::move(*h));
  }
  if (covered != npes) return std::nullopt;
  return t;
}

std::string host_key(const NodeKey& k) {
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a, the same on every build
  for (const std::string* f : {&k.host, &k.kernel, &k.netns}) {
    for (unsigned char c : *f) h = (h ^ c) * 1099511628211ull;
    h = (h ^ 0xffu) * 1099511628211ull;  // a separator no field holds ("ab","c" != "a","bc")
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string encode_seen(const HostTable& t, std::size_t h) {
  bool ring = true;
  for (const HostEntry& e : t) ring = ring && encode_entry(e).size() <= kRingEntryBytes;
  return "S1 " + std::to_string(h) + " " + std::to_string(t.size()) + " " +
         std::to_string(t[(h + 1) % t.size()].lowest()) + " " + (ring ? "1" : "0") + "\n" + encode_entry(t[h]);
}

std::optional<HostSeen> decode_seen(const std::string& text, int npes) {
  if (text.compare(0, 3, "S1 ") != 0) return std::nullopt;
  const std::size_t eol = text.find('\n', 3);
  if (eol == std::string::npos || text.back() != '\n') return std::nullopt;
  // Four numbers: index, count, next leader, ring flag.
  int v[4] = {};
  std::string_view head(text.data() + 3, eol - 3);
  for (int i = 0; i < 4; ++i) {
    const std::size_t sp = i < 3 ? head.find(' ') : head.size();
    if (sp == std::string_view::npos || !parse_int(head.substr(0, sp), &v[i])) return std::nullopt;
    head = i < 3 ? head.substr(sp + 1) : std::string_view{};
  }
  HostSeen s;
  s.index = v[0];
  s.count = v[1];
  s.next_leader = v[2];
  if (s.count < 1 || s.index < 0 || s.index >= s.count || s.next_leader < 0 || s.next_leader >= npes ||
      (v[3] != 0 && v[3] != 1))
    return std::nullopt;
  s.ring_table = v[3] == 1;
  auto h = decode_entry(std::string_view(text).substr(eol + 1, text.size() - eol - 2), npes);
  if (!h) return std::nullopt;
  s.entry = std::move(*h);
  return s;
}

std::vector<int> host_index(const HostTable& t, int npes) {
  std::vector<int> out(static_cast<std::size_t>(npes), -1);
  for (std::size_t h = 0; h < t.size(); ++h)
    for (const auto& [first, last] : t[h].ranges)
      for (int pe = first; pe <= last; ++pe) out[static_cast<std::size_t>(pe)] = static_cast<int>(h);
  return out;
}

}  // namespace shmem::boot
