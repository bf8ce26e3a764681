/* The C interface between libshmem and its CUDA plugin (libshmem_cuda.so, built from src/cuda
 * when the CUDA backend is configured: SHMEM_WITH_CUDA).
 *
 * libshmem links neither the CUDA driver nor the runtime: a build must start on machines without
 * a GPU. The plugin is loaded only when a GPU heap is first asked for, and it loads the driver
 * itself (dlopen of SHMEM_CUDA_DRIVER, default libcuda.so.1), so it does not link it either.
 * The plugin knows the driver; libshmem knows the PEs: it passes the descriptors between them
 * (the node-local exchange), keeps the allocator and fills the device state.
 *
 *   libshmem_cuda.so   shmem_cuda_plugin_table()   shmemx_cuda_malloc & co., aclshmem device memory
 *
 * Conventions (as bootstrap_plugin_abi.h): functions return 0 on success; on failure nonzero
 * with a NUL-terminated reason in err[0..err_len) that names the driver call and its error.
 * Nothing throws. The table starts with abi_version and size; the loader refuses another version
 * or a table smaller than its own. Every function that touches the driver makes the device's
 * primary context current on the calling thread first, so any thread may call.
 */
#ifndef SHMEM_PLUGINS_CUDA_PLUGIN_ABI_H
#define SHMEM_PLUGINS_CUDA_PLUGIN_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SHMEM_CUDA_PLUGIN_ABI_VERSION 1u

/* What open() found: the device this PE uses. */
typedef struct shmem_cuda_device_info {
  int ordinal;               /* CUDA device ordinal in this process */
  int count;                 /* devices visible to this process */
  unsigned char uuid[16];    /* identifies the device across processes (ordinals may differ) */
  size_t granularity;        /* cuMemCreate granularity (recommended) of this device */
  int driver_version;        /* cuDriverGetVersion, e.g. 13000 */
  char name[128];
} shmem_cuda_device_info;

typedef struct shmem_cuda_plugin {
  unsigned abi_version; /* SHMEM_CUDA_PLUGIN_ABI_VERSION */
  unsigned size;        /* sizeof(shmem_cuda_plugin) of the plugin's build */

  /* Loads the driver (driver_path; NULL or "" = libcuda.so.1), cuInit, chooses the device
   * (device >= 0: that ordinal; else local_rank % device count), retains its primary context and
   * creates the plugin's copy stream. *ctx is the handle of everything below. */
  int (*open)(const char* driver_path, int device, int local_rank, void** ctx, shmem_cuda_device_info* info,
              char* err, size_t err_len);
  void (*close)(void* ctx); /* releases the stream and the primary context (the driver stays loaded) */

  /* This PE's GPU heap: cuMemCreate of `bytes` (a multiple of the granularity) on the device,
   * exported as a POSIX file descriptor (*fd, owned by the caller). *heap is its handle. */
  int (*heap_create)(void* ctx, size_t bytes, void** heap, int* fd, char* err, size_t err_len);
  /* Maps the heaps of the n_local node-local PEs into one reserved range: fds[i] (i != my_local:
   * imported; fds[my_local] is ignored, the heap's own allocation is used) at base + i * bytes,
   * read/write for this device. uuids[i] is the device of local PE i: a heap on another device
   * needs peer access (checked; an error says which pair cannot). The caller keeps its fds. */
  int (*heap_map)(void* heap, int n_local, int my_local, const int* fds, const unsigned char (*uuids)[16],
                  void** base, char* err, size_t err_len);
  void (*heap_destroy)(void* heap); /* unmaps, frees the range, releases every allocation */

  /* Copies between any two addresses (host, pinned, device, mapped peer heaps) on the plugin's
   * own non-blocking stream and waits for it: complete on return, and never queued behind a
   * user kernel that waits for it. */
  int (*copy)(void* ctx, void* dst, const void* src, size_t bytes, char* err, size_t err_len);
  /* count blocks of block bytes, dst advancing dst_pitch and src src_pitch bytes per block. */
  int (*copy_2d)(void* ctx, void* dst, size_t dst_pitch, const void* src, size_t src_pitch, size_t block,
                 size_t count, char* err, size_t err_len);
  int (*memset8)(void* ctx, void* dst, unsigned char value, size_t bytes, char* err, size_t err_len);

  /* Pinned host memory mapped into the device (cuMemHostAlloc DEVICEMAP|PORTABLE), zeroed. */
  int (*host_alloc)(void* ctx, size_t bytes, void** host, void** device, char* err, size_t err_len);
  void (*host_free)(void* ctx, void* host);
  /* Plain device memory (cuMemAlloc). */
  int (*device_alloc)(void* ctx, size_t bytes, void** device, char* err, size_t err_len);
  void (*device_free)(void* ctx, void* device);

  /* cuStreamSynchronize of a user's CUstream (NULL: the legacy default stream). */
  int (*stream_sync)(void* ctx, void* stream, char* err, size_t err_len);
} shmem_cuda_plugin;

typedef const shmem_cuda_plugin* (*shmem_cuda_plugin_fn)(void);
#define SHMEM_CUDA_PLUGIN_SYMBOL "shmem_cuda_plugin_table"
#define SHMEM_CUDA_PLUGIN_FILE "libshmem_cuda.so"

#ifdef __cplusplus
}
#endif

#endif /* SHMEM_PLUGINS_CUDA_PLUGIN_ABI_H */
