#include "base/error.hpp"

namespace shmem {

const char* errc_name(Errc c) noexcept {
  switch (c) {
    case Errc::kOk: return "ok";
    case Errc::kInvalidArgument: return "invalid argument";
    case Errc::kInvalidValue: return "invalid value";
    case Errc::kStore: return "store error";
    case Errc::kInternal: return "internal error";
    case Errc::kNotInitialized: return "not initialized";
    case Errc::kBootstrap: return "bootstrap error";
    case Errc::kTimeout: return "timeout";
    case Errc::kOutOfMemory: return "out of memory";
    case Errc::kPeerLost: return "peer lost";
    case Errc::kAuth: return "authentication failed";
    case Errc::kNotSupported: return "not supported";
  }
  return "unknown error";
}

}  // namespace shmem
