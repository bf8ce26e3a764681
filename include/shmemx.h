/*
 * shmemx.h - extensions to OpenSHMEM 1.6 (shmemx_*). The spec requires this header to exist
 * even when it declares nothing of its own (language_bindings_and_conformance.tex).
 *
 * Declared here: streams (ordered queues of communication run by a library thread), the
 * on-stream forms of RMA, signals, ordering, barriers and team collectives, and kernel launch
 * on the CPU worker pool (the "device" whose in-kernel API is include/shmem/device/). See
 * docs/streams.md. Planned here as well: init attributes, unique-ID bootstrap, TLS settings,
 * instance handles, diagnostics.
 *
 * Compiles as C11 and as C++; standard headers only (through shmem.h).
 */
#ifndef SHMEMX_H
#define SHMEMX_H

#include "shmem.h"

/* ---- return codes of the stream and launch routines -----------------------------------------
 * 0 is success; errors are negative and share their values with Ascend SHMEM's aclshmem_error_code_t
 * (ACLSHMEM_INVALID_PARAM = -1, ...). shmemx_stream_query returns SHMEMX_STREAM_PENDING (> 0)
 * while work is queued or running. */
#define SHMEMX_SUCCESS 0
#define SHMEMX_ERR_INVALID_ARGUMENT (-1) /* a bad PE, address, team, size, comparison, ... */
#define SHMEMX_ERR_INVALID_VALUE (-2)
#define SHMEMX_ERR_INTERNAL (-4)          /* e.g. an exception escaped a kernel */
#define SHMEMX_ERR_NOT_INITIALIZED (-5)   /* the work ran after shmem_finalize */
#define SHMEMX_ERR_OUT_OF_MEMORY (-8)
#define SHMEMX_ERR_NOT_SUPPORTED (-100)
#define SHMEMX_STREAM_PENDING 1

/* ---- streams -------------------------------------------------------------------------------
 * A stream is an ordered queue executed by one library thread (started at the first enqueue).
 * Every *_on_stream call enqueues and returns at once; the operations run in submission order,
 * each complete (as by shmem_quiet) before the next starts, while the calling thread goes on
 * with its own work. Buffers are read and written when the operation runs, not when it is
 * enqueued: keep them alive and unchanged until shmemx_stream_synchronize.
 *
 * Errors inside a stream (an out-of-range PE, a non-symmetric address, an invalid team, a
 * kernel that reported an error) never end the job: the failing operation is skipped, later
 * operations still run (so that peers waiting in a later collective are not left hanging), and
 * the first error code is returned by the next shmemx_stream_synchronize, which then clears it.
 *
 * SHMEMX_STREAM_DEFAULT (NULL) names the library's default stream, created on first use.
 * Collectives on a stream take part in the team's sequence of collectives like host calls: a
 * team must not have a collective running on two threads (the host and a stream, or two
 * streams) at once, and shmem_malloc/shmem_free synchronise the world team. Call
 * shmemx_stream_synchronize (or shmemx_stream_destroy_all) before shmem_finalize. */
typedef struct shmemx_stream_opaque* shmemx_stream_t;
#define SHMEMX_STREAM_DEFAULT ((shmemx_stream_t)0)

#ifdef __cplusplus
extern "C" {
#endif

SHMEM_API int shmemx_stream_create(shmemx_stream_t* stream) SHMEM_NOEXCEPT;
/* Waits for the stream's work, ends its thread and frees it; returns what synchronize would.
 * The default stream cannot be destroyed (SHMEMX_ERR_INVALID_ARGUMENT). */
SHMEM_API int shmemx_stream_destroy(shmemx_stream_t stream) SHMEM_NOEXCEPT;
/* Waits until all enqueued work has completed; returns and clears the first error. */
SHMEM_API int shmemx_stream_synchronize(shmemx_stream_t stream) SHMEM_NOEXCEPT;
/* 0 when all enqueued work has completed, SHMEMX_STREAM_PENDING otherwise. Does not clear errors. */
SHMEM_API int shmemx_stream_query(shmemx_stream_t stream) SHMEM_NOEXCEPT;
/* Synchronises every stream of the process, destroys those created by shmemx_stream_create and
 * ends the default stream's thread; returns the first error of any of them. Call it (or
 * synchronise each stream) before shmem_finalize. */
SHMEM_API int shmemx_stream_destroy_all(void) SHMEM_NOEXCEPT;

/* ---- RMA, signals and ordering on a stream ---------------------------------------------------- */
SHMEM_API void shmemx_putmem_on_stream(void* dest, const void* source, size_t nelems, int pe,
                                       shmemx_stream_t stream) SHMEM_NOEXCEPT;
SHMEM_API void shmemx_getmem_on_stream(void* dest, const void* source, size_t nelems, int pe,
                                       shmemx_stream_t stream) SHMEM_NOEXCEPT;
/* sig_op: SHMEM_SIGNAL_SET or SHMEM_SIGNAL_ADD; the data is visible before the signal. */
SHMEM_API void shmemx_putmem_signal_on_stream(void* dest, const void* source, size_t nelems, uint64_t* sig_addr,
                                              uint64_t signal, int sig_op, int pe,
                                              shmemx_stream_t stream) SHMEM_NOEXCEPT;
SHMEM_API void shmemx_signal_op_on_stream(uint64_t* sig_addr, uint64_t signal, int sig_op, int pe,
                                          shmemx_stream_t stream) SHMEM_NOEXCEPT;
/* The stream waits until the local *sig_addr satisfies (cmp, cmp_value): work enqueued after
 * it runs only once the signal has arrived. cmp is one of SHMEM_CMP_EQ ... SHMEM_CMP_LE. */
SHMEM_API void shmemx_signal_wait_until_on_stream(uint64_t* sig_addr, int cmp, uint64_t cmp_value,
                                                  shmemx_stream_t stream) SHMEM_NOEXCEPT;
SHMEM_API void shmemx_quiet_on_stream(shmemx_stream_t stream) SHMEM_NOEXCEPT;

/* ---- barriers and team collectives on a stream (nelems in bytes for the mem forms) ------------ */
SHMEM_API void shmemx_barrier_on_stream(shmem_team_t team, shmemx_stream_t stream) SHMEM_NOEXCEPT;
SHMEM_API void shmemx_barrier_all_on_stream(shmemx_stream_t stream) SHMEM_NOEXCEPT;
SHMEM_API void shmemx_sync_on_stream(shmem_team_t team, shmemx_stream_t stream) SHMEM_NOEXCEPT;
SHMEM_API void shmemx_broadcastmem_on_stream(shmem_team_t team, void* dest, const void* source, size_t nelems,
                                             int PE_root, shmemx_stream_t stream) SHMEM_NOEXCEPT;
SHMEM_API void shmemx_collectmem_on_stream(shmem_team_t team, void* dest, const void* source, size_t nelems,
                                           shmemx_stream_t stream) SHMEM_NOEXCEPT;
SHMEM_API void shmemx_fcollectmem_on_stream(shmem_team_t team, void* dest, const void* source, size_t nelems,
                                            shmemx_stream_t stream) SHMEM_NOEXCEPT;
SHMEM_API void shmemx_alltoallmem_on_stream(shmem_team_t team, void* dest, const void* source, size_t nelems,
                                            shmemx_stream_t stream) SHMEM_NOEXCEPT;

/* Team reductions on a stream: shmemx_TYPENAME_OP_reduce_on_stream for the types and operations
 * of shmem_TYPENAME_OP_reduce (Table teamreducetypes). */
#define SHMEMX_DECL_REDUCE_ON_STREAM_(T, N, OP)                                                        \
  SHMEM_API void shmemx_##N##_##OP##_reduce_on_stream(shmem_team_t team, T* dest, const T* source,    \
                                                      size_t nreduce, shmemx_stream_t stream) SHMEM_NOEXCEPT;
#define SHMEMX_DECL_REDUCE_BIT_ON_STREAM_(T, N) \
  SHMEMX_DECL_REDUCE_ON_STREAM_(T, N, and) SHMEMX_DECL_REDUCE_ON_STREAM_(T, N, or) SHMEMX_DECL_REDUCE_ON_STREAM_(T, N, xor)
#define SHMEMX_DECL_REDUCE_MINMAX_ON_STREAM_(T, N) \
  SHMEMX_DECL_REDUCE_ON_STREAM_(T, N, max) SHMEMX_DECL_REDUCE_ON_STREAM_(T, N, min)
#define SHMEMX_DECL_REDUCE_SUM_ON_STREAM_(T, N) \
  SHMEMX_DECL_REDUCE_ON_STREAM_(T, N, sum) SHMEMX_DECL_REDUCE_ON_STREAM_(T, N, prod)
SHMEM_REDUCE_BIT_TYPE_TABLE(SHMEMX_DECL_REDUCE_BIT_ON_STREAM_)
SHMEM_REDUCE_MINMAX_TYPE_TABLE(SHMEMX_DECL_REDUCE_MINMAX_ON_STREAM_)
SHMEM_REDUCE_SUM_TYPE_TABLE(SHMEMX_DECL_REDUCE_SUM_ON_STREAM_)
#undef SHMEMX_DECL_REDUCE_BIT_ON_STREAM_
#undef SHMEMX_DECL_REDUCE_MINMAX_ON_STREAM_
#undef SHMEMX_DECL_REDUCE_SUM_ON_STREAM_
#undef SHMEMX_DECL_REDUCE_ON_STREAM_

/* ---- kernel launch on the CPU worker pool ---------------------------------------------------
 * A launch runs `grid` blocks of `kernel`, each as `block_dim` threads, on a pool of worker
 * threads (SHMEM_DEVICE_THREADS, default: the hardware threads), as one item of `stream`: it
 * starts after the stream's earlier work and completes when every block has returned. The
 * threads of one block always run at the same time (they may use shmemx_block_sync); blocks
 * run concurrently as far as the pool allows. A cooperative launch runs all blocks at once
 * (grid * block_dim threads, at most SHMEMX_MAX_COOPERATIVE_THREADS), which blocks that wait
 * for one another need, e.g. for shmemx_grid_sync or a barrier called by every block.
 *
 * Every thread receives its own shmemx_block_t. In-kernel code uses the device API
 * (include/shmem/device/device.hpp, C++). */
#define SHMEMX_MAX_BLOCK_DIM 1024
#define SHMEMX_MAX_COOPERATIVE_THREADS 1024

typedef struct shmemx_block {
  int block_id;      /* 0 .. grid-1 */
  int grid;          /* blocks in this launch */
  int thread_id;     /* 0 .. block_dim-1: this thread within its block */
  int block_dim;     /* threads per block */
  const void* state; /* the instance's device state (shmem::device::State) */
  void* impl_;       /* library-private: the launch, its block and grid barriers */
} shmemx_block_t;

typedef void (*shmemx_kernel_t)(shmemx_block_t* block, void* args);

typedef struct shmemx_launch_attr {
  int grid;                          /* >= 1 */
  int block_dim;                     /* 1 .. SHMEMX_MAX_BLOCK_DIM; 0 means 1 */
  int cooperative;                   /* nonzero: every block runs at the same time */
  size_t args_bytes;                 /* > 0: *args is copied at launch; 0: args is passed as is */
  void (*args_release)(void* args);  /* optional: called with the caller's args pointer once the
                                        launch completed (only for a launch that was enqueued) */
} shmemx_launch_attr_t;

/* Enqueue a launch. Returns 0, or SHMEMX_ERR_INVALID_ARGUMENT at once (nothing enqueued) for a
 * null kernel, grid < 1, a block_dim out of range or a cooperative launch that is too large.
 * With args_bytes > 0 the kernel's args point at the launch's own copy (shared by its blocks);
 * with 0, args must stay valid until the launch completes. */
SHMEM_API int shmemx_launch(shmemx_kernel_t kernel, int grid, int block_dim, void* args, size_t args_bytes,
                            shmemx_stream_t stream) SHMEM_NOEXCEPT;
SHMEM_API int shmemx_launch_ex(shmemx_kernel_t kernel, void* args, const shmemx_launch_attr_t* attr,
                               shmemx_stream_t stream) SHMEM_NOEXCEPT;

/* In-kernel helpers. shmemx_block_sync: every thread of the block waits for the others (like
 * __syncthreads). shmemx_grid_sync: every thread of the launch waits for all others; a
 * multi-block launch must be cooperative (otherwise the job ends with a message).
 * shmemx_block_error: logs `message` (may be NULL) and records `code` as the launch's error (the
 * first one wins), which the stream's next synchronize returns; with a NULL block (outside a
 * kernel) it ends the job with the message instead. shmemx_block_current: the calling kernel
 * thread's block (NULL outside kernels). */
SHMEM_API void shmemx_block_sync(const shmemx_block_t* block) SHMEM_NOEXCEPT;
SHMEM_API void shmemx_grid_sync(const shmemx_block_t* block) SHMEM_NOEXCEPT;
SHMEM_API void shmemx_block_error(const shmemx_block_t* block, int code, const char* message) SHMEM_NOEXCEPT;
SHMEM_API const shmemx_block_t* shmemx_block_current(void) SHMEM_NOEXCEPT;
/* The pool's size: threads a non-cooperative launch uses at most (SHMEM_DEVICE_THREADS). */
SHMEM_API int shmemx_device_threads(void) SHMEM_NOEXCEPT;

/* Where a team lives, for the device API's team barrier: its slot (an index shared by all
 * members), this PE's number in it, its size and its members as world PEs. Returns 0, or
 * nonzero (and leaves *view alone) for SHMEM_TEAM_INVALID or before initialisation. */
typedef struct shmemx_team_view {
  int slot;
  int my_pe;
  int n_pes;
  const int* world_pes; /* n_pes entries; valid until the team is destroyed */
} shmemx_team_view_t;
SHMEM_API int shmemx_team_view(shmem_team_t team, shmemx_team_view_t* view) SHMEM_NOEXCEPT;

/* ---- GPU symmetric memory (CUDA backend; docs/cuda.md) ------------------------------------
 * Collective over every PE, like shmem_malloc (same sizes on every PE, a barrier at the end).
 * The first call creates this PE's GPU heap (SHMEM_CUDA_HEAP_SIZE bytes on its CUDA device,
 * mapped by every node-local PE); a size of 0 creates it too and returns NULL. Returns NULL on
 * every PE alike when the heap cannot be created (no driver, no device, too large) or is
 * exhausted; the reason is logged once. The pointers are device addresses: kernels use them
 * (the device API reaches peers' copies), and the host RMA routines (shmem_putmem/getmem, _p/_g,
 * iput/iget, ibput/ibget and their typed and _nbi forms) accept them as symmetric addresses of
 * node-local PEs. Host atomics, signals and waits on them end the job with a message (not yet
 * supported). shmemx_cuda_calloc zeroes; shmemx_cuda_free(NULL) is a barrier. */
SHMEM_API void* shmemx_cuda_malloc(size_t size) SHMEM_NOEXCEPT;
SHMEM_API void* shmemx_cuda_calloc(size_t count, size_t size) SHMEM_NOEXCEPT;
SHMEM_API void* shmemx_cuda_align(size_t alignment, size_t size) SHMEM_NOEXCEPT;
SHMEM_API void shmemx_cuda_free(void* ptr) SHMEM_NOEXCEPT;
/* A stream that wraps a CUDA stream (a CUstream / cudaStream_t; NULL = CUDA's legacy default
 * stream), for a PE whose GPU heap exists (else SHMEMX_ERR_NOT_SUPPORTED). Work enqueued on it
 * starts after the CUDA stream's earlier work has completed; shmemx_stream_synchronize also
 * synchronises the CUDA stream and returns the first error a kernel of this PE reported (the
 * message, with routine, PE, address and for waits the expected and seen values, is logged).
 * Destroy it with shmemx_stream_destroy (the CUDA stream stays the caller's).
 * shmemx_stream_cuda_handle: the wrapped CUDA stream (NULL for other streams). */
SHMEM_API int shmemx_stream_create_cuda(shmemx_stream_t* stream, void* cuda_stream) SHMEM_NOEXCEPT;
SHMEM_API void* shmemx_stream_cuda_handle(shmemx_stream_t stream) SHMEM_NOEXCEPT;

/* Finalize at exit like start_pes does, but without its deadline: when the process exits with
 * status 0 the library finalizes (collective: it waits for every PE to finalize); with any other
 * status this PE leaves the job, which ends every PE and names this one. For language bindings
 * whose own exit handlers cannot see the exit status (the Python package calls it). */
SHMEM_API void shmemx_finalize_at_exit(void) SHMEM_NOEXCEPT;

/* ---- Sandia OpenSHMEM compatibility: shmemx_ names of routines 1.5/1.6 standardised ---------
 * Each behaves exactly as the standard routine named without the x (shmem_TYPENAME_ibput ...).
 * SHMEMX_TEAM_NODE is the team of the PEs on this node, i.e. SHMEM_TEAM_SHARED. See
 * docs/porting.md. */
#define SHMEMX_TEAM_NODE SHMEM_TEAM_SHARED
/* Sandia's hint for shmem_malloc_with_hints: the caller needs no barrier after the allocation.
 * Accepted as a hint like the standard ones; the allocation still ends with its barrier. */
#define SHMEMX_MALLOC_NO_BARRIER (1L << 2)

#define SHMEMX_DECL_IB_(NAME, T)                                                                           \
  SHMEM_API void shmemx_##NAME##_ibput(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, \
                                       size_t nblocks, int pe) SHMEM_NOEXCEPT;                              \
  SHMEM_API void shmemx_ctx_##NAME##_ibput(shmem_ctx_t ctx, T* dest, const T* source, ptrdiff_t dst,         \
                                           ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) SHMEM_NOEXCEPT; \
  SHMEM_API void shmemx_##NAME##_ibget(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, \
                                       size_t nblocks, int pe) SHMEM_NOEXCEPT;                              \
  SHMEM_API void shmemx_ctx_##NAME##_ibget(shmem_ctx_t ctx, T* dest, const T* source, ptrdiff_t dst,         \
                                           ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) SHMEM_NOEXCEPT;
#define SHMEMX_DECL_IB_TYPED_(T, N) SHMEMX_DECL_IB_(N, T)
SHMEM_RMA_TYPE_TABLE(SHMEMX_DECL_IB_TYPED_)
#undef SHMEMX_DECL_IB_TYPED_
#undef SHMEMX_DECL_IB_
#define SHMEMX_DECL_IB_SIZED_(S)                                                                           \
  SHMEM_API void shmemx_ibput##S(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, \
                                 size_t nblocks, int pe) SHMEM_NOEXCEPT;                                    \
  SHMEM_API void shmemx_ctx_ibput##S(shmem_ctx_t ctx, void* dest, const void* source, ptrdiff_t dst,         \
                                     ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) SHMEM_NOEXCEPT;   \
  SHMEM_API void shmemx_ibget##S(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, \
                                 size_t nblocks, int pe) SHMEM_NOEXCEPT;                                    \
  SHMEM_API void shmemx_ctx_ibget##S(shmem_ctx_t ctx, void* dest, const void* source, ptrdiff_t dst,         \
                                     ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) SHMEM_NOEXCEPT;
SHMEM_RMA_SIZE_TABLE(SHMEMX_DECL_IB_SIZED_)
#undef SHMEMX_DECL_IB_SIZED_

SHMEM_API void shmemx_signal_add(uint64_t* sig_addr, uint64_t signal, int pe) SHMEM_NOEXCEPT;
SHMEM_API void shmemx_ctx_signal_add(shmem_ctx_t ctx, uint64_t* sig_addr, uint64_t signal, int pe) SHMEM_NOEXCEPT;
SHMEM_API void shmemx_signal_set(uint64_t* sig_addr, uint64_t signal, int pe) SHMEM_NOEXCEPT;
SHMEM_API void shmemx_ctx_signal_set(shmem_ctx_t ctx, uint64_t* sig_addr, uint64_t signal, int pe) SHMEM_NOEXCEPT;

#define SHMEMX_DECL_SCAN_(T, N)                                                                            \
  SHMEM_API int shmemx_##N##_sum_inscan(shmem_team_t team, T* dest, const T* source, size_t nelems)        \
      SHMEM_NOEXCEPT;                                                                                       \
  SHMEM_API int shmemx_##N##_sum_exscan(shmem_team_t team, T* dest, const T* source, size_t nelems)        \
      SHMEM_NOEXCEPT;
SHMEM_REDUCE_SUM_TYPE_TABLE(SHMEMX_DECL_SCAN_)
#undef SHMEMX_DECL_SCAN_

/* Sandia OpenSHMEM's performance counters, per context: RMA writes (puts, put-with-signal) and
 * reads (gets) issued, and those complete (a node-local transfer and a blocking get on return,
 * the rest at the context's next quiet or barrier). AMOs are not counted; target is always 0
 * (writes into this PE's memory are its peers' stores). Field names as Sandia's. */
typedef struct {
  uint64_t pending_put; /* writes issued */
  uint64_t pending_get; /* reads issued */
  uint64_t completed_put;
  uint64_t completed_get;
  uint64_t target;
} shmemx_pcntr_t;
SHMEM_API void shmemx_pcntr_get_issued_write(shmem_ctx_t ctx, uint64_t* cntr_value) SHMEM_NOEXCEPT;
SHMEM_API void shmemx_pcntr_get_issued_read(shmem_ctx_t ctx, uint64_t* cntr_value) SHMEM_NOEXCEPT;
SHMEM_API void shmemx_pcntr_get_completed_write(shmem_ctx_t ctx, uint64_t* cntr_value) SHMEM_NOEXCEPT;
SHMEM_API void shmemx_pcntr_get_completed_read(shmem_ctx_t ctx, uint64_t* cntr_value) SHMEM_NOEXCEPT;
SHMEM_API void shmemx_pcntr_get_completed_target(uint64_t* cntr_value) SHMEM_NOEXCEPT;
SHMEM_API void shmemx_pcntr_get_all(shmem_ctx_t ctx, shmemx_pcntr_t* pcntr) SHMEM_NOEXCEPT;
/* Sandia's thread-id hook for its thread-safe contexts: accepted; this library needs no thread ids. */
SHMEM_API void shmemx_register_gettid(uint64_t (*gettid_fn)(void)) SHMEM_NOEXCEPT;

#ifdef __cplusplus
} /* extern "C" */
#endif

#include "shmem/shmemx_generic.h"

#endif /* SHMEMX_H */
