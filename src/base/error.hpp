#pragma once
#include <stdexcept>
#include <string>

namespace shmem {

// Error codes shared by every layer; the C boundary maps them to return codes.
enum class Errc : int {
  kOk = 0,
  kInvalidArgument = -1,
  kInvalidValue = -2,
  kStore = -3,
  kInternal = -4,
  kNotInitialized = -5,
  kBootstrap = -6,
  kTimeout = -7,
  kOutOfMemory = -8,
  kPeerLost = -12,
  kAuth = -13,
  kNotSupported = -100,
};

const char* errc_name(Errc c) noexcept;

// Set-up code throws this; the data path never does.
class Error : public std::runtime_error {
 public:
  Error(Errc code, const std::string& msg) : std::runtime_error(msg), code_(code) {}
  Errc code() const noexcept { return code_; }

 private:
  Errc code_;
};

}  // namespace shmem
