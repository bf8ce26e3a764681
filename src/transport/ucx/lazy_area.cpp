// The collective area's registration where used (transport::Setup::heap_lazy_from): a PE
// registers the heap from there on only when the core calls expose_lazy() (it is about to be
// written there by other hosts) and publishes the packed key in a mailbox of its heap; a peer's
// first operation on that part of another PE's heap reads the mailbox (connect_lazy), waiting
// until the key is there. docs/design.md, "Leader channel".
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

#include "transport/ucx/ucx_transport_impl.hpp"

namespace shmem::transport::ucx {

void UcxTransport::expose_lazy() noexcept {
  std::lock_guard<std::mutex> once(expose_mu_);
  if (lazy_registered_ || lazy_from_ == SIZE_MAX) return;
  const std::size_t bytes = seg_size_[0] - lazy_from_;
  std::string key, error;
  {
    std::lock_guard<std::mutex> lk(mu_);
    ucp_mem_map_params_t mp{};
    mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH | UCP_MEM_MAP_PARAM_FIELD_FLAGS;
    mp.address = seg_base_[0] + lazy_from_;
    mp.length = bytes;
    // Where the network registers on demand (ODP), only the pages collectives touch get pinned.
    mp.flags = UCP_MEM_MAP_NONBLOCK;
    ucp_mem_h memh = nullptr;
    ucs_status_t st = ucp_mem_map(ctx_.get(), &mp, &memh);
    if (st == UCS_OK) {
      lazy_mem_ = MemMap(ctx_.get(), memh);
      key = packed_rkey(ctx_.get(), memh, &st);
      if (st != UCS_OK) error = std::string("ucp_rkey_pack failed: ") + ucs_status_string(st);
    } else {
      error = std::string("ucp_mem_map failed: ") + ucs_status_string(st);
    }
  }
  if (error.empty() && key.size() + sizeof(std::uint64_t) > setup_.lazy_key_bytes)
    error = "its packed key takes " + std::to_string(key.size()) + " bytes, more than the " +
            std::to_string(setup_.lazy_key_bytes - sizeof(std::uint64_t)) + " its heap has room for";
  if (!error.empty()) {
    setup_.fatal("the UCX transport cannot register PE " + std::to_string(setup_.me) + "'s collective area (" +
                 std::to_string(bytes >> 10) + " KiB): " + error);
    std::abort();  // fatal does not return
  }
  // The key, then its length: a peer that reads a length reads the key after it (connect_lazy).
  char* box = seg_base_[0] + setup_.lazy_key_off;
  std::memcpy(box + sizeof(std::uint64_t), key.data(), key.size());
  std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t*>(box)).store(key.size(), std::memory_order_release);
  lazy_registered_ = bytes;
}

void UcxTransport::connect_lazy(Peer& p) noexcept {
  std::lock_guard<std::mutex> once(p.lazy_mu);
  if (p.lazy_ready.load(std::memory_order_acquire)) return;
  const char* what = "reading a peer's collective area key";
  const auto start = std::chrono::steady_clock::now();
  long nap_ns = 1000;
  bool warned = false;
  for (;;) {
    std::uint64_t len = 0;
    get(p.pe, Seg::kHeap, setup_.lazy_key_off, &len, sizeof len, false, what);
    if (len != 0) {
      std::string error;
      if (len + sizeof len > setup_.lazy_key_bytes) {
        error = "it published a key of " + std::to_string(len) + " bytes (a different build of the library?)";
      } else {
        std::string key(static_cast<std::size_t>(len), '\0');
        get(p.pe, Seg::kHeap, setup_.lazy_key_off + sizeof len, key.data(), key.size(), false, what);
        std::lock_guard<std::mutex> lk(mu_);
        ucp_rkey_h k = nullptr;
        const ucs_status_t st = ucp_ep_rkey_unpack(p.ep, key.data(), &k);
        if (st == UCS_OK)
          p.lazy_rkey.reset(k);
        else
          error = std::string("ucp_ep_rkey_unpack failed: ") + ucs_status_string(st);
      }
      if (!error.empty()) {
        setup_.fatal("the UCX transport cannot reach the collective area of " + peer_name(p.pe) + ": " + error);
        std::abort();  // fatal does not return
      }
      p.lazy_ready.store(true, std::memory_order_release);
      return;
    }
    // Not exposed yet: the peer has not entered the collective (or the init step) that does.
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (setup_.wait_timeout_s > 0 && waited > setup_.wait_timeout_s) {
      setup_.fatal("a collective timed out after " + std::to_string(static_cast<long>(setup_.wait_timeout_s)) +
                   " s (SHMEM_WAIT_TIMEOUT) waiting for " + peer_name(p.pe) +
                   " to enter it (to register its collective area)");
      std::abort();
    }
    if (!warned && waited > 30 && setup_.log) {
      warned = true;
      setup_.log(2, "waiting since 30 s for " + peer_name(p.pe) +
                        " to enter a collective across hosts (to register its collective area)");
    }
    if (nap_ns < 100000)
      idle(nap_ns);
    else  // a peer late by more than a few round trips: poll it at most every millisecond
      std::this_thread::sleep_for(std::chrono::nanoseconds(nap_ns));
    nap_ns = std::min(nap_ns * 2, 1000000L);
  }
}

}  // namespace shmem::transport::ucx
