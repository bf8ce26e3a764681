#include "oshrun/agent_protocol.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "oshrun/remote.hpp"

namespace oshrun {
namespace {

constexpr std::string_view kJobMagic = "SHMEM-AGENT 1 ";
constexpr std::size_t kHeaderSize = 13;
// A job (environment, rank ranges, the hosts below) larger than this is refused.
constexpr std::size_t kMaxJobBytes = 64u << 20;
constexpr std::size_t kMaxFrameData = 16u << 20;

// "0-3,8,10-11": ranks are mostly consecutive, so a host's list stays short.
std::string encode_ranks(const std::vector<int>& ranks) {
  std::string s;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!s.empty()) s += ',';
    s += std::to_string(ranks[i]);
    if (j > i) s += "-" + std::to_string(ranks[j]);
    i = j + 1;
  }
  return s;
}

int to_int(const std::string& s) {
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || errno != 0 || v < -1 || v > (1L << 24))
    throw std::runtime_error("bad number '" + s + "'");
  return static_cast<int>(v);
}

std::vector<int> decode_ranks(const std::string& s) {
  std::vector<int> ranks;
  std::size_t start = 0;
  while (start < s.size()) {
    std::size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    std::string item = s.substr(start, comma - start);
    std::size_t dash = item.find('-');
    int first = to_int(item.substr(0, dash));
    int last = dash == std::string::npos ? first : to_int(item.substr(dash + 1));
    if (first < 0 || last < first) throw std::runtime_error("bad rank range '" + item + "'");
    for (int r = first; r <= last; ++r) ranks.push_back(r);
    start = comma + 1;
  }
  return ranks;
}

void put(std::string& out, std::string_view s) {
  out += s;
  out += '\0';
}

class Fields {
 public:
  explicit Fields(const std::string& payload) : p_(payload) {}
  std::string next() {
    std::size_t nul = p_.find('\0', pos_);
    if (nul == std::string::npos) throw std::runtime_error("truncated job");
    std::string s = p_.substr(pos_, nul - pos_);
    pos_ = nul + 1;
    return s;
  }
  int next_int() { return to_int(next()); }
  bool done() const { return pos_ == p_.size(); }

 private:
  const std::string& p_;
  std::size_t pos_ = 0;
};

bool read_exact(int fd, char* buf, std::size_t n) {
  std::size_t got = 0;
  while (got < n) {
    ssize_t r = ::read(fd, buf + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    got += static_cast<std::size_t>(r);
  }
  return true;
}

void put_u32(std::string& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((v >> shift) & 0xff);
}

std::uint32_t get_u32(const char* p) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

}  // namespace

std::string encode_agent_job(const AgentJob& job) {
  std::string p;
  put(p, job.cwd);
  put(p, std::to_string(job.fanout));
  put(p, job.oshrun_path);
  put(p, std::to_string(job.rsh.size()));
  for (const auto& w : job.rsh) put(p, w);
  put(p, encode_ranks(job.ranks));
  put(p, std::to_string(job.subtree.size()));
  for (const auto& h : job.subtree) {
    put(p, h.host);
    put(p, encode_ranks(h.ranks));
  }
  put(p, std::to_string(job.env.size()));
  for (const auto& e : job.env) put(p, e);
  std::string block = std::string(kJobMagic) + std::to_string(p.size()) + "\n" + p;
  std::memset(p.data(), 0, p.size());  // it held the secret
  return block;
}

AgentJob read_agent_job(int fd) {
  std::string header;
  for (char c = 0; header.size() < 64;) {
    if (!read_exact(fd, &c, 1)) break;
    if (c == '\n') break;
    header += c;
  }
  if (!header.starts_with(kJobMagic)) throw std::runtime_error("no job header");
  std::string count = header.substr(kJobMagic.size());
  char* end = nullptr;
  unsigned long long n = std::strtoull(count.c_str(), &end, 10);
  if (count.empty() || *end != '\0' || n == 0 || n > kMaxJobBytes) throw std::runtime_error("bad job size");
  std::string payload(static_cast<std::size_t>(n), '\0');
  if (!read_exact(fd, payload.data(), payload.size())) throw std::runtime_error("truncated job");
  AgentJob job;
  try {
    Fields f(payload);
    job.cwd = f.next();
    job.fanout = f.next_int();
    job.oshrun_path = f.next();
    for (int i = 0, k = f.next_int(); i < k; ++i) job.rsh.push_back(f.next());
    job.ranks = decode_ranks(f.next());
    for (int i = 0, k = f.next_int(); i < k; ++i) {
      HostPlan h;
      h.host = f.next();
      h.ranks = decode_ranks(f.next());
      job.subtree.push_back(std::move(h));
    }
    for (int i = 0, k = f.next_int(); i < k; ++i) job.env.push_back(f.next());
    if (!f.done()) throw std::runtime_error("trailing bytes");
  } catch (...) {
    std::memset(payload.data(), 0, payload.size());
    throw;
  }
  std::memset(payload.data(), 0, payload.size());
  if (job.fanout < 1) throw std::runtime_error("bad fan-out");
  return job;
}

std::vector<TreeBranch> split_tree(const std::vector<HostPlan>& hosts, int fanout) {
  const std::size_t direct = std::min(hosts.size(), static_cast<std::size_t>(std::max(fanout, 1)));
  std::vector<TreeBranch> out(direct);
  const std::size_t rest = hosts.size() - direct;
  std::size_t next = direct;
  for (std::size_t i = 0; i < direct; ++i) {
    out[i].host = hosts[i];
    // Equal shares, the first ones one larger, in the order listed.
    std::size_t share = rest / direct + (i < rest % direct ? 1 : 0);
    out[i].subtree.assign(hosts.begin() + static_cast<std::ptrdiff_t>(next),
                          hosts.begin() + static_cast<std::ptrdiff_t>(next + share));
    next += share;
  }
  return out;
}

std::string agent_command_line(const std::string& oshrun_path, const std::string& host,
                               const std::vector<std::string>& command) {
  std::string line =
      shell_quote(oshrun_path) + " " + std::string(kHostAgentOption) + " --host " + shell_quote(host) + " --";
  for (const auto& w : command) line += " " + shell_quote(w);
  return line;
}

std::string encode_frame(FrameType type, int rank, int value, std::string_view data) {
  std::string out;
  out.reserve(kHeaderSize + data.size());
  out += static_cast<char>(type);
  put_u32(out, static_cast<std::uint32_t>(rank));
  put_u32(out, static_cast<std::uint32_t>(value));
  put_u32(out, static_cast<std::uint32_t>(data.size()));
  out += data;
  return out;
}

void FrameReader::feed(const char* data, std::size_t n) {
  if (pos_ > 0 && (pos_ == buf_.size() || pos_ > 65536)) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  buf_.append(data, n);
  while (!up_ && !corrupt_) {
    std::size_t nl = buf_.find('\n', pos_);
    if (nl == std::string::npos) {
      if (buf_.size() - pos_ > 4096) corrupt_ = true;  // no hello: not our agent
      return;
    }
    std::string_view line(buf_.data() + pos_, nl + 1 - pos_);
    pos_ = nl + 1;
    if (line == kAgentHello)
      up_ = true;
    else
      junk_ += line;
  }
}

std::optional<Frame> FrameReader::next() {
  if (!up_ || corrupt_ || buf_.size() - pos_ < kHeaderSize) return std::nullopt;
  const char* h = buf_.data() + pos_;
  const std::uint32_t len = get_u32(h + 9);
  const char t = h[0];
  if (len > kMaxFrameData || (t != 'O' && t != 'E' && t != 'o' && t != 'e' && t != 'X' && t != 'L')) {
    corrupt_ = true;
    return std::nullopt;
  }
  if (buf_.size() - pos_ < kHeaderSize + len) return std::nullopt;
  Frame f;
  f.type = static_cast<FrameType>(t);
  f.rank = static_cast<int>(get_u32(h + 1));
  f.value = static_cast<int>(get_u32(h + 5));
  f.data.assign(h + kHeaderSize, len);
  pos_ += kHeaderSize + len;
  if (pos_ == buf_.size()) {
    buf_.clear();
    pos_ = 0;
  }
  return f;
}

std::string FrameReader::take_junk() { return std::exchange(junk_, {}); }

}  // namespace oshrun
