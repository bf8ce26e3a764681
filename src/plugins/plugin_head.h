/* The one convention of every shmem plugin (transport, bootstrap MPI/PMIx, CUDA).
 *
 * A plugin is a shared object next to libshmem.so (or in SHMEM_BOOTSTRAP_PLUGIN_DIR) that
 * exports one C symbol, SHMEM_PLUGIN_SYMBOL: a function returning its table. Every table starts
 * with this head; util::load_plugin (src/util/plugin.hpp) refuses a table of another kind, of
 * another ABI version of that kind, or smaller than the loader's own. A kind bumps its
 * abi_version whenever its table changes other than by appending members.
 *
 *   kind            file                          table                   header
 *   TRANSPORT       libshmem_transport_ucx.so     transport::PluginTable  transport/plugin_abi.hpp
 *   BOOTSTRAP_MPI   libshmem_bootstrap_mpi.so     shmem_mpi_plugin        bootstrap_plugin_abi.h
 *   BOOTSTRAP_PMIX  libshmem_bootstrap_pmix.so    shmem_pmix_plugin       bootstrap_plugin_abi.h
 *   CUDA            libshmem_cuda.so              shmem_cuda_plugin       cuda_plugin_abi.h
 */
#ifndef SHMEM_PLUGINS_PLUGIN_HEAD_H
#define SHMEM_PLUGINS_PLUGIN_HEAD_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum shmem_plugin_kind {
  SHMEM_PLUGIN_KIND_TRANSPORT = 1,
  SHMEM_PLUGIN_KIND_BOOTSTRAP_MPI = 2,
  SHMEM_PLUGIN_KIND_BOOTSTRAP_PMIX = 3,
  SHMEM_PLUGIN_KIND_CUDA = 4
};

typedef struct shmem_plugin_head {
  uint32_t kind;        /* shmem_plugin_kind */
  uint32_t abi_version; /* the kind's ABI version the plugin was built with */
  uint32_t size;        /* sizeof the whole table in the plugin's build */
  uint32_t reserved;    /* 0 */
} shmem_plugin_head;

#define SHMEM_PLUGIN_SYMBOL "shmem_plugin_table"
typedef const shmem_plugin_head* (*shmem_plugin_table_fn)(void);

/* The head of a table of kind K, version V: SHMEM_PLUGIN_HEAD(SHMEM_PLUGIN_KIND_CUDA, 2, my_table). */
#define SHMEM_PLUGIN_HEAD(kind, version, table_type) \
  { (uint32_t)(kind), (uint32_t)(version), (uint32_t)sizeof(table_type), 0u }

#ifdef __cplusplus
}
#endif

#endif /* SHMEM_PLUGINS_PLUGIN_HEAD_H */
