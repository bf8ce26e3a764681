/* aclshmem.h from C11: every family is declared and links (built with -pedantic -Werror) and runs
 * as one PE through the unique-ID mode (the C++ programs check the behaviour in depth). Structs
 * have no default member initialisers in C, so a C program fills every field. */
#include <aclshmem.h>

#include <string.h>

static int decrypt(const char* cipher, size_t cipher_len, char* plain, size_t* plain_len) {
  memcpy(plain, cipher, cipher_len);
  *plain_len = cipher_len;
  return 0;
}

static void logger(int level, const char* msg) {
  (void)level;
  (void)msg;
}

#define USE_RMA_(T, NAME)                                           \
  {                                                                 \
    T* d = (T*)aclshmem_malloc(4 * sizeof(T));                      \
    T s[4] = {0};                                                   \
    aclshmem_##NAME##_put(d, s, 4, 0);                              \
    aclshmem_##NAME##_get_nbi(s, d, 4, 0);                          \
    aclshmem_##NAME##_iput(d, s, 1, 1, 4, 0);                       \
    aclshmem_##NAME##_p(d, aclshmem_##NAME##_g(d, 0), 0);           \
    aclshmem_##NAME##_put_signal_nbi(d, s, 4, sig, 1, ACLSHMEM_SIGNAL_ADD, 0); \
    aclshmem_free(d);                                               \
  }
#define USE_P2P_(T, NAME)                                                           \
  {                                                                                 \
    T* v = (T*)aclshmem_calloc(2, sizeof(T));                                       \
    T want[2] = {0};                                                                \
    size_t res, idx[2];                                                             \
    int ok;                                                                         \
    aclshmem_##NAME##_wait_until_any_vector(v, 2, NULL, ACLSHMEM_CMP_EQ, want, &res); \
    aclshmem_##NAME##_test_some(v, 2, idx, NULL, ACLSHMEM_CMP_EQ, 0, &res);          \
    aclshmem_##NAME##_test(v, ACLSHMEM_CMP_EQ, 0, &ok);                              \
    aclshmem_free(v);                                                               \
  }

int main(void) {
  aclshmemx_init_attr_t attr;
  aclshmemx_uniqueid_t uid = ACLSHMEM_UNIQUEID_INITIALIZER;
  int32_t* sig;
  aclshmem_team_t x, y;
  memset(&attr, 0, sizeof attr);
  attr.option_attr.version = (1 << 16) + (int32_t)sizeof(aclshmem_init_optional_attr_t);
  attr.option_attr.data_op_engine_type = ACLSHMEM_DATA_OP_MTE;
  attr.option_attr.shm_init_timeout = 120;
  attr.option_attr.control_operation_timeout = 120;
  if (aclshmemx_set_conf_store_tls(false, NULL, 0) != ACLSHMEM_SUCCESS) return 1;
  if (aclshmemx_set_config_store_tls_key(NULL, 0, NULL, 0, decrypt) != ACLSHMEM_INVALID_PARAM) return 1;
  if (aclshmemx_set_extern_logger(logger) != ACLSHMEM_NOT_SUPPORTED) return 1;
  if (aclshmemx_get_uniqueid(&uid) != ACLSHMEM_SUCCESS) return 1;
  if (aclshmemx_set_attr_uniqueid_args(0, 1, 1 << 20, &uid, &attr) != ACLSHMEM_SUCCESS) return 1;
  if (aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_UNIQUEID, &attr) != ACLSHMEM_SUCCESS) return 1;
  /* C may pass any int as a memory type: an unknown one is refused. */
  if (aclshmemx_malloc(8, (aclshmem_mem_type_t)9) != NULL) return 1;
  sig = (int32_t*)aclshmemx_malloc(sizeof(int32_t), HOST_SIDE);
  if (sig == NULL) return 1;
  *sig = 0;
  ACLSHMEM_HOST_TYPE_TABLE(USE_RMA_)
  ACLSHMEM_P2P_SYNC_TYPE_TABLE(USE_P2P_)
  aclshmem_put128_signal(sig, sig, 0, sig, 1, ACLSHMEM_SIGNAL_SET, 0);
  aclshmemx_putmem_signal(sig, sig, 0, sig, 1, ACLSHMEM_SIGNAL_SET, 0);
  aclshmem_signal_wait_until(sig, ACLSHMEM_CMP_GE, 1);
  if (aclshmem_team_split_2d(ACLSHMEM_TEAM_WORLD, 1, &x, &y) != 0 || aclshmem_team_n_pes(x) != 1) return 1;
  aclshmem_barrier(x);
  aclshmem_team_destroy(y);
  aclshmem_team_destroy(x);
  aclshmem_sync_all();
  aclshmemx_free(sig, DEVICE_SIDE);
  return aclshmem_finalize() + (int)util_get_ffts_config();
}
