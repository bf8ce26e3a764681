#pragma once
// Shared pieces of the `shmem._core` extension: errors, the lazy initialisation state, element
// kinds, and the checked view of an array argument (Operand): a NumPy array, a tensor (anything
// with __dlpack__, e.g. torch.Tensor on the CPU) or a buffer, never copied. The extension calls the public C
// API only (<shmem.h>); every check here runs before the C call, because the C library ends the
// job on a bad argument to a void function instead of returning an error.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <shmem.h>

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace shmem_py {

namespace py = pybind11;

// ---- errors -------------------------------------------------------------------------------------
// The exception classes live in shmem/_errors.py; these raise them. `code` is the library's
// return code (negative) or kArgumentCode for a check made here.
inline constexpr int kArgumentCode = -1;  // the library's "invalid argument"
inline constexpr int kNotInitializedCode = -5;
inline constexpr int kOutOfMemoryCode = -8;
inline constexpr int kNotSupportedCode = -100;

[[noreturn]] void raise_error(int code, const std::string& msg);  // shmem.ShmemError
[[noreturn]] void raise_value(const std::string& msg);            // shmem.ShmemValueError
[[noreturn]] void raise_type(const std::string& msg);             // shmem.ShmemTypeError
[[noreturn]] void raise_key(const std::string& msg);              // shmem.ShmemKeyError (a KeyError too)
// A nonzero return code of C function `func` becomes ShmemError.
void check_rc(int rc, const char* func);

// ---- lifecycle ------------------------------------------------------------------------------------
// Lazily initialises (shmem_init_thread(SINGLE)) on the first call that needs the library;
// raises after finalize. Every binding that touches the runtime calls this first.
void ensure_init();
bool active() noexcept;

// ---- element kinds ----------------------------------------------------------------------------------
// Dispatch is by numeric kind and size, not by C type name: 'l' and 'q' are the same on LP64.
// F16 (IEEE binary16) and BF16 have no C type in the library: the reductions convert them (half.hpp).
enum class Elem : std::uint8_t {
  I8,
  I16,
  I32,
  I64,
  U8,
  U16,
  U32,
  U64,
  F16,
  BF16,
  F32,
  F64,
  F128,
  C64,
  C128,
  C256,
  Other
};
Elem elem_of(const py::dtype& dt) noexcept;
std::string dtype_name(const py::dtype& dt);

// Calls fn(Tag<T>{}) with T the C type for `e` (long for int64, unsigned long for uint64, ...), or
// returns fallback() for kinds without a C type here.
template <class T>
using Tag = std::type_identity<T>;
template <class Fn, class Fallback>
decltype(auto) visit_elem(Elem e, Fn&& fn, Fallback&& fallback) {
  switch (e) {
    case Elem::I8: return fn(Tag<signed char>{});
    case Elem::I16: return fn(Tag<short>{});
    case Elem::I32: return fn(Tag<int>{});
    case Elem::I64: return fn(Tag<long>{});
    case Elem::U8: return fn(Tag<unsigned char>{});
    case Elem::U16: return fn(Tag<unsigned short>{});
    case Elem::U32: return fn(Tag<unsigned int>{});
    case Elem::U64: return fn(Tag<unsigned long>{});
    case Elem::F32: return fn(Tag<float>{});
    case Elem::F64: return fn(Tag<double>{});
    case Elem::F128: return fn(Tag<long double>{});
    case Elem::C64: return fn(Tag<std::complex<float>>{});
    case Elem::C128: return fn(Tag<std::complex<double>>{});
    default: return fallback();
  }
}

// ---- array arguments ---------------------------------------------------------------------------------
// A checked view of an array argument: a NumPy array, an object with __dlpack__ (a CPU
// torch.Tensor: no copy, bfloat16 included) or any other buffer (memoryview, bytearray: viewed
// through NumPy, no copy). Contiguous arrays (C or Fortran order, any shape) are flat memory
// (stride 1); a 1-D view with a positive stride that is a multiple of the item size has
// stride > 1 where the caller allows it.
struct Operand {
  const char* name = "";
  char* data = nullptr;
  std::size_t size = 0;      // elements
  std::size_t itemsize = 0;  // bytes
  std::ptrdiff_t stride = 1; // in elements
  Elem elem = Elem::Other;
  char kind = 'V';   // NumPy's kind letter ('f' for float16 and bfloat16 too)
  std::string type;  // "float32", "bfloat16", ...: for messages and dtype checks
  py::object obj;    // the argument itself (an array's base chain tells who owns the memory)
  py::object keep;   // a DLPack capsule: holds the exporter's reference while in use

  std::size_t extent_bytes() const noexcept {
    return size == 0 ? 0 : ((size - 1) * static_cast<std::size_t>(stride) + 1) * itemsize;
  }
};

enum class Access { kRead, kWrite };
Operand operand(py::handle obj, const char* name, Access access, bool allow_strided = false);

// Raises unless `op` lies inside one live symmetric allocation: not freed, not a peer view from
// shmem.ptr, not ordinary process memory.
void require_symmetric(const Operand& op);
// False for memory that is neither this package's nor on the symmetric heap (no error raised).
bool maybe_symmetric(const Operand& op);
// The same for a raw address range (Ascend SHMEM's integer-address API).
void require_symmetric_addr(std::uintptr_t addr, std::size_t bytes, const char* name);
// Raises unless `a` and `b` have the same element kind and size.
void require_same_dtype(const Operand& a, const Operand& b);
// Raises unless `op` holds exactly one element.
void require_scalar(const Operand& op);
// The signal word: a symmetric uint64 array of one element.
Operand signal_operand(py::handle signal);
// `size` argument: None -> fallback; otherwise a non-negative int.
std::size_t size_arg(py::handle size, std::size_t fallback);
// Converts a Python number to T, raising ShmemTypeError naming `name` on a lossy conversion.
template <class T>
T value_arg(py::handle v, const char* name) {
  try {
    return py::cast<T>(v);
  } catch (const py::cast_error&) {
    raise_type(std::string(name) + "=" + py::repr(v).cast<std::string>() + " cannot be converted to the array's C type");
  }
}

// ---- handles -------------------------------------------------------------------------------------------
// Contexts and teams cross into Python as integers (the handle's bits).
inline shmem_ctx_t ctx_of(std::uintptr_t h) noexcept { return reinterpret_cast<shmem_ctx_t>(h); }
// Raises unless 0 <= pe < number of PEs of the context's team (the world for the default context).
void check_pe(int pe, std::uintptr_t ctx, const char* name = "pe");
void check_ctx(std::uintptr_t ctx);
// Number of PEs of a team handle (0 = the world team); raises for an invalid team.
int team_size(std::uintptr_t team);

// ---- registration ------------------------------------------------------------------------------------
void bind_setup(py::module_& m);
void bind_memory(py::module_& m);
void bind_rma(py::module_& m);
void bind_amo(py::module_& m);
void bind_sync(py::module_& m);
void bind_team(py::module_& m);
void bind_coll(py::module_& m);

// Marks every live symmetric allocation freed (at finalize).
void forget_all_allocations() noexcept;

}  // namespace shmem_py
