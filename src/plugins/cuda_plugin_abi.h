/* The C interface between libshmem and its CUDA plugin (libshmem_cuda.so, built from src/cuda
 * when the CUDA backend is configured: SHMEM_WITH_CUDA).
 *
 * libshmem links neither the CUDA driver nor the runtime: a build must start on machines without
 * a GPU. The plugin is loaded only when a GPU heap is first asked for, and it loads the driver
 * itself (dlopen of SHMEM_CUDA_DRIVER, default libcuda.so.1), so it does not link it either.
 * The plugin knows the driver; libshmem knows the PEs: it passes the descriptors between them
 * (the node-local exchange), keeps the allocator and fills the device state.
 *
 *   libshmem_cuda.so   kind CUDA (plugin_head.h)   shmemx_cuda_malloc & co., aclshmem device memory
 *
 * Conventions (as bootstrap_plugin_abi.h): functions return 0 on success; on failure nonzero
 * with a NUL-terminated reason in err[0..err_len) that names the driver call and its error.
 * Nothing throws. The table starts with the common head (plugin_head.h); the loader refuses
 * another kind or version, or a table smaller than its own. Every function that touches the driver makes the device's
 * primary context current on the calling thread first, so any thread may call.
 */
#ifndef SHMEM_PLUGINS_CUDA_PLUGIN_ABI_H
#define SHMEM_PLUGINS_CUDA_PLUGIN_ABI_H

#include <stddef.h>
#include <stdint.h>

#include "plugins/plugin_head.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 2: the common head replaced `abi_version, size` and shmem_cuda_plugin_table().
 * 3: atomic (host atomics on GPU symmetric memory).
 * 4: kernel_access (may a kernel read a local buffer).
 * 5: kernel_access says why not (shmem_cuda_access) and on which device the memory lives.
 * 6: stream_sync returns SHMEM_CUDA_CONTEXT_LOST. */
#define SHMEM_CUDA_PLUGIN_ABI_VERSION 6u

/* stream_sync's return when the plugin's context is lost: the error is one after which the driver
 * fails all further work of the context (an exception in a kernel), and the context reports it
 * too, so no kernel of it runs any more. */
#define SHMEM_CUDA_CONTEXT_LOST 2

/* What open() found: the device this PE uses. */
typedef struct shmem_cuda_device_info {
  int ordinal;            /* CUDA device ordinal in this process */
  int count;              /* devices visible to this process */
  unsigned char uuid[16]; /* identifies the device across processes (ordinals may differ) */
  size_t granularity;     /* cuMemCreate granularity (recommended) of this device */
  int driver_version;     /* cuDriverGetVersion, e.g. 13000 */
  char name[128];
} shmem_cuda_device_info;

/* One stream-ordered operation on GPU symmetric memory (stream_op below; src/cuda/stream_ops.hpp).
 * Addresses are this PE's symmetric GPU addresses; team_members is device memory (NULL: the world,
 * member i = PE i). Unused fields are ignored. */
enum shmem_cuda_stream_kind {
  SHMEM_CUDA_STREAM_PUT = 0,
  SHMEM_CUDA_STREAM_GET = 1,
  SHMEM_CUDA_STREAM_SIGNAL = 2,
  SHMEM_CUDA_STREAM_WAIT = 3,
  SHMEM_CUDA_STREAM_BARRIER = 4,
  SHMEM_CUDA_STREAM_BROADCAST = 5,
  SHMEM_CUDA_STREAM_FCOLLECT = 6,
  SHMEM_CUDA_STREAM_ALLTOALL = 7,
  SHMEM_CUDA_STREAM_REDUCE = 8
};
typedef struct shmem_cuda_stream_op {
  int kind; /* shmem_cuda_stream_kind */
  void* dest;
  const void* source;
  size_t bytes;   /* RMA and gathers: bytes per PE */
  size_t count;   /* reductions: elements */
  int elem;       /* reductions: shmem::cuda::Elem */
  int op;         /* reductions: shmem::cuda::RedOp */
  int pe;         /* RMA, signal: the target PE (world) */
  int root;       /* broadcast: the root's team PE */
  uint64_t* sig;  /* signal, wait */
  uint64_t value; /* signal: the value; wait: the compared value */
  int sig_op;     /* signal: SHMEM_SIGNAL_SET / _ADD */
  int cmp;        /* wait: SHMEM_CMP_* */
  int team_n, team_me, team_slot;
  const int* team_members;
} shmem_cuda_stream_op;

/* kernel_access's answer: whether a kernel on the plugin's device can read a buffer, or why not. */
enum shmem_cuda_access {
  SHMEM_CUDA_ACCESS_PAGEABLE = 0, /* plain pageable host memory, which the device does not read */
  SHMEM_CUDA_ACCESS_OK = 1,
  SHMEM_CUDA_ACCESS_NO_PEER = 2,   /* memory of another device, with no peer access between the two */
  SHMEM_CUDA_ACCESS_NOT_MAPPED = 3 /* memory of another device (peer-capable) that is not mapped for this one */
};

/* The operations of atomic() below; each returns the word's previous value. */
enum shmem_cuda_atomic_op {
  SHMEM_CUDA_ATOMIC_FETCH = 0,
  SHMEM_CUDA_ATOMIC_SET = 1,
  SHMEM_CUDA_ATOMIC_SWAP = 2,
  SHMEM_CUDA_ATOMIC_COMPARE_SWAP = 3, /* stores value where the word equals cond */
  SHMEM_CUDA_ATOMIC_ADD = 4,
  SHMEM_CUDA_ATOMIC_AND = 5,
  SHMEM_CUDA_ATOMIC_OR = 6,
  SHMEM_CUDA_ATOMIC_XOR = 7
};

typedef struct shmem_cuda_plugin {
  shmem_plugin_head head; /* SHMEM_PLUGIN_KIND_CUDA, SHMEM_CUDA_PLUGIN_ABI_VERSION */

  /* Loads the driver (driver_path; NULL or "" = libcuda.so.1), cuInit, chooses the device
   * (device >= 0: that ordinal; else local_rank % device count), retains its primary context and
   * creates the plugin's copy stream. *ctx is the handle of everything below. */
  int (*open)(const char* driver_path, int device, int local_rank, void** ctx, shmem_cuda_device_info* info, char* err,
              size_t err_len);
  void (*close)(void* ctx); /* releases the stream and the primary context (the driver stays loaded) */

  /* This PE's GPU heap: cuMemCreate of `bytes` (a multiple of the granularity) on the device,
   * exported as a POSIX file descriptor (*fd, owned by the caller). *heap is its handle. */
  int (*heap_create)(void* ctx, size_t bytes, void** heap, int* fd, char* err, size_t err_len);
  /* Maps the heaps of the n_local node-local PEs into one reserved range: fds[i] (i != my_local:
   * imported; fds[my_local] is ignored, the heap's own allocation is used) at base + i * bytes,
   * read/write for this device. uuids[i] is the device of local PE i: a heap on another device
   * needs peer access (checked; an error says which pair cannot). The caller keeps its fds. */
  int (*heap_map)(void* heap, int n_local, int my_local, const int* fds, const unsigned char (*uuids)[16], void** base,
                  char* err, size_t err_len);
  void (*heap_destroy)(void* heap); /* unmaps, frees the range, releases every allocation */

  /* Copies between any two addresses (host, pinned, device, mapped peer heaps) on the plugin's
   * own non-blocking stream and waits for it: complete on return, and never queued behind a
   * user kernel that waits for it. */
  int (*copy)(void* ctx, void* dst, const void* src, size_t bytes, char* err, size_t err_len);
  /* count blocks of block bytes, dst advancing dst_pitch and src src_pitch bytes per block. */
  int (*copy_2d)(void* ctx, void* dst, size_t dst_pitch, const void* src, size_t src_pitch, size_t block, size_t count,
                 char* err, size_t err_len);
  int (*memset8)(void* ctx, void* dst, unsigned char value, size_t bytes, char* err, size_t err_len);

  /* Pinned host memory mapped into the device (cuMemHostAlloc DEVICEMAP|PORTABLE), zeroed. */
  int (*host_alloc)(void* ctx, size_t bytes, void** host, void** device, char* err, size_t err_len);
  void (*host_free)(void* ctx, void* host);
  /* Plain device memory (cuMemAlloc). */
  int (*device_alloc)(void* ctx, size_t bytes, void** device, char* err, size_t err_len);
  void (*device_free)(void* ctx, void* device);

  /* cuStreamSynchronize of a user's CUstream (NULL: the legacy default stream). A failure returns
   * SHMEM_CUDA_CONTEXT_LOST where the plugin's context is lost with it, else 1. */
  int (*stream_sync)(void* ctx, void* stream, char* err, size_t err_len);

  /* Enqueues `op` on the user's CUstream `stream` as small kernels that run in the stream's order
   * (after its earlier work, before its later work) and returns at once. Errors inside the kernels
   * go to the PE's GPU status record; this returns nonzero only when the enqueue failed. */
  int (*stream_op)(void* ctx, void* stream, const shmem_cuda_stream_op* op, char* err, size_t err_len);

  /* A host atomic on the symmetric GPU word `addr` (this PE's address) of world PE `pe` (node-local):
   * width 4 or 8 bytes, naturally aligned; `op` a shmem_cuda_atomic_op. A one-thread kernel of the
   * device API (a system-scope atomic between two system-scope fences) on the plugin's own stream,
   * complete on return: *old receives the previous value. */
  int (*atomic)(void* ctx, void* addr, int pe, int width, int op, uint64_t value, uint64_t cond, uint64_t* old,
                char* err, size_t err_len);

  /* Whether a kernel on this PE's device can access `addr` at that address (*access, a
   * shmem_cuda_access): OK for managed memory, host memory pinned or registered with CUDA and
   * mapped at the same address, any host memory where the device accesses pageable memory (HMM,
   * ATS), and device memory of this device; device memory of another device only where
   * cuDeviceCanAccessPeer allows it (else NO_PEER) and the memory is mapped for this device
   * (else NOT_MAPPED): cuMem memory needs an access descriptor for this device (cuMemGetAccess),
   * other allocations the driver's access flags for this context (CU_POINTER_ATTRIBUTE_ACCESS_FLAGS,
   * which reflect enabled peer access); where the driver answers neither, peer capability alone
   * decides. PAGEABLE for plain pageable host memory, which a kernel would fault on. *device: the
   * ordinal of the device whose memory it is (-1 for host memory). Nonzero only when the driver
   * could not be asked. */
  int (*kernel_access)(void* ctx, const void* addr, int* access, int* device, char* err, size_t err_len);
} shmem_cuda_plugin;

#define SHMEM_CUDA_PLUGIN_FILE "libshmem_cuda.so"

#ifdef __cplusplus
}
#endif

#endif /* SHMEM_PLUGINS_CUDA_PLUGIN_ABI_H */
