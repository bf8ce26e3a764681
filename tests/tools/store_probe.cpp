// A stand-in PE for the launcher tests: talks to oshrun's store the way the runtime does
// (SHMEM_STORE_ADDR, SHMEM_BOOTSTRAP_TLS*, SHMEM_JOB_SECRET as the TLS secret) and then
// behaves as the mode asks, so the supervision paths can be checked without the library.
//   store_probe ok            barrier, exchange a key, goodbye, exit 0
//   store_probe no-goodbye    barrier, exit 0 without goodbye (a missing shmem_finalize)
//   store_probe lost-alive    PE 1 drops its connection and lives on; the rest sleep
//   store_probe global-exit   PE 0 requests global exit 7 and sleeps; the rest sleep
//   store_probe crash         PE 1 kills itself with SIGKILL after the barrier
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "bootstrap/store.hpp"
#include "base/config.hpp"

namespace {

using namespace shmem;
using namespace std::chrono_literals;

std::unique_ptr<bootstrap::StoreClient> connect(int rank) {
  bootstrap::TlsConfig tls;
  tls.enabled = parse_bool(config_raw("SHMEM_BOOTSTRAP_TLS"), "SHMEM_BOOTSTRAP_TLS");
  std::string info = config_raw("SHMEM_BOOTSTRAP_TLS_INFO");
  if (!info.empty()) tls.apply_tls_info(info);
  tls.secret = config_raw("SHMEM_JOB_SECRET");
  auto [host, port] = bootstrap::parse_host_port(config_raw("SHMEM_STORE_ADDR"), "SHMEM_STORE_ADDR");
  return std::make_unique<bootstrap::StoreClient>(host, port, tls, rank, 10s);
}

[[noreturn]] void sleep_forever() {
  for (;;) ::pause();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: store_probe MODE\n");
    return 2;
  }
  std::string mode = argv[1];
  try {
    const int pe = static_cast<int>(parse_int(config_raw("SHMEM_PE"), "SHMEM_PE"));
    const int npes = static_cast<int>(parse_int(config_raw("SHMEM_NPES"), "SHMEM_NPES"));
    std::printf("pid=%d\n", static_cast<int>(::getpid()));
    std::fflush(stdout);
    auto client = connect(pe);
    client->barrier("probe-start", npes, 10s);
    if (mode == "ok") {
      client->set("pe" + std::to_string(pe), std::to_string(pe * 10));
      std::string peer = client->get("pe" + std::to_string((pe + 1) % npes), 10s);
      std::printf("pe=%d peer=%s\n", pe, peer.c_str());
      std::fflush(stdout);
      client->barrier("probe-end", npes, 10s);
      client->goodbye();
      return 0;
    }
    if (mode == "no-goodbye") ::_exit(0);
    if (mode == "lost-alive") {
      if (pe == 1) client.reset();
      sleep_forever();
    }
    if (mode == "global-exit") {
      if (pe == 0) client->global_exit(7);
      sleep_forever();
    }
    if (mode == "crash") {
      if (pe == 1) ::raise(SIGKILL);
      sleep_forever();
    }
    std::fprintf(stderr, "store_probe: unknown mode '%s'\n", mode.c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "store_probe: %s\n", e.what());
    return 1;
  }
}
