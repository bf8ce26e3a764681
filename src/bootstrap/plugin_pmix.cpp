#include "bootstrap/plugin_pmix.hpp"

#include <openssl/rand.h>
#include <unistd.h>

#include <cmath>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "bootstrap/plugin_loader.hpp"
#include "base/error.hpp"
#include "base/log.hpp"
#include "bootstrap/store_address.hpp"
#include "util/ticker.hpp"

namespace shmem::bootstrap {
namespace {

constexpr const char* kPurpose = "shmem_init under a PMIx launcher (mpirun)";
constexpr const char* kFormat = "shmem1";  // first word of the published value
constexpr std::size_t kMaxValue = 1024;
// Rank 0's progress lines in a fence (the same rhythm as core/arrivals.cpp's).
constexpr util::Ticker::Millis kFirstProgress{5000};
constexpr util::Ticker::Millis kProgressEvery{15000};

int seconds(double s) { return s <= 1 ? 1 : (s >= 1e6 ? 1000000 : static_cast<int>(std::ceil(s))); }

std::string random_hex(std::size_t bytes) {
  std::vector<unsigned char> b(bytes);
  if (RAND_bytes(b.data(), static_cast<int>(b.size())) != 1) throw Error(Errc::kInternal, "RAND_bytes failed");
  static const char* d = "0123456789abcdef";
  std::string s;
  for (unsigned char c : b) {
    s += d[c >> 4];
    s += d[c & 15];
  }
  return s;
}

std::string this_host() {
  char h[256] = {};
  ::gethostname(h, sizeof h - 1);
  return h[0] ? h : "localhost";
}

// "shmem1 <store host> <port> <job id> <secret hex or -> <host name>" or "error <reason>".
struct Published {
  std::string store_host, job_id, secret, host;
  int port = 0;
};

Published parse(const std::string& value) {
  std::istringstream in(value);
  std::string word;
  in >> word;
  if (word == "error") {
    std::string why;
    std::getline(in >> std::ws, why);
    throw Error(Errc::kBootstrap, "PE 0 could not start the bootstrap store: " + why);
  }
  Published p;
  if (word != kFormat || !(in >> p.store_host >> p.port >> p.job_id >> p.secret >> p.host) || p.port <= 0 ||
      p.port > 65535)
    throw Error(Errc::kBootstrap, "PE 0 published an unreadable bootstrap address over PMIx: '" + value +
                                      "' (a different shmem version on PE 0?)");
  return p;
}

}  // namespace

PmixClient::PmixClient() : fn_(pmix_plugin(kPurpose)) {
  char err[512] = {};
  char ns[256] = {};
  unsigned rank = 0, size = 0;
  if (fn_.init(&rank, &size, ns, sizeof ns, err, sizeof err) != 0)
    throw Error(Errc::kBootstrap, std::string(kPurpose) + ": " + err);
  rank_ = static_cast<int>(rank);
  size_ = static_cast<int>(size);
  nspace_ = ns;
  SHMEM_DEBUG_LOG("init", "PMIx: rank %d of %d in namespace %s", rank_, size_, nspace_.c_str());
}

PmixClient::~PmixClient() { fn_.finalize(); }

void PmixClient::put(const std::string& key, const std::string& value) {
  char err[512] = {};
  if (fn_.put(key.c_str(), value.c_str(), err, sizeof err) != 0)
    throw Error(Errc::kBootstrap, std::string(kPurpose) + ": " + err);
}

template <class Call>
void PmixClient::with_progress(double timeout_s, const char* what, Call call) {
  std::optional<util::Ticker> progress;
  if (rank_ == 0 && size_ > 1)  // one line per job, not one per rank
    progress.emplace(kFirstProgress, kProgressEvery, [this, timeout_s, what](util::Ticker::Millis waited) {
      SHMEM_WARN("init",
                 "PE 0: waiting in %s (a PMIx fence) for %lld s of %d s: it ends once all %d PEs of the job have "
                 "reached it; a PE that has not called shmem_init yet keeps it waiting (the deadline is "
                 "SHMEM_BOOTSTRAP_TIMEOUT)",
                 what, static_cast<long long>((waited.count() + 500) / 1000), seconds(timeout_s), size_);
    });
  char err[512] = {};
  if (call(err, sizeof err) != 0) throw Error(Errc::kBootstrap, std::string(kPurpose) + ": " + err);
}

void PmixClient::fence(double timeout_s, const char* what) {
  with_progress(timeout_s, what, [&](char* err, std::size_t len) { return fn_.fence(seconds(timeout_s), err, len); });
}

std::string PmixClient::get(int rank, const std::string& key, double timeout_s) {
  char err[512] = {};
  std::vector<char> out(kMaxValue);
  if (fn_.get(static_cast<unsigned>(rank), key.c_str(), seconds(timeout_s), out.data(), out.size(), err,
              sizeof err) != 0)
    throw Error(Errc::kBootstrap, std::string(kPurpose) + ": " + err);
  return out.data();
}

void PmixClient::put_bytes(const std::string& key, const std::string& value) {
  char err[512] = {};
  if (fn_.put_bytes(key.c_str(), value.data(), value.size(), err, sizeof err) != 0)
    throw Error(Errc::kBootstrap, std::string(kPurpose) + ": " + err);
}

void PmixClient::fence(double timeout_s, bool collect, const char* what) {
  with_progress(timeout_s, what, [&](char* err, std::size_t len) {
    return fn_.fence_opt(collect ? 1 : 0, seconds(timeout_s), err, len);
  });
}

std::string PmixClient::get_bytes(int rank, const std::string& key, double timeout_s) {
  char err[512] = {};
  struct Out {
    std::string value;
    bool copied = false;
  } out;
  auto sink = [](void* arg, const void* data, std::size_t len) noexcept {  // called from C: throws nothing
    auto* o = static_cast<Out*>(arg);
    try {
      o->value.assign(static_cast<const char*>(data), len);
      o->copied = true;
    } catch (...) {}
  };
  if (fn_.get_bytes(static_cast<unsigned>(rank), key.c_str(), seconds(timeout_s), sink, &out, err, sizeof err) != 0)
    throw Error(Errc::kBootstrap, std::string(kPurpose) + ": " + err);
  if (!out.copied) throw Error(Errc::kBootstrap, std::string(kPurpose) + ": no memory for PMIx value '" + key + "'");
  return std::move(out.value);
}

void adopt_pmix_ranks(const PmixClient& pmix, LaunchSpec& l) {
  if (l.npes <= 0) {  // launched by a PMIx process manager that sets no rank variables of its own
    if (pmix.size() <= 0 || pmix.rank() < 0 || pmix.rank() >= pmix.size())
      throw Error(Errc::kBootstrap, "PMIx reports rank " + std::to_string(pmix.rank()) + " of " +
                                        std::to_string(pmix.size()) + " processes");
    l.pe = pmix.rank();
    l.npes = pmix.size();
    return;
  }
  if (l.pe != pmix.rank() || l.npes != pmix.size())
    throw Error(Errc::kBootstrap, std::string("the launcher's variables say PE ") + std::to_string(l.pe) + " of " +
                                      std::to_string(l.npes) + " (" + l.origin + ") but PMIx says rank " +
                                      std::to_string(pmix.rank()) + " of " + std::to_string(pmix.size()));
}

std::unique_ptr<StoreServer> meet_over_pmix(PmixClient& pmix, LaunchSpec& l, const std::string& key,
                                            double timeout_s) {
  std::unique_ptr<StoreServer> server;
  const std::string host = this_host();
  if (l.pe == 0) {
    std::string value;
    try {
      StoreServer::Options o;
      // PEs may run on other hosts: listen on every interface and publish the address they
      // reach us at (bootstrap/store_address.hpp).
      o.bind_host = "0.0.0.0";
      o.port = 0;
      o.tls = l.tls;
      const bool fresh_secret = o.tls.secret.empty();
      if (fresh_secret) o.tls.secret = random_hex(32);
      server = std::make_unique<StoreServer>(o);
      value = std::string(kFormat) + " " + reachable_store_address() + " " + std::to_string(server->port()) + " m" +
              random_hex(8) + " " + (fresh_secret ? o.tls.secret : "-") + " " + host;
    } catch (const std::exception& e) {
      server.reset();
      value = std::string("error ") + e.what();
    }
    pmix.put(key, value);
  }
  pmix.fence(timeout_s, "the rendezvous of shmem_init");
  const Published got = parse(pmix.get(0, key, timeout_s));
  // PE 0 on this host: reach its store over loopback (its published address may be one that
  // only other hosts use).
  l.store_host = got.host == host ? std::string("127.0.0.1") : got.store_host;
  l.store_port = static_cast<std::uint16_t>(got.port);
  l.host_store = false;  // rank 0 hands its server over; nobody else starts one
  l.job_id = got.job_id;
  if (got.secret != "-") l.tls.secret = got.secret;
  SHMEM_DEBUG_LOG("init", "PMIx rendezvous: store at %s:%d, job %s", l.store_host.c_str(), got.port,
                  l.job_id.c_str());
  return server;
}

}  // namespace shmem::bootstrap
