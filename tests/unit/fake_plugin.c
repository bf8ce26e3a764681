/* A plugin for util_plugin_test.cpp (PluginLoader.*): its head comes from the build's defines.
 * FAKE_NO_SYMBOL: exports nothing under shmem_plugin_table. */
#include "plugins/plugin_head.h"

typedef struct fake_table {
  shmem_plugin_head head;
  int answer;
} fake_table;

static const fake_table kTable = {{FAKE_KIND, FAKE_VERSION, FAKE_SIZE, 0u}, 42};

#ifdef FAKE_NO_SYMBOL
__attribute__((visibility("default"))) const shmem_plugin_head* another_name(void) { return &kTable.head; }
#else
__attribute__((visibility("default"))) const shmem_plugin_head* shmem_plugin_table(void) { return &kTable.head; }
#endif
