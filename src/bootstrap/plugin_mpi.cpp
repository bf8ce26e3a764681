#include "bootstrap/plugin_mpi.hpp"

#include <string>
#include <utility>

#include "bootstrap/plugin_loader.hpp"
#include "base/error.hpp"
#include "base/log.hpp"

namespace shmem::bootstrap {
namespace {

constexpr const char* kMode = "ACLSHMEMX_INIT_WITH_MPI";

[[noreturn]] void failed(const char* what, const char* err) {
  throw Error(Errc::kBootstrap, std::string(kMode) + ": " + what + ": " + (err[0] ? err : "unknown MPI error"));
}

}  // namespace

MpiLibrary::MpiLibrary() : fn_(mpi_plugin(kMode)) {
  char err[512] = {};
  int here = 0;
  if (fn_.init(&here, err, sizeof err) != 0)
    throw Error(Errc::kBootstrap, std::string(kMode) + ": " + (err[0] ? err : "MPI could not be initialised"));
  initialised_here_ = here != 0;
  SHMEM_DEBUG_LOG("init", "%s: %s", kMode,
                  initialised_here_ ? "MPI initialised by the library (it finalises MPI at the last finalize)"
                                    : "MPI already initialised by the program");
}

MpiLibrary::~MpiLibrary() {
  if (!initialised_here_) return;
  char err[512] = {};
  if (fn_.finalize(err, sizeof err) != 0) SHMEM_WARN("init", "%s: %s", kMode, err);
}

MpiComm::MpiComm(std::shared_ptr<MpiLibrary> lib, const void* comm) : lib_(std::move(lib)) {
  char err[512] = {};
  if (lib_->fn().comm_open(comm, &handle_, &rank_, &size_, err, sizeof err) != 0)
    failed(comm ? "attr->comm_args" : "MPI_COMM_WORLD", err);
}

MpiComm::~MpiComm() { lib_->fn().comm_close(handle_); }

bool MpiComm::all_true(bool mine) {
  char err[512] = {};
  int all = 0;
  if (lib_->fn().all_true(handle_, mine ? 1 : 0, &all, err, sizeof err) != 0) failed("agreeing on the attributes", err);
  return all != 0;
}

void MpiComm::bcast(void* buf, std::size_t bytes, int root) {
  char err[512] = {};
  if (lib_->fn().bcast(handle_, buf, bytes, root, err, sizeof err) != 0) failed("broadcasting the unique ID", err);
}

}  // namespace shmem::bootstrap
