// Library setup, exit and query: init (explicit or lazy), finalize, global_exit, PE queries,
// addr_accessible, ptr, version and name, pcontrol.
#include <cstring>

#include "common.hpp"
#include "memory.hpp"

namespace shmem_py {

namespace {

enum class State { kFresh, kActive, kFinalized };
State g_state = State::kFresh;  // guarded by the GIL

int do_init(int requested) {
  if (g_state == State::kFinalized)
    raise_error(kNotInitializedCode,
                "shmem cannot be initialised again after shmem.finalize() (the library supports one "
                "init/finalize cycle per process)");
  int provided = SHMEM_THREAD_SINGLE;
  int rc = 0;
  {
    py::gil_scoped_release nogil;
    rc = shmem_init_thread(requested, &provided);
  }
  check_rc(rc, "shmem_init_thread");
  g_state = State::kActive;
  return provided;
}

}  // namespace

bool active() noexcept { return g_state == State::kActive; }

void ensure_init() {
  if (g_state == State::kActive) return;
  if (g_state == State::kFinalized)
    raise_error(kNotInitializedCode, "shmem was finalized: no call can follow shmem.finalize()");
  int initialized = 0;
  shmem_query_initialized(&initialized);  // someone else (C code in this process) may have done it
  if (initialized) {
    g_state = State::kActive;
    return;
  }
  do_init(SHMEM_THREAD_SINGLE);
}

void bind_setup(py::module_& m) {
  m.def("init", [] { (void)do_init(SHMEM_THREAD_SINGLE); });
  m.def("init_thread", [](int requested) {
    if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE)
      raise_value("requested=" + std::to_string(requested) + " is not a THREAD level");
    return do_init(requested);
  });
  m.def("query_thread", [] {
    ensure_init();
    int provided = SHMEM_THREAD_SINGLE;
    shmem_query_thread(&provided);
    return provided;
  });
  m.def("initialized", [] { return g_state == State::kActive; });
  m.def("finalized", [] { return g_state == State::kFinalized; });
  m.def("finalize", [] {
    if (g_state == State::kActive) {
      forget_all_allocations();
      py::gil_scoped_release nogil;
      shmem_finalize();
    }
    g_state = State::kFinalized;
  });
  m.def("global_exit", [](int status) {
    py::gil_scoped_release nogil;
    shmem_global_exit(status);
  });
  m.def("my_pe", [] {
    ensure_init();
    return shmem_my_pe();
  });
  m.def("n_pes", [] {
    ensure_init();
    return shmem_n_pes();
  });
  m.def("pe_accessible", [](int pe) {
    ensure_init();
    return shmem_pe_accessible(pe) != 0;
  });
  m.def("addr_accessible", [](py::handle addr, int pe) {
    ensure_init();
    const Operand op = operand(addr, "addr", Access::kRead, true);
    return shmem_addr_accessible(op.data, pe) != 0;
  });
  // The local address of `target` on PE `pe` as a writable buffer, or None when that PE's
  // memory cannot be reached with loads and stores.
  m.def("ptr", [](py::handle target, int pe) -> py::object {
    ensure_init();
    const Operand op = operand(target, "target", Access::kRead);
    require_symmetric(op);
    if (pe < 0 || pe >= shmem_n_pes()) return py::none();
    void* p = shmem_ptr(op.data, pe);
    if (p == nullptr) return py::none();
    return peer_view(target, p, op.size * op.itemsize, pe);
  });
  m.def("ptr_addr", [](std::uintptr_t addr, int pe) -> std::uintptr_t {
    ensure_init();
    if (pe < 0 || pe >= shmem_n_pes()) return 0;
    return reinterpret_cast<std::uintptr_t>(shmem_ptr(reinterpret_cast<const void*>(addr), pe));
  });
  m.def("info_get_version", [] {
    int major = 0, minor = 0;
    shmem_info_get_version(&major, &minor);
    return py::make_tuple(major, minor);
  });
  m.def("info_get_name", [] {
    char name[SHMEM_MAX_NAME_LEN + 1];
    std::memset(name, 0, sizeof name);
    shmem_info_get_name(name);
    return std::string(name);
  });
  m.def("pcontrol", [](int level) {
    ensure_init();
    shmem_pcontrol(level);
  });
  m.attr("MAJOR_VERSION") = SHMEM_MAJOR_VERSION;
  m.attr("MINOR_VERSION") = SHMEM_MINOR_VERSION;
  m.attr("VENDOR_STRING") = SHMEM_VENDOR_STRING;
  m.attr("MAX_NAME_LEN") = SHMEM_MAX_NAME_LEN;
  m.attr("THREAD_SINGLE") = SHMEM_THREAD_SINGLE;
  m.attr("THREAD_FUNNELED") = SHMEM_THREAD_FUNNELED;
  m.attr("THREAD_SERIALIZED") = SHMEM_THREAD_SERIALIZED;
  m.attr("THREAD_MULTIPLE") = SHMEM_THREAD_MULTIPLE;
}

}  // namespace shmem_py
