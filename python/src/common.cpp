// Errors, element kinds and argument checks shared by every binding file.
#include "common.hpp"

#include <limits>

namespace shmem_py {

namespace {

[[noreturn]] void raise_class(const char* cls_name, int code, const std::string& msg) {
  py::object cls = py::module_::import("shmem._errors").attr(cls_name);
  py::object exc = cls(code, msg);
  PyErr_SetObject(cls.ptr(), exc.ptr());
  throw py::error_already_set();
}

std::string type_name(py::handle obj) { return py::type::handle_of(obj).attr("__name__").cast<std::string>(); }

}  // namespace

void raise_error(int code, const std::string& msg) { raise_class("ShmemError", code, msg); }
void raise_value(const std::string& msg) { raise_class("ShmemValueError", kArgumentCode, msg); }
void raise_type(const std::string& msg) { raise_class("ShmemTypeError", kArgumentCode, msg); }
void raise_key(const std::string& msg) { raise_class("ShmemKeyError", kArgumentCode, msg); }

void check_rc(int rc, const char* func) {
  if (rc != 0)
    raise_error(rc, std::string(func) + " failed (the library logs the reason on stderr)");
}

// ---- element kinds ---------------------------------------------------------------------------------
Elem elem_of(const py::dtype& dt) noexcept {
  const char kind = dt.kind();
  const auto size = static_cast<std::size_t>(dt.itemsize());
  auto pick = [size](std::initializer_list<std::pair<std::size_t, Elem>> table) {
    for (const auto& [s, e] : table)
      if (s == size) return e;
    return Elem::Other;
  };
  switch (kind) {
    case 'i': return pick({{1, Elem::I8}, {2, Elem::I16}, {4, Elem::I32}, {8, Elem::I64}});
    case 'u': return pick({{1, Elem::U8}, {2, Elem::U16}, {4, Elem::U32}, {8, Elem::U64}});
    case 'f': return pick({{4, Elem::F32}, {8, Elem::F64}, {sizeof(long double), Elem::F128}});
    case 'c': return pick({{8, Elem::C64}, {16, Elem::C128}, {2 * sizeof(long double), Elem::C256}});
    default: return Elem::Other;
  }
}

std::string dtype_name(const py::dtype& dt) { return dt.attr("__str__")().cast<std::string>(); }

// ---- array arguments ----------------------------------------------------------------------------------
Operand operand(py::handle obj, const char* name, Access access, bool allow_strided) {
  if (!py::isinstance<py::array>(obj))
    raise_type(std::string(name) + " must be a NumPy array (got " + type_name(obj) + ")");
  auto a = py::reinterpret_borrow<py::array>(obj);
  Operand op;
  op.name = name;
  op.obj = a;
  op.dtype = a.dtype();
  op.itemsize = static_cast<std::size_t>(a.itemsize());
  op.size = static_cast<std::size_t>(a.size());
  op.elem = elem_of(op.dtype);
  const auto order = op.dtype.attr("byteorder").cast<std::string>();
  if (order == ">")
    raise_type(std::string(name) + " has a non-native byte order (" + dtype_name(op.dtype) + ")");
  if (access == Access::kWrite && !a.writeable()) raise_value(std::string(name) + " is read-only");
  op.data = static_cast<char*>(const_cast<void*>(a.data()));
  const int flags = a.flags();
  if ((flags & py::array::c_style) || (flags & py::array::f_style)) return op;
  if (allow_strided && a.ndim() == 1 && a.strides(0) > 0 &&
      static_cast<std::size_t>(a.strides(0)) % op.itemsize == 0) {
    op.stride = a.strides(0) / static_cast<std::ptrdiff_t>(op.itemsize);
    return op;
  }
  raise_value(std::string(name) + " is not contiguous" +
              (allow_strided ? " (only contiguous arrays and 1-D views with a positive stride are supported)"
                             : " (this operation needs contiguous memory)"));
}

void require_same_dtype(const Operand& a, const Operand& b) {
  const bool same = a.itemsize == b.itemsize && a.dtype.kind() == b.dtype.kind() &&
                    (a.elem != Elem::Other || a.dtype.equal(b.dtype));
  if (!same)
    raise_type(std::string("dtype mismatch: ") + a.name + " is " + dtype_name(a.dtype) + " but " + b.name +
               " is " + dtype_name(b.dtype));
}

void require_scalar(const Operand& op) {
  if (op.size != 1)
    raise_value(std::string(op.name) + " must hold exactly one element (it holds " + std::to_string(op.size) + ")");
}

std::size_t size_arg(py::handle size, std::size_t fallback) {
  if (size.is_none()) return fallback;
  long long v = 0;
  try {
    v = size.cast<long long>();
  } catch (const py::cast_error&) {
    raise_type("size must be an int or None (got " + type_name(size) + ")");
  }
  if (v < 0) raise_value("size=" + std::to_string(v) + " is negative");
  return static_cast<std::size_t>(v);
}

// The signal word: a symmetric uint64 array of one element.
Operand signal_operand(py::handle signal) {
  Operand sig = operand(signal, "signal", Access::kRead);
  if (sig.elem != Elem::U64)
    raise_type("signal must be a uint64 array (got " + dtype_name(sig.dtype) + "); create it with shmem.new_signal()");
  require_scalar(sig);
  require_symmetric(sig);
  return sig;
}

void check_ctx(std::uintptr_t ctx) {
  if (ctx == reinterpret_cast<std::uintptr_t>(SHMEM_CTX_INVALID))
    raise_value("ctx is invalid (it was destroyed, or its creation failed)");
}

void check_pe(int pe, std::uintptr_t ctx, const char* name) {
  ensure_init();
  check_ctx(ctx);
  int npes = shmem_n_pes();
#ifdef SHMEM_SHMEM_TEAM_H
  if (ctx != 0) {
    shmem_team_t team = SHMEM_TEAM_INVALID;
    if (shmem_ctx_get_team(ctx_of(ctx), &team) == 0 && team != SHMEM_TEAM_INVALID) npes = shmem_team_n_pes(team);
  }
#endif
  if (pe < 0 || pe >= npes)
    raise_value(std::string(name) + "=" + std::to_string(pe) + " is out of range: valid PEs are 0.." +
                std::to_string(npes - 1));
}

int team_size(std::uintptr_t team) {
  ensure_init();
#ifdef SHMEM_SHMEM_TEAM_H
  const int n = shmem_team_n_pes(reinterpret_cast<shmem_team_t>(team));
  if (n <= 0) raise_value("team is invalid (SHMEM_TEAM_INVALID, destroyed, or this PE is not a member)");
  return n;
#else
  if (team != 1) raise_error(kNotSupportedCode, "teams other than TEAM_WORLD need a library with team support");
  return shmem_n_pes();
#endif
}

}  // namespace shmem_py
