#pragma once
// RAII owners of the UCX handles the transport holds. Destruction order is the reverse of
// construction in UcxTransport: endpoints and rkeys, then memory mappings, then the worker,
// then the context.
#include <ucp/api/ucp.h>

#include <memory>
#include <string>

namespace shmem::transport::ucx {

struct ContextDeleter {
  void operator()(ucp_context_h c) const noexcept { ucp_cleanup(c); }
};
using Context = std::unique_ptr<std::remove_pointer_t<ucp_context_h>, ContextDeleter>;

struct WorkerDeleter {
  void operator()(ucp_worker_h w) const noexcept { ucp_worker_destroy(w); }
};
using Worker = std::unique_ptr<std::remove_pointer_t<ucp_worker_h>, WorkerDeleter>;

struct ConfigDeleter {
  void operator()(ucp_config_t* c) const noexcept { ucp_config_release(c); }
};
using Config = std::unique_ptr<ucp_config_t, ConfigDeleter>;

struct RkeyDeleter {
  void operator()(ucp_rkey_h k) const noexcept { ucp_rkey_destroy(k); }
};
using Rkey = std::unique_ptr<std::remove_pointer_t<ucp_rkey_h>, RkeyDeleter>;

// A registered memory region (ucp_mem_map of memory we own).
class MemMap {
 public:
  MemMap() = default;
  MemMap(ucp_context_h ctx, ucp_mem_h h) : ctx_(ctx), h_(h) {}
  MemMap(MemMap&& o) noexcept : ctx_(o.ctx_), h_(o.h_) { o.h_ = nullptr; }
  MemMap& operator=(MemMap&& o) noexcept {
    if (this != &o) {
      reset();
      ctx_ = o.ctx_;
      h_ = o.h_;
      o.h_ = nullptr;
    }
    return *this;
  }
  ~MemMap() { reset(); }
  ucp_mem_h get() const noexcept { return h_; }
  void reset() noexcept {
    if (h_) ucp_mem_unmap(ctx_, h_);
    h_ = nullptr;
  }

 private:
  ucp_context_h ctx_ = nullptr;
  ucp_mem_h h_ = nullptr;
};

// A packed rkey buffer (ucp_rkey_pack), copied out at once.
inline std::string packed_rkey(ucp_context_h ctx, ucp_mem_h memh, ucs_status_t* st) {
  void* buf = nullptr;
  size_t len = 0;
  *st = ucp_rkey_pack(ctx, memh, &buf, &len);
  if (*st != UCS_OK) return {};
  std::string out(static_cast<const char*>(buf), len);
  ucp_rkey_buffer_release(buf);
  return out;
}

// This worker's address, copied out at once.
inline std::string worker_address(ucp_worker_h w, ucs_status_t* st) {
  ucp_address_t* addr = nullptr;
  size_t len = 0;
  *st = ucp_worker_get_address(w, &addr, &len);
  if (*st != UCS_OK) return {};
  std::string out(reinterpret_cast<const char*>(addr), len);
  ucp_worker_release_address(w, addr);
  return out;
}

}  // namespace shmem::transport::ucx
