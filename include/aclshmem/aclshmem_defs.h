/*
 * aclshmem/aclshmem_defs.h - constants, enums and structs of the host API of Ascend
 * SHMEM (aclshmem_* / aclshmemx_*), as aclshmem.h exposes them. See docs/aclshmem.md.
 *
 * Ascend SHMEM's header is C++: aclshmemx_init_attr_t and aclshmem_init_optional_attr_t carry
 * default member initialisers, which Ascend SHMEM programs rely on (`aclshmemx_init_attr_t attr;` then
 * setting only my_pe, n_pes, ip_port and local_mem_size). They are kept, under __cplusplus
 * (C++14 and later: the structs stay aggregates). From C the header is usable too, but every
 * field must then be filled by the caller.
 */
#ifndef ACLSHMEM_ACLSHMEM_DEFS_H
#define ACLSHMEM_ACLSHMEM_DEFS_H

#include <stddef.h>
#include <stdint.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

/* ---- attributes --------------------------------------------------------------------------- */
#if defined(__GNUC__) || defined(__clang__)
#define ACLSHMEM_HOST_API __attribute__((visibility("default")))
#else
#define ACLSHMEM_HOST_API
#endif
/* The library never lets an exception cross the C boundary. Default arguments and default
 * member initialisers exist only in C++; in C the macros drop them (their argument may then be
 * C++-only syntax, since C never sees it). */
#if defined(__cplusplus)
#define ACLSHMEM_NOEXCEPT noexcept
#define ACLSHMEM_DEFAULT_ARG(v) = v
#define ACLSHMEM_MEMBER_INIT(v) = v
#else
#define ACLSHMEM_NOEXCEPT
#define ACLSHMEM_DEFAULT_ARG(v)
#define ACLSHMEM_MEMBER_INIT(v)
#endif

/* ---- versions and limits ------------------------------------------------------------------ */
/* Ascend SHMEM's own numbering (aclshmem_info_get_version returns 1.1), kept for programs that
 * test it. The vendor string names this library as well. */
#define ACLSHMEM_MAJOR_VERSION 1
#define ACLSHMEM_MINOR_VERSION 1
#define ACLSHMEM_MAX_NAME_LEN 256
#define ACLSHMEM_VENDOR_STRING "ACLSHMEM v1.1.1 (shmem 0.1.0, CPU)"

#define ACLSHMEM_MAX_PES 16384
#define ACLSHMEM_MAX_TEAMS 2048 /* Ascend SHMEM's limit; this library allows 126 teams besides WORLD */
#define ACLSHMEM_MAX_IP_PORT_LEN 64
#define ACLSHMEM_MAX_LOCAL_SIZE (40ULL * 1024ULL * 1024ULL * 1024ULL)
#define ACLSHMEM_PAGE_SIZE (2ULL * 1024ULL * 1024ULL)
#define ACLSHMEM_SIGNAL_SIZE 8
#define ACLSHMEM_MAX_AIV_PER_NPU 48
#define ACLSHMEM_UNIQUEID_INTERNAL_LEN 124
#define ACLSHMEM_MAX_TLS_INFO_LEN 10240 /* Ascend SHMEM's 10 KB limit on the TLS option string */

/* ---- comparisons and signal operations ---------------------------------------------------- */
#define ACLSHMEM_CMP_EQ 0
#define ACLSHMEM_CMP_NE 1
#define ACLSHMEM_CMP_GT 2
#define ACLSHMEM_CMP_GE 3
#define ACLSHMEM_CMP_LT 4
#define ACLSHMEM_CMP_LE 5

#define ACLSHMEM_SIGNAL_SET 0
#define ACLSHMEM_SIGNAL_ADD 1

/* ---- error codes (every int-returning routine) -------------------------------------------- */
typedef enum {
  ACLSHMEM_SUCCESS = 0,
  ACLSHMEM_INVALID_PARAM = -1,
  ACLSHMEM_INVALID_VALUE = -2,
  ACLSHMEM_SMEM_ERROR = -3,
  ACLSHMEM_INNER_ERROR = -4,
  ACLSHMEM_NOT_INITED = -5,
  ACLSHMEM_BOOTSTRAP_ERROR = -6,
  ACLSHMEM_TIMEOUT_ERROR = -7,
  ACLSHMEM_MALLOC_FAILED = -8,
  ACLSHMEM_DL_FUNC_FAILED = -9,
  ACLSHMEM_INNER_TIMEOUT = -10,
  ACLSHMEM_UNDER_API_UNLOAD = -11,
  ACLSHMEM_NOT_SUPPORTED = -100
} aclshmem_error_code_t;

/* ---- initialisation ----------------------------------------------------------------------- */
/* aclshmemx_init_status() */
typedef enum {
  ACLSHMEM_STATUS_NOT_INITIALIZED = 0,
  ACLSHMEM_STATUS_SHM_CREATED = 1,
  ACLSHMEM_STATUS_IS_INITIALIZED = 2,
  ACLSHMEM_STATUS_INVALID = 3
} aclshmemx_init_status_t;

/* Bootstrap modes: the flags argument of aclshmemx_init_attr (one of them). */
typedef enum {
  ACLSHMEMX_INIT_WITH_DEFAULT = 1 << 0,  /* attr.ip_port = "tcp://host:port"; PE 0 hosts the store */
  ACLSHMEMX_INIT_WITH_MPI = 1 << 1,      /* attr.comm_args = MPI_Comm* (NULL: MPI_COMM_WORLD) */
  ACLSHMEMX_INIT_WITH_UNIQUEID = 1 << 3, /* attr.comm_args = aclshmemx_uniqueid_t* from PE 0 */
  ACLSHMEMX_INIT_MAX = INT32_MIN         /* Ascend SHMEM's 1 << 31 sentinel */
} aclshmemx_bootstrap_t;

/* Data engines (attr.option_attr.data_op_engine_type, a bit mask). On CPU every transfer uses
 * the shared-memory path, which is what MTE (the cores' own load/store) corresponds to. */
typedef enum {
  ACLSHMEM_DATA_OP_MTE = 0x1,
  ACLSHMEM_DATA_OP_SDMA = 0x2,
  ACLSHMEM_DATA_OP_ROCE = 0x4,
  ACLSHMEM_DATA_OP_UDMA = 0x8
} data_op_engine_type_t;

/* Per-PE reachability bits (same values as the engines). */
typedef enum {
  ACLSHMEM_TRANSPORT_MTE = 1,
  ACLSHMEM_TRANSPORT_ROCE = 2,
  ACLSHMEM_TRANSPORT_SDMA = 4,
  ACLSHMEM_TRANSPORT_UDMA = 8
} aclshmem_transport_t;

/* Where a symmetric allocation lives. Both map to the one symmetric heap on CPU. */
typedef enum { HOST_SIDE = 0, DEVICE_SIDE = 1 } aclshmem_mem_type_t;

typedef enum { ACLSHMEM_NO_NBI = 0, ACLSHMEM_NBI = 1 } aclshmem_block_mode_t;

/* Optional attributes. version = (1 << 16) + sizeof(struct), as Ascend SHMEM versions its structs.
 * Timeouts are in seconds: shm_init_timeout is the deadline for reaching the store (connect),
 * control_operation_timeout the deadline of every control-plane wait (store barriers and
 * exchanges); shm_create_timeout is accepted and unused, as in Ascend SHMEM. sockFd (a pre-bound
 * listening socket for PE 0) is not supported: values > 0 are ignored with a warning. */
typedef struct aclshmem_init_optional_attr_s {
  int32_t version ACLSHMEM_MEMBER_INIT(int32_t((1 << 16) + sizeof(aclshmem_init_optional_attr_s)));
  data_op_engine_type_t data_op_engine_type ACLSHMEM_MEMBER_INIT(ACLSHMEM_DATA_OP_MTE);
  uint32_t shm_init_timeout ACLSHMEM_MEMBER_INIT(120);
  uint32_t shm_create_timeout ACLSHMEM_MEMBER_INIT(120);
  uint32_t control_operation_timeout ACLSHMEM_MEMBER_INIT(120);
  int32_t sockFd ACLSHMEM_MEMBER_INIT(0);
} aclshmem_init_optional_attr_t;

/* aclshmemx_init_attr's attributes. local_mem_size is the symmetric heap size per PE in bytes
 * (at most ACLSHMEM_MAX_LOCAL_SIZE; 0 means SHMEM_SYMMETRIC_SIZE). instance_id selects the
 * runtime instance (0 = the default one). */
typedef struct aclshmemx_init_attr_s {
  int my_pe;
  int n_pes;
  char ip_port[ACLSHMEM_MAX_IP_PORT_LEN];
  uint64_t local_mem_size;
  aclshmem_init_optional_attr_t option_attr ACLSHMEM_MEMBER_INIT({});
  void* comm_args ACLSHMEM_MEMBER_INIT(nullptr);
  uint64_t instance_id ACLSHMEM_MEMBER_INIT(0);
} aclshmemx_init_attr_t;

/* The unique ID made by aclshmemx_get_uniqueid on PE 0, which the application hands to every
 * other PE (as plain bytes: the struct holds no pointers). */
typedef struct aclshmemx_uniqueid {
  int32_t version;
  int my_pe;
  int n_pes;
  char internal[ACLSHMEM_UNIQUEID_INTERNAL_LEN];
} aclshmemx_uniqueid_t;
#define ACLSHMEM_UNIQUEID_INITIALIZER {0, 0, 0, {0}}

/* Current instance (aclshmemx_instance_ctx_get). */
typedef struct aclshmem_instance_ctx {
  uint64_t id;
  void* reserved;
} aclshmem_instance_ctx;
typedef aclshmem_instance_ctx aclshmem_instance_ctx_t;

/* ---- teams -------------------------------------------------------------------------------- */
/* Team handles are small integers, as in Ascend SHMEM. A handle names the same team on every member
 * PE (it is the team's index, agreed on by the split, which is collective over the parent). */
typedef int aclshmem_team_t;
#define ACLSHMEM_TEAM_INVALID (-1)
#define ACLSHMEM_TEAM_WORLD 0

typedef struct {
  int32_t version;
  int32_t num_contexts; /* reserved */
  int32_t uniqueid;     /* the team's handle */
  char padding[52];
} aclshmem_team_config_t;

/* ---- streams, handles, profiling, TLS callbacks, logging ---------------------------------- */
/* A stream handle as CANN spells it (an identical typedef in CANN's own headers is allowed). */
typedef void* aclrtStream;

typedef struct {
  aclshmem_team_t team_id;
} aclshmem_handle_t;

/* In-kernel cycle-profiling data (not collected on this platform; see aclshmemx_get_prof). */
typedef struct aclshmem_prof_pe aclshmem_prof_pe_t;

/* Turns an encrypted private-key password into plain text: returns 0 and sets plain_len on
 * success. Ascend SHMEM's C++ signature takes plain_len by reference; C sees the same ABI as a
 * pointer. */
#if defined(__cplusplus)
typedef int (*aclshmem_decrypt_handler)(const char* cipher, size_t cipher_len, char* plain, size_t& plain_len);
#else
typedef int (*aclshmem_decrypt_handler)(const char* cipher, size_t cipher_len, char* plain, size_t* plain_len);
#endif

/* Receives every library log line; level: 0 debug, 1 info, 2 warn, 3 error, 4 fatal. */
typedef void (*aclshmem_extern_logger_t)(int level, const char* msg);

#endif /* ACLSHMEM_ACLSHMEM_DEFS_H */
