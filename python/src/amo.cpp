// Atomic memory operations on one-element symmetric arrays: the blocking forms and the
// fetching _nbi forms, dispatched on the array's dtype to the typed C routines.
#include <string_view>

#include "typed.hpp"

namespace shmem_py {

namespace {

enum class Op { kSet, kInc, kAdd, kAnd, kOr, kXor, kFetch, kSwap, kCompareSwap, kFetchInc, kFetchAdd, kFetchAnd, kFetchOr, kFetchXor };

struct OpInfo {
  std::string_view name;
  Op op;
  const char* supported;  // dtypes, for the error message
};

constexpr const char* kStdTypes = "int32, int64, uint32, uint64";
constexpr const char* kExtTypes = "int32, int64, uint32, uint64, float32, float64";

constexpr OpInfo kOps[] = {
    {"set", Op::kSet, kExtTypes},          {"inc", Op::kInc, kStdTypes},
    {"add", Op::kAdd, kStdTypes},          {"and", Op::kAnd, kStdTypes},
    {"or", Op::kOr, kStdTypes},            {"xor", Op::kXor, kStdTypes},
    {"fetch", Op::kFetch, kExtTypes},      {"swap", Op::kSwap, kExtTypes},
    {"compare_swap", Op::kCompareSwap, kStdTypes}, {"fetch_inc", Op::kFetchInc, kStdTypes},
    {"fetch_add", Op::kFetchAdd, kStdTypes}, {"fetch_and", Op::kFetchAnd, kStdTypes},
    {"fetch_or", Op::kFetchOr, kStdTypes}, {"fetch_xor", Op::kFetchXor, kStdTypes},
};

const OpInfo& op_info(const std::string& name) {
  for (const auto& o : kOps)
    if (o.name == name) return o;
  raise_value("unknown atomic operation '" + name + "'");
}

[[noreturn]] void unsupported(const OpInfo& o, const Operand& t) {
  raise_type("atomic_" + std::string(o.name) + " does not support dtype " + t.type + " (supported: " + o.supported +
             ")");
}

// One case of the dispatch: TRAIT<T>::MEMBER called with the arguments, when T supports it.
#define SHMEM_PY_AMO_CASE(OP, TRAIT, MEMBER, ...)                                                \
  case Op::OP:                                                                                   \
    if constexpr (requires { TRAIT<T>::MEMBER; }) return call_nogil(TRAIT<T>::MEMBER, __VA_ARGS__); \
    break;

py::object amo(const std::string& name, py::handle target, py::handle value, py::handle cond, int pe,
               std::uintptr_t ctx) {
  const OpInfo& o = op_info(name);
  const bool reads_only = o.op == Op::kFetch;
  const Operand t = operand(target, reads_only ? "source" : "target", reads_only ? Access::kRead : Access::kWrite);
  require_scalar(t);
  require_symmetric(t);
  check_pe(pe, ctx);
  const shmem_ctx_t c = ctx_of(ctx);
  return visit_elem(
      t.elem,
      [&]<class T>(Tag<T>) -> py::object {
        T* p = reinterpret_cast<T*>(t.data);
        auto v = [&] { return value_arg<T>(value, "value"); };
        switch (o.op) {
          SHMEM_PY_AMO_CASE(kSet, AmoExt, set, c, p, v(), pe)
          SHMEM_PY_AMO_CASE(kInc, AmoStd, inc, c, p, pe)
          SHMEM_PY_AMO_CASE(kAdd, AmoStd, add, c, p, v(), pe)
          SHMEM_PY_AMO_CASE(kAnd, AmoBit, and_, c, p, v(), pe)
          SHMEM_PY_AMO_CASE(kOr, AmoBit, or_, c, p, v(), pe)
          SHMEM_PY_AMO_CASE(kXor, AmoBit, xor_, c, p, v(), pe)
          SHMEM_PY_AMO_CASE(kFetch, AmoExt, fetch, c, p, pe)
          SHMEM_PY_AMO_CASE(kSwap, AmoExt, swap, c, p, v(), pe)
          SHMEM_PY_AMO_CASE(kCompareSwap, AmoStd, compare_swap, c, p, value_arg<T>(cond, "cond"), v(), pe)
          SHMEM_PY_AMO_CASE(kFetchInc, AmoStd, fetch_inc, c, p, pe)
          SHMEM_PY_AMO_CASE(kFetchAdd, AmoStd, fetch_add, c, p, v(), pe)
          SHMEM_PY_AMO_CASE(kFetchAnd, AmoBit, fetch_and, c, p, v(), pe)
          SHMEM_PY_AMO_CASE(kFetchOr, AmoBit, fetch_or, c, p, v(), pe)
          SHMEM_PY_AMO_CASE(kFetchXor, AmoBit, fetch_xor, c, p, v(), pe)
        }
        unsupported(o, t);
      },
      [&]() -> py::object { unsupported(o, t); });
}

py::object amo_nbi(const std::string& name, py::handle fetch, py::handle target, py::handle value, py::handle cond,
                   int pe, std::uintptr_t ctx) {
  const OpInfo& o = op_info(name);
  const bool reads_only = o.op == Op::kFetch;
  const Operand f = operand(fetch, "fetch", Access::kWrite);
  const Operand t = operand(target, reads_only ? "source" : "target", reads_only ? Access::kRead : Access::kWrite);
  require_scalar(f);
  require_scalar(t);
  require_same_dtype(f, t);
  require_symmetric(t);
  check_pe(pe, ctx);
  const shmem_ctx_t c = ctx_of(ctx);
  return visit_elem(
      t.elem,
      [&]<class T>(Tag<T>) -> py::object {
        T* p = reinterpret_cast<T*>(t.data);
        T* out = reinterpret_cast<T*>(f.data);
        auto v = [&] { return value_arg<T>(value, "value"); };
        switch (o.op) {
          SHMEM_PY_AMO_CASE(kFetch, AmoExt, fetch_nbi, c, out, p, pe)
          SHMEM_PY_AMO_CASE(kSwap, AmoExt, swap_nbi, c, out, p, v(), pe)
          SHMEM_PY_AMO_CASE(kCompareSwap, AmoStd, compare_swap_nbi, c, out, p, value_arg<T>(cond, "cond"), v(), pe)
          SHMEM_PY_AMO_CASE(kFetchInc, AmoStd, fetch_inc_nbi, c, out, p, pe)
          SHMEM_PY_AMO_CASE(kFetchAdd, AmoStd, fetch_add_nbi, c, out, p, v(), pe)
          SHMEM_PY_AMO_CASE(kFetchAnd, AmoBit, fetch_and_nbi, c, out, p, v(), pe)
          SHMEM_PY_AMO_CASE(kFetchOr, AmoBit, fetch_or_nbi, c, out, p, v(), pe)
          SHMEM_PY_AMO_CASE(kFetchXor, AmoBit, fetch_xor_nbi, c, out, p, v(), pe)
          default:
            raise_value("atomic_" + std::string(o.name) + " has no _nbi form");
        }
        unsupported(o, t);
      },
      [&]() -> py::object { unsupported(o, t); });
}

#undef SHMEM_PY_AMO_CASE

}  // namespace

void bind_amo(py::module_& m) {
  using py::arg;
  m.def("amo", &amo, arg("op"), arg("target"), arg("value"), arg("cond"), arg("pe"), arg("ctx"));
  m.def("amo_nbi", &amo_nbi, arg("op"), arg("fetch"), arg("target"), arg("value"), arg("cond"), arg("pe"),
        arg("ctx"));
}

}  // namespace shmem_py
