/* libshmem_bootstrap_pmix.so: the PMIx calls shmem_init needs under mpirun (or another PMIx
 * process manager), behind the C table of plugins/bootstrap_plugin_abi.h. Linked to libpmix;
 * libshmem dlopen()s it only when it finds itself started by such a launcher. */
#include <pmix.h>

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "plugins/bootstrap_plugin_abi.h"

static pmix_proc_t g_me; /* filled by init; PMIx itself is process-wide state */

__attribute__((format(printf, 3, 4))) static int fail(char* err, size_t err_len, const char* fmt, ...) {
  if (err != NULL && err_len > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
  }
  return 1;
}

static int pmix_fail(char* err, size_t err_len, const char* call, pmix_status_t rc) {
  return fail(err, err_len, "%s failed: %s", call, PMIx_Error_string(rc));
}

static int plugin_init(unsigned* rank, unsigned* size, char* nspace, size_t nspace_len, char* err, size_t err_len) {
  pmix_status_t rc = PMIx_Init(&g_me, NULL, 0);
  if (rc != PMIX_SUCCESS) return pmix_fail(err, err_len, "PMIx_Init", rc);
  pmix_proc_t job;
  PMIX_LOAD_PROCID(&job, g_me.nspace, PMIX_RANK_WILDCARD);
  pmix_value_t* v = NULL;
  rc = PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &v);
  if (rc != PMIX_SUCCESS || v == NULL || v->type != PMIX_UINT32) {
    if (v != NULL) PMIX_VALUE_RELEASE(v);
    PMIx_Finalize(NULL, 0);
    return rc != PMIX_SUCCESS ? pmix_fail(err, err_len, "PMIx_Get(PMIX_JOB_SIZE)", rc)
                              : fail(err, err_len, "PMIx_Get(PMIX_JOB_SIZE) did not return a uint32");
  }
  *size = v->data.uint32;
  PMIX_VALUE_RELEASE(v);
  *rank = g_me.rank;
  if (nspace != NULL && nspace_len > 0) snprintf(nspace, nspace_len, "%s", g_me.nspace);
  return 0;
}

static int plugin_put(const char* key, const char* value, char* err, size_t err_len) {
  pmix_value_t v;
  PMIX_VALUE_CONSTRUCT(&v);
  v.type = PMIX_STRING;
  v.data.string = (char*)value; /* PMIx_Put copies; not released here */
  pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &v);
  if (rc != PMIX_SUCCESS) return pmix_fail(err, err_len, "PMIx_Put", rc);
  rc = PMIx_Commit();
  return rc == PMIX_SUCCESS ? 0 : pmix_fail(err, err_len, "PMIx_Commit", rc);
}

static int plugin_fence_opt(int collect, int timeout_s, char* err, size_t err_len) {
  pmix_info_t info[2];
  bool collect_data = collect != 0;
  PMIX_INFO_CONSTRUCT(&info[0]);
  PMIX_INFO_CONSTRUCT(&info[1]);
  PMIX_INFO_LOAD(&info[0], PMIX_COLLECT_DATA, &collect_data, PMIX_BOOL);
  PMIX_INFO_LOAD(&info[1], PMIX_TIMEOUT, &timeout_s, PMIX_INT);
  pmix_proc_t all;
  PMIX_LOAD_PROCID(&all, g_me.nspace, PMIX_RANK_WILDCARD);
  const pmix_status_t rc = PMIx_Fence(&all, 1, info, 2);
  PMIX_INFO_DESTRUCT(&info[0]);
  PMIX_INFO_DESTRUCT(&info[1]);
  if (rc == PMIX_ERR_TIMEOUT)
    return fail(err, err_len, "PMIx_Fence timed out after %d s: not every process of the job reached shmem_init",
                timeout_s);
  return rc == PMIX_SUCCESS ? 0 : pmix_fail(err, err_len, "PMIx_Fence", rc);
}

static int plugin_fence(int timeout_s, char* err, size_t err_len) {
  return plugin_fence_opt(1, timeout_s, err, err_len);
}

static int plugin_put_bytes(const char* key, const void* data, size_t len, char* err, size_t err_len) {
  pmix_value_t v;
  PMIX_VALUE_CONSTRUCT(&v);
  v.type = PMIX_BYTE_OBJECT;
  v.data.bo.bytes = (char*)data; /* PMIx_Put copies; not released here */
  v.data.bo.size = len;
  pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &v);
  if (rc != PMIX_SUCCESS) return pmix_fail(err, err_len, "PMIx_Put", rc);
  rc = PMIx_Commit();
  return rc == PMIX_SUCCESS ? 0 : pmix_fail(err, err_len, "PMIx_Commit", rc);
}

/* PMIx_Get of `key` put by `rank`, bounded by timeout_s; *v is the caller's to release. */
static pmix_status_t get_value(unsigned rank, const char* key, int timeout_s, pmix_value_t** v) {
  pmix_info_t info;
  PMIX_INFO_CONSTRUCT(&info);
  PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &timeout_s, PMIX_INT);
  pmix_proc_t from;
  PMIX_LOAD_PROCID(&from, g_me.nspace, rank);
  const pmix_status_t rc = PMIx_Get(&from, key, &info, 1, v);
  PMIX_INFO_DESTRUCT(&info);
  return rc;
}

static int plugin_get_bytes(unsigned rank, const char* key, int timeout_s,
                            void (*sink)(void* arg, const void* data, size_t len), void* arg, char* err,
                            size_t err_len) {
  pmix_value_t* v = NULL;
  const pmix_status_t rc = get_value(rank, key, timeout_s, &v);
  if (rc != PMIX_SUCCESS) {
    if (v != NULL) PMIX_VALUE_RELEASE(v);
    return fail(err, err_len, "PMIx_Get(%s) of rank %u failed: %s", key, rank, PMIx_Error_string(rc));
  }
  int result = 0;
  if (v == NULL || v->type != PMIX_BYTE_OBJECT)
    result = fail(err, err_len, "PMIx_Get(%s) of rank %u did not return a byte object", key, rank);
  else
    sink(arg, v->data.bo.bytes, v->data.bo.size);
  if (v != NULL) PMIX_VALUE_RELEASE(v);
  return result;
}

static int plugin_get(unsigned rank, const char* key, int timeout_s, char* out, size_t out_len, char* err,
                      size_t err_len) {
  pmix_value_t* v = NULL;
  const pmix_status_t rc = get_value(rank, key, timeout_s, &v);
  if (rc != PMIX_SUCCESS) {
    if (v != NULL) PMIX_VALUE_RELEASE(v);
    return pmix_fail(err, err_len, "PMIx_Get", rc);
  }
  int result = 0;
  if (v == NULL || v->type != PMIX_STRING || v->data.string == NULL)
    result = fail(err, err_len, "PMIx_Get(%s) of rank %u did not return a string", key, rank);
  else if (strlen(v->data.string) + 1 > out_len)
    result = fail(err, err_len, "PMIx_Get(%s) of rank %u returned %zu bytes, more than the %zu expected", key, rank,
                  strlen(v->data.string), out_len - 1);
  else
    memcpy(out, v->data.string, strlen(v->data.string) + 1);
  if (v != NULL) PMIX_VALUE_RELEASE(v);
  return result;
}

static void plugin_finalize(void) { PMIx_Finalize(NULL, 0); }

static const shmem_pmix_plugin kTable = {
    SHMEM_PLUGIN_HEAD(SHMEM_PLUGIN_KIND_BOOTSTRAP_PMIX, SHMEM_BOOTSTRAP_PLUGIN_ABI_VERSION, shmem_pmix_plugin),
    plugin_init,
    plugin_put,
    plugin_fence,
    plugin_get,
    plugin_finalize,
    plugin_put_bytes,
    plugin_fence_opt,
    plugin_get_bytes};

__attribute__((visibility("default"))) const shmem_plugin_head* shmem_plugin_table(void) { return &kTable.head; }
