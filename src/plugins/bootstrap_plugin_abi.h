/* The C interface between libshmem and its bootstrap plugins.
 *
 * libshmem never links an MPI or PMIx library. Where one is needed it dlopen()s a plugin that
 * does (installed next to libshmem.so, built only when the library was found at configure time)
 * and asks it for its table of functions by the one symbol every plugin exports,
 * shmem_plugin_table() (plugin_head.h):
 *
 *   libshmem_bootstrap_mpi.so    kind BOOTSTRAP_MPI    ACLSHMEMX_INIT_WITH_MPI
 *   libshmem_bootstrap_pmix.so   kind BOOTSTRAP_PMIX   shmem_init under mpirun (PMIx)
 *
 * Conventions: functions return 0 on success; on failure they return nonzero and write a
 * NUL-terminated reason into err[0..err_len) (err may be NULL when err_len is 0). Nothing here
 * throws. Every table starts with the common head (kind, abi_version, size); the loader
 * refuses another kind or version, or a smaller table.
 */
#ifndef SHMEM_PLUGINS_BOOTSTRAP_PLUGIN_ABI_H
#define SHMEM_PLUGINS_BOOTSTRAP_PLUGIN_ABI_H

#include <stddef.h>

#include "plugins/plugin_head.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 2: the common head replaced `unsigned abi_version` and the per-plugin symbols. */
#define SHMEM_BOOTSTRAP_PLUGIN_ABI_VERSION 2u

/* ---- MPI: a communicator used only while an instance is being set up ----------------------- */
typedef struct shmem_mpi_plugin {
  shmem_plugin_head head; /* SHMEM_PLUGIN_KIND_BOOTSTRAP_MPI, SHMEM_BOOTSTRAP_PLUGIN_ABI_VERSION */
  /* Initialises MPI unless it already is. *initialised_here = 1 when this call did so (the caller
   * then owes one finalize()). Fails if MPI was already finalised. */
  int (*init)(int* initialised_here, char* err, size_t err_len);
  /* Duplicates *(const MPI_Comm*)comm, or MPI_COMM_WORLD when comm is NULL (collective over it);
   * returns the duplicate in *handle and this process's rank and the size. */
  int (*comm_open)(const void* comm, void** handle, int* rank, int* size, char* err, size_t err_len);
  /* *all = 1 when every member passed mine != 0, else 0 (collective). */
  int (*all_true)(void* handle, int mine, int* all, char* err, size_t err_len);
  /* Broadcasts bytes of buf from root (collective). */
  int (*bcast)(void* handle, void* buf, size_t bytes, int root, char* err, size_t err_len);
  /* Frees the duplicate made by comm_open. */
  void (*comm_close)(void* handle);
  /* MPI_Finalize, for a caller whose init() reported initialised_here (collective). */
  int (*finalize)(char* err, size_t err_len);
} shmem_mpi_plugin;

#define SHMEM_MPI_PLUGIN_FILE "libshmem_bootstrap_mpi.so"

/* ---- PMIx: the job's key-value exchange of the process manager (mpirun, srun, prterun) ------ */
typedef struct shmem_pmix_plugin {
  shmem_plugin_head head; /* SHMEM_PLUGIN_KIND_BOOTSTRAP_PMIX, SHMEM_BOOTSTRAP_PLUGIN_ABI_VERSION */
  /* PMIx_Init: this process's rank, the job size and the namespace (NUL-terminated, truncated to
   * nspace_len - 1 characters). */
  int (*init)(unsigned* rank, unsigned* size, char* nspace, size_t nspace_len, char* err, size_t err_len);
  /* PMIx_Put(PMIX_GLOBAL, key, string value) followed by PMIx_Commit. */
  int (*put)(const char* key, const char* value, char* err, size_t err_len);
  /* PMIx_Fence over every process of the namespace, collecting the data (bounded by timeout_s). */
  int (*fence)(int timeout_s, char* err, size_t err_len);
  /* PMIx_Get of a string value put by `rank` of this namespace; the value is copied into out
   * (fails if it does not fit in out_len bytes with its NUL). */
  int (*get)(unsigned rank, const char* key, int timeout_s, char* out, size_t out_len, char* err, size_t err_len);
  /* PMIx_Finalize (PMIx counts init/finalize pairs, so an MPI library in the same process keeps
   * its own connection). */
  void (*finalize)(void);
  /* Appended (a table without them is refused as too small, so no version bump): init's data
   * exchanges under a PMIx launcher (src/core/boot_data_pmix.cpp). */
  /* PMIx_Put(PMIX_GLOBAL, key, len bytes of data as a byte object) followed by PMIx_Commit. */
  int (*put_bytes)(const char* key, const void* data, size_t len, char* err, size_t err_len);
  /* PMIx_Fence over every process of the namespace, collecting the data when collect != 0, a
   * bare barrier otherwise (bounded by timeout_s). */
  int (*fence_opt)(int collect, int timeout_s, char* err, size_t err_len);
  /* PMIx_Get of a byte object put by `rank` of this namespace: sink(arg, bytes, len) is called
   * once with the value, which is released when sink returns. */
  int (*get_bytes)(unsigned rank, const char* key, int timeout_s, void (*sink)(void* arg, const void* data, size_t len),
                   void* arg, char* err, size_t err_len);
} shmem_pmix_plugin;

#define SHMEM_PMIX_PLUGIN_FILE "libshmem_bootstrap_pmix.so"

#ifdef __cplusplus
}
#endif

#endif /* SHMEM_PLUGINS_BOOTSTRAP_PLUGIN_ABI_H */
