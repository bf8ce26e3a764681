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
    case 'f': return pick({{2, Elem::F16}, {4, Elem::F32}, {8, Elem::F64}, {sizeof(long double), Elem::F128}});
    case 'c': return pick({{8, Elem::C64}, {16, Elem::C128}, {2 * sizeof(long double), Elem::C256}});
    default: return Elem::Other;
  }
}

std::string dtype_name(const py::dtype& dt) { return dt.attr("__str__")().cast<std::string>(); }

// ---- array arguments ----------------------------------------------------------------------------------
namespace {

Operand finish_layout(Operand op, bool contiguous, std::size_t ndim, std::ptrdiff_t stride0, bool allow_strided) {
  if (contiguous) return op;
  if (allow_strided && ndim == 1 && stride0 > 0 && static_cast<std::size_t>(stride0) % op.itemsize == 0) {
    op.stride = stride0 / static_cast<std::ptrdiff_t>(op.itemsize);
    return op;
  }
  raise_value(std::string(op.name) + " is not contiguous" +
              (allow_strided ? " (only contiguous arrays and 1-D views with a positive stride are supported)"
                             : " (this operation needs contiguous memory)"));
}

Operand array_operand(const py::array& a, py::handle orig, const char* name, Access access, bool allow_strided) {
  Operand op;
  op.name = name;
  op.obj = py::reinterpret_borrow<py::object>(orig);
  const py::dtype dt = a.dtype();
  op.kind = dt.kind();
  op.type = dtype_name(dt);
  op.itemsize = static_cast<std::size_t>(a.itemsize());
  op.size = static_cast<std::size_t>(a.size());
  op.elem = elem_of(dt);
  if (op.kind == 'V') op.type = py::str(dt.attr("descr")).cast<std::string>();  // structured: exact
  const auto order = dt.attr("byteorder").cast<std::string>();
  if (order == ">") raise_type(std::string(name) + " has a non-native byte order (" + dtype_name(dt) + ")");
  if (access == Access::kWrite && !a.writeable()) raise_value(std::string(name) + " is read-only");
  op.data = static_cast<char*>(const_cast<void*>(a.data()));
  const int flags = a.flags();
  const bool contiguous = (flags & py::array::c_style) || (flags & py::array::f_style);
  return finish_layout(std::move(op), contiguous, static_cast<std::size_t>(a.ndim()), a.ndim() == 1 ? a.strides(0) : 0,
                       allow_strided);
}

// DLPack's C ABI (dlpack.h v0.6-0.8, the one torch 1.13 exports): declared here because only
// these few fields are read.
struct DLDevice {
  std::int32_t device_type;  // 1 CPU, 2 CUDA, 3 CUDA host (pinned), ...
  std::int32_t device_id;
};
struct DLDataType {
  std::uint8_t code;  // 0 int, 1 uint, 2 float, 4 bfloat, 5 complex, 6 bool
  std::uint8_t bits;
  std::uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  std::int32_t ndim;
  DLDataType dtype;
  std::int64_t* shape;
  std::int64_t* strides;  // in elements; NULL: compact row-major
  std::uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor*);
};

Operand dlpack_operand(py::handle orig, const char* name, bool allow_strided) {
  py::object src = py::reinterpret_borrow<py::object>(orig);
  // torch refuses to export a tensor that requires grad; its detached view is the same memory.
  if (py::hasattr(src, "requires_grad") && py::bool_(src.attr("requires_grad"))) src = src.attr("detach")();
  py::object capsule = src.attr("__dlpack__")();
  auto* mt = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  if (mt == nullptr) throw py::error_already_set();
  const DLTensor& t = mt->dl_tensor;
  if (t.device.device_type != 1 && t.device.device_type != 3)
    raise_type(std::string(name) + " is on a device (DLPack device type " + std::to_string(t.device.device_type) +
               "); only CPU memory is supported (move it with .cpu(), or allocate it with shmem.torch.empty)");
  Operand op;
  op.name = name;
  op.obj = src;
  op.keep = capsule;  // its destructor gives the exporter's reference back when we are done
  const unsigned bits = t.dtype.bits;
  op.itemsize = bits / 8;
  if (t.dtype.lanes != 1 || bits % 8 != 0 || bits == 0)
    raise_type(std::string(name) + " has a vector or sub-byte element type (DLPack bits=" + std::to_string(bits) +
               ", lanes=" + std::to_string(t.dtype.lanes) + "), which is not supported");
  const std::string b = std::to_string(bits);
  switch (t.dtype.code) {
    case 0:
      op.kind = 'i';
      op.type = "int" + b;
      break;
    case 1:
      op.kind = 'u';
      op.type = "uint" + b;
      break;
    case 2:
      op.kind = 'f';
      op.type = "float" + b;
      break;
    case 4:
      op.kind = 'f';
      op.type = "bfloat" + b;
      break;
    case 5:
      op.kind = 'c';
      op.type = "complex" + b;
      break;
    case 6:
      op.kind = 'b';
      op.type = "bool";
      break;
    default:
      raise_type(std::string(name) + " has DLPack type code " + std::to_string(t.dtype.code) + ", not supported");
  }
  auto pick = [&](std::initializer_list<std::pair<unsigned, Elem>> table) {
    for (const auto& [s, e] : table)
      if (s == bits) return e;
    return Elem::Other;
  };
  switch (t.dtype.code) {
    case 0: op.elem = pick({{8, Elem::I8}, {16, Elem::I16}, {32, Elem::I32}, {64, Elem::I64}}); break;
    case 1: op.elem = pick({{8, Elem::U8}, {16, Elem::U16}, {32, Elem::U32}, {64, Elem::U64}}); break;
    case 2: op.elem = pick({{16, Elem::F16}, {32, Elem::F32}, {64, Elem::F64}}); break;
    case 4: op.elem = bits == 16 ? Elem::BF16 : Elem::Other; break;
    case 5: op.elem = pick({{64, Elem::C64}, {128, Elem::C128}}); break;
    default: op.elem = Elem::Other; break;
  }
  op.data = static_cast<char*>(t.data) + t.byte_offset;
  op.size = 1;
  for (int i = 0; i < t.ndim; ++i) op.size *= static_cast<std::size_t>(t.shape[i]);
  // Contiguous when the strides are row-major's (dimensions of extent 1 may have any stride).
  bool contiguous = true;
  std::int64_t want = 1;
  if (t.strides != nullptr) {
    for (int i = t.ndim - 1; i >= 0; --i) {
      if (t.shape[i] != 1 && t.strides[i] != want) contiguous = false;
      want *= t.shape[i];
    }
  }
  const std::ptrdiff_t stride0 =
      t.ndim == 1 && t.strides != nullptr ? static_cast<std::ptrdiff_t>(t.strides[0] * op.itemsize) : 0;
  return finish_layout(std::move(op), contiguous || op.size <= 1, static_cast<std::size_t>(t.ndim), stride0,
                       allow_strided);
}

}  // namespace

Operand operand(py::handle obj, const char* name, Access access, bool allow_strided) {
  if (py::isinstance<py::array>(obj))
    return array_operand(py::reinterpret_borrow<py::array>(obj), obj, name, access, allow_strided);
  if (py::hasattr(obj, "__dlpack__")) return dlpack_operand(obj, name, allow_strided);
  if (PyObject_CheckBuffer(obj.ptr())) {  // memoryview, bytearray, array.array, ...: NumPy's view of it
    const py::array a = py::module_::import("numpy").attr("asarray")(obj);
    return array_operand(a, obj, name, access, allow_strided);
  }
  raise_type(std::string(name) + " must be a NumPy array, a CPU tensor (an object with __dlpack__) or a buffer (got " +
             type_name(obj) + ")");
}

void require_same_dtype(const Operand& a, const Operand& b) {
  const bool same =
      a.itemsize == b.itemsize && a.kind == b.kind && a.elem == b.elem && (a.elem != Elem::Other || a.type == b.type);
  if (!same)
    raise_type(std::string("dtype mismatch: ") + a.name + " is " + a.type + " but " + b.name + " is " + b.type);
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
    raise_type("signal must be a uint64 array (got " + sig.type + "); create it with shmem.new_signal()");
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
