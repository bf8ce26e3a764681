// Library setup, exit and query: init (explicit or lazy), finalize, global_exit, PE queries,
// addr_accessible, ptr, version and name, pcontrol.
#include <aclshmem.h>
#include <shmemx.h>

#include <cstring>

#include "common.hpp"
#include "half.hpp"
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
  // Under torchrun the PEs meet through torch's own store (shmem/torch_bootstrap.py); it
  // initialises through the unique-ID path (aclshmem's: THREAD_MULTIPLE) and says so.
  if (py::module_::import("shmem.torch_bootstrap").attr("meet")().cast<bool>()) {
    shmem_query_thread(&provided);
    return provided;  // acl_init did the rest
  }
  int rc = 0;
  {
    py::gil_scoped_release nogil;
    rc = shmem_init_thread(requested, &provided);
  }
  check_rc(rc, "shmem_init_thread");
  g_state = State::kActive;
  half_scratch_init();
  return provided;
}

// Ascend SHMEM's initialisation (aclshmemx_init_attr): DEFAULT mode (ip_port = "tcp://host:port",
// PE 0 hosts the store) or UNIQUEID mode (uid from PE 0). Collective; the GIL is released.
void acl_init(aclshmemx_bootstrap_t flags, aclshmemx_init_attr_t& attr, const char* func) {
  if (g_state == State::kFinalized)
    raise_error(kNotInitializedCode,
                "shmem cannot be initialised again after shmem.finalize() (the library supports one "
                "init/finalize cycle per process)");
  int initialized = 0;
  shmem_query_initialized(&initialized);
  if (g_state == State::kActive || initialized)
    raise_error(ACLSHMEM_INVALID_PARAM, std::string(func) + ": the library is already initialised");
  int rc = 0;
  {
    py::gil_scoped_release nogil;
    rc = aclshmemx_init_attr(flags, &attr);
  }
  check_rc(rc, "aclshmemx_init_attr");
  g_state = State::kActive;
  half_scratch_init();
}

aclshmemx_init_attr_t make_attr(int my_pe, int n_pes, std::int64_t local_mem_size) {
  if (local_mem_size < 0 || static_cast<std::uint64_t>(local_mem_size) > ACLSHMEM_MAX_LOCAL_SIZE)
    raise_error(ACLSHMEM_INVALID_VALUE,
                "local_mem_size=" + std::to_string(local_mem_size) + " must be between 0 and 40 GiB");
  aclshmemx_init_attr_t attr;  // C++: Ascend SHMEM's defaults (timeouts 120 s, engine MTE, ...)
  attr.my_pe = my_pe;
  attr.n_pes = n_pes;
  std::memset(attr.ip_port, 0, sizeof attr.ip_port);
  attr.local_mem_size = static_cast<std::uint64_t>(local_mem_size);
  return attr;
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
  // How to start is shmem.rc's (shmem4py's runtime configuration), read now, at first use; it
  // raises when rc.initialize is False (the program initialises explicitly).
  const int level = py::module_::import("shmem._rc").attr("_first_use")().cast<int>();
  do_init(level);
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
  // At interpreter exit: the C library finalizes from its own exit handler, which sees the exit
  // status (sys.exit(n), raise SystemExit(n), an uncaught exception): 0 finalizes, anything else
  // ends the job naming this PE. The arrays' memory is the library's to release from now on.
  m.def("finalize_at_exit", [] {
    if (g_state != State::kActive) return;
    forget_all_allocations();
    g_state = State::kFinalized;
    shmemx_finalize_at_exit();
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
    if (!maybe_symmetric(op)) return py::none();  // as shmem_ptr (and shmem4py): not accessible
    require_symmetric(op);                         // freed memory and peer views are still errors
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

  // ---- Ascend SHMEM's initialisation (aclshmem.h) ----
  py::class_<aclshmemx_uniqueid_t>(m, "UniqueId",
                                   "The unique ID made on PE 0 (aclshmem_get_unique_id); bytes(uid) and "
                                   "UniqueId.from_bytes(b) carry it to the other PEs by any means.")
      .def(py::init([] {
        aclshmemx_uniqueid_t uid = ACLSHMEM_UNIQUEID_INITIALIZER;
        return uid;
      }))
      .def("__bytes__", [](const aclshmemx_uniqueid_t& uid) {
        return py::bytes(reinterpret_cast<const char*>(&uid), sizeof uid);
      })
      .def_static("from_bytes", [](const py::bytes& b) {
        const std::string data = b;
        if (data.size() != sizeof(aclshmemx_uniqueid_t))
          raise_error(ACLSHMEM_INVALID_PARAM, "UniqueId.from_bytes: got " + std::to_string(data.size()) +
                                                  " bytes, a unique ID has " +
                                                  std::to_string(sizeof(aclshmemx_uniqueid_t)));
        aclshmemx_uniqueid_t uid;
        std::memcpy(&uid, data.data(), sizeof uid);
        return uid;
      })
      .def("__eq__", [](const aclshmemx_uniqueid_t& a, const aclshmemx_uniqueid_t& b) {
        return std::memcmp(&a, &b, sizeof a) == 0;
      })
      .def_property_readonly("version", [](const aclshmemx_uniqueid_t& u) { return u.version; })
      .def_property_readonly_static("size", [](py::object) { return sizeof(aclshmemx_uniqueid_t); })
      .def("__repr__", [](const aclshmemx_uniqueid_t& u) {
        return "<shmem.UniqueId version=" + std::to_string(u.version) + ">";
      });
  m.def("acl_get_unique_id", [] {
    if (g_state != State::kFresh)
      raise_error(ACLSHMEM_INVALID_PARAM,
                  "aclshmem_get_unique_id must be called on PE 0 before the library is initialised");
    aclshmemx_uniqueid_t uid = ACLSHMEM_UNIQUEID_INITIALIZER;
    int rc = 0;
    {
      py::gil_scoped_release nogil;
      rc = aclshmemx_get_uniqueid(&uid);
    }
    check_rc(rc, "aclshmemx_get_uniqueid");
    return uid;
  });
  m.def("acl_init_uid", [](int my_pe, int n_pes, std::int64_t mem_size, aclshmemx_uniqueid_t uid) {
    aclshmemx_init_attr_t attr = make_attr(my_pe, n_pes, mem_size);
    check_rc(aclshmemx_set_attr_uniqueid_args(my_pe, n_pes, mem_size, &uid, &attr),
             "aclshmemx_set_attr_uniqueid_args");
    acl_init(ACLSHMEMX_INIT_WITH_UNIQUEID, attr, "aclshmem_init_using_unique_id");
  });
  m.def("acl_init_default",
        [](int my_pe, int n_pes, const std::string& ip_port, std::int64_t mem_size, std::uint32_t shm_init_timeout,
           std::uint32_t control_operation_timeout, int data_op_engine_type) {
          aclshmemx_init_attr_t attr = make_attr(my_pe, n_pes, mem_size);
          if (ip_port.size() >= sizeof attr.ip_port)
            raise_error(ACLSHMEM_INVALID_PARAM, "ip_port is longer than " +
                                                    std::to_string(sizeof attr.ip_port - 1) + " characters");
          std::memcpy(attr.ip_port, ip_port.data(), ip_port.size());
          attr.option_attr.shm_init_timeout = shm_init_timeout;
          attr.option_attr.control_operation_timeout = control_operation_timeout;
          attr.option_attr.data_op_engine_type = static_cast<data_op_engine_type_t>(data_op_engine_type);
          acl_init(ACLSHMEMX_INIT_WITH_DEFAULT, attr, "aclshmem_init");
        });
  m.def("acl_init_status", [] { return aclshmemx_init_status(); });
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
