#pragma once
// ACLSHMEMX_INIT_WITH_MPI through libshmem_bootstrap_mpi.so: MPI kept initialised for the
// library, and the application's communicator for the one broadcast of a unique ID.
#include <cstddef>
#include <memory>

#include "plugins/bootstrap_plugin_abi.h"

namespace shmem::bootstrap {

// While alive, MPI is initialised. If MPI was not initialised when this was made, it called
// MPI_Init and its destructor calls MPI_Finalize (Ascend SHMEM's rule: the library finalises MPI
// only when it initialised it). One per process at a time, shared by every MPI-mode instance.
class MpiLibrary {
 public:
  MpiLibrary();  // throws Error (plugin missing, MPI already finalised, MPI_Init failed)
  ~MpiLibrary();
  MpiLibrary(const MpiLibrary&) = delete;
  MpiLibrary& operator=(const MpiLibrary&) = delete;

  const shmem_mpi_plugin& fn() const noexcept { return fn_; }
  bool initialised_here() const noexcept { return initialised_here_; }
  // The job failed (a PE exits with a non-zero status): MPI_Finalize is collective and would
  // wait for processes that are gone or going, so the destructor leaves MPI as it is.
  void abandon() noexcept { initialised_here_ = false; }

 private:
  const shmem_mpi_plugin& fn_;
  bool initialised_here_ = false;
};

// A duplicate of the application's communicator (MPI_Comm*, nullptr = MPI_COMM_WORLD), freed on
// destruction. Every call is collective over it; each throws Error(kBootstrap) on failure.
class MpiComm {
 public:
  MpiComm(std::shared_ptr<MpiLibrary> lib, const void* comm);
  ~MpiComm();
  MpiComm(const MpiComm&) = delete;
  MpiComm& operator=(const MpiComm&) = delete;

  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }
  bool all_true(bool mine);  // true when every member passed true
  void bcast(void* buf, std::size_t bytes, int root);

 private:
  std::shared_ptr<MpiLibrary> lib_;
  void* handle_ = nullptr;
  int rank_ = -1;
  int size_ = 0;
};

}  // namespace shmem::bootstrap
