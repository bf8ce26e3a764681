// shmem._core: the compiled half of `import shmem`. The pure-Python package (python/shmem/)
// gives it shmem4py's names and argument order; see docs/python.md.
#include "common.hpp"

PYBIND11_MODULE(_core, m) {
  m.doc() = "OpenSHMEM 1.6 bindings (compiled core of the shmem package)";
  shmem_py::bind_setup(m);
  shmem_py::bind_memory(m);
  shmem_py::bind_rma(m);
  shmem_py::bind_amo(m);
  shmem_py::bind_sync(m);
  shmem_py::bind_team(m);
  shmem_py::bind_coll(m);
  m.attr("CTX_DEFAULT") = reinterpret_cast<std::uintptr_t>(SHMEM_CTX_DEFAULT);
  m.attr("CTX_INVALID") = reinterpret_cast<std::uintptr_t>(SHMEM_CTX_INVALID);
  m.attr("CTX_SERIALIZED") = SHMEM_CTX_SERIALIZED;
  m.attr("CTX_PRIVATE") = SHMEM_CTX_PRIVATE;
  m.attr("CTX_NOSTORE") = SHMEM_CTX_NOSTORE;
  m.attr("MALLOC_ATOMICS_REMOTE") = SHMEM_MALLOC_ATOMICS_REMOTE;
  m.attr("MALLOC_SIGNAL_REMOTE") = SHMEM_MALLOC_SIGNAL_REMOTE;
}
