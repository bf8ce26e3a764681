// libshmem_bootstrap_mpi.so: the MPI calls ACLSHMEMX_INIT_WITH_MPI needs, behind the C table of
// plugins/bootstrap_plugin_abi.h. Linked to libmpi; libshmem dlopen()s it only in that mode.
#include <mpi.h>

#include <climits>
#include <cstdarg>
#include <cstdio>
#include <new>

#include "plugins/bootstrap_plugin_abi.h"

namespace {

int fail(char* err, std::size_t err_len, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
int fail(char* err, std::size_t err_len, const char* fmt, ...) {
  if (err != nullptr && err_len > 0) {
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
  }
  return 1;
}

// "MPI_Bcast: MPI_ERR_COMM: invalid communicator" from an MPI return code.
int mpi_fail(char* err, std::size_t err_len, const char* call, int rc) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) std::snprintf(text, sizeof text, "error %d", rc);
  return fail(err, err_len, "%s failed: %s", call, text);
}

struct Comm {
  MPI_Comm comm = MPI_COMM_NULL;
};

int init(int* initialised_here, char* err, std::size_t err_len) {
  *initialised_here = 0;
  int finalized = 0, initialized = 0;
  MPI_Finalized(&finalized);
  if (finalized)
    return fail(err, err_len,
                "MPI has already been finalised in this process and cannot be initialised again (call MPI_Init in "
                "the program and MPI_Finalize after the last aclshmem_finalize to use several initialisations)");
  MPI_Initialized(&initialized);
  if (initialized) return 0;
  const int rc = MPI_Init(nullptr, nullptr);
  if (rc != MPI_SUCCESS) return mpi_fail(err, err_len, "MPI_Init", rc);
  *initialised_here = 1;
  return 0;
}

int comm_open(const void* comm, void** handle, int* rank, int* size, char* err, std::size_t err_len) {
  const MPI_Comm parent = comm != nullptr ? *static_cast<const MPI_Comm*>(comm) : MPI_COMM_WORLD;
  if (parent == MPI_COMM_NULL) return fail(err, err_len, "the communicator is MPI_COMM_NULL");
  auto* c = new (std::nothrow) Comm;
  if (c == nullptr) return fail(err, err_len, "out of memory");
  int rc = MPI_Comm_dup(parent, &c->comm);
  if (rc != MPI_SUCCESS) {
    delete c;
    return mpi_fail(err, err_len, "MPI_Comm_dup", rc);
  }
  MPI_Comm_set_errhandler(c->comm, MPI_ERRORS_RETURN);  // errors on it come back as codes
  if ((rc = MPI_Comm_rank(c->comm, rank)) != MPI_SUCCESS || (rc = MPI_Comm_size(c->comm, size)) != MPI_SUCCESS) {
    MPI_Comm_free(&c->comm);
    delete c;
    return mpi_fail(err, err_len, "MPI_Comm_rank/MPI_Comm_size", rc);
  }
  *handle = c;
  return 0;
}

int all_true(void* handle, int mine, int* all, char* err, std::size_t err_len) {
  int in = mine != 0 ? 1 : 0;
  const int rc = MPI_Allreduce(&in, all, 1, MPI_INT, MPI_MIN, static_cast<Comm*>(handle)->comm);
  return rc == MPI_SUCCESS ? 0 : mpi_fail(err, err_len, "MPI_Allreduce", rc);
}

int bcast(void* handle, void* buf, std::size_t bytes, int root, char* err, std::size_t err_len) {
  if (bytes > static_cast<std::size_t>(INT_MAX)) return fail(err, err_len, "broadcast of %zu bytes is too large", bytes);
  const int rc = MPI_Bcast(buf, static_cast<int>(bytes), MPI_BYTE, root, static_cast<Comm*>(handle)->comm);
  return rc == MPI_SUCCESS ? 0 : mpi_fail(err, err_len, "MPI_Bcast", rc);
}

void comm_close(void* handle) {
  auto* c = static_cast<Comm*>(handle);
  if (c == nullptr) return;
  MPI_Comm_free(&c->comm);
  delete c;
}

int finalize(char* err, std::size_t err_len) {
  const int rc = MPI_Finalize();
  return rc == MPI_SUCCESS ? 0 : mpi_fail(err, err_len, "MPI_Finalize", rc);
}

const shmem_mpi_plugin kTable = {
    SHMEM_PLUGIN_HEAD(SHMEM_PLUGIN_KIND_BOOTSTRAP_MPI, SHMEM_BOOTSTRAP_PLUGIN_ABI_VERSION, shmem_mpi_plugin),
    init,
    comm_open,
    all_true,
    bcast,
    comm_close,
    finalize};

}  // namespace

extern "C" __attribute__((visibility("default"))) const shmem_plugin_head* shmem_plugin_table(void) {
  return &kTable.head;
}
