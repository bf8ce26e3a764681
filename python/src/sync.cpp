// Point-to-point synchronization (wait_until/test and their _all/_any/_some[_vector] forms),
// signals (fetch, wait), ordering (fence, quiet), barrier_all/sync_all and locks. Everything
// that can block runs without the GIL.
#include <vector>

#include "typed.hpp"

namespace shmem_py {

namespace {

void check_cmp(int cmp) {
  if (cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE)
    raise_value("cmp=" + std::to_string(cmp) + " is not a CMP value (EQ, NE, GT, GE, LT, LE)");
}

[[noreturn]] void unsupported(const char* func, const Operand& op, const char* supported) {
  raise_type(std::string(func) + " does not support dtype " + op.type + " (supported: " + supported + ")");
}

constexpr const char* kP2PTypes = "int16, uint16, int32, int64, uint32, uint64";
constexpr const char* kMultiTypes = "int32, int64, uint32, uint64";

Operand ivar_operand(py::handle ivar, const char* name) {
  Operand op = operand(ivar, name, Access::kRead);
  require_symmetric(op);
  return op;
}

py::object wait_or_test(bool test, py::handle ivar, int cmp, py::handle value) {
  check_cmp(cmp);
  const Operand op = ivar_operand(ivar, "ivar");
  require_scalar(op);
  const char* func = test ? "test" : "wait_until";
  return visit_elem(
      op.elem,
      [&]<class T>(Tag<T>) -> py::object {
        if constexpr (requires { P2P<T>::test; }) {
          T* p = reinterpret_cast<T*>(op.data);
          const T v = value_arg<T>(value, "value");
          if (test) return py::bool_(call_nogil(P2P<T>::test, p, cmp, v).template cast<int>() != 0);
          return call_nogil(P2P<T>::wait_until, p, cmp, v);
        } else {
          unsupported(func, op, kP2PTypes);
        }
      },
      [&]() -> py::object { unsupported(func, op, kP2PTypes); });
}

// The optional status mask: None -> NULL, else at least `n` ints.
py::array_t<int> status_arg(py::handle status, std::size_t n) {
  if (status.is_none()) return py::array_t<int>();
  auto st = py::array_t<int, py::array::c_style | py::array::forcecast>::ensure(status);
  if (!st) raise_type("status must be a sequence of ints");
  if (static_cast<std::size_t>(st.size()) < n)
    raise_value("status has " + std::to_string(st.size()) + " entries but ivars has " + std::to_string(n));
  return st;
}

// which: 0 all, 1 any, 2 some. Returns None/bool (all), index or None (any), list (some).
py::object multi(bool test, int which, bool vector, py::handle ivars, int cmp, py::handle value, py::handle status) {
  static constexpr const char* kNames[2][3][2] = {
      {{"wait_until_all", "wait_until_all_vector"},
       {"wait_until_any", "wait_until_any_vector"},
       {"wait_until_some", "wait_until_some_vector"}},
      {{"test_all", "test_all_vector"}, {"test_any", "test_any_vector"}, {"test_some", "test_some_vector"}}};
  const char* func = kNames[test][which][vector];
  check_cmp(cmp);
  const Operand op = ivar_operand(ivars, "ivars");
  const std::size_t n = op.size;
  const py::array_t<int> st = status_arg(status, n);
  const int* st_ptr = status.is_none() ? nullptr : st.data();
  return visit_elem(
      op.elem,
      [&]<class T>(Tag<T>) -> py::object {
        if constexpr (requires { P2PMulti<T>::test_all; }) {
          using M = P2PMulti<T>;
          T* p = reinterpret_cast<T*>(op.data);
          py::array_t<T, py::array::c_style | py::array::forcecast> values;
          T scalar{};
          if (vector) {
            values = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(value);
            if (!values) raise_type("values must be a sequence of numbers");
            if (static_cast<std::size_t>(values.size()) < n)
              raise_value("values has " + std::to_string(values.size()) + " entries but ivars has " +
                          std::to_string(n));
          } else {
            scalar = value_arg<T>(value, "value");
          }
          const T* vp = values.data();
          std::vector<std::size_t> idx(which == 2 ? n : 0);
          std::size_t r = 0;
          {
            py::gil_scoped_release nogil;
            switch (which * 4 + test * 2 + vector) {
              case 0: M::wait_until_all(p, n, st_ptr, cmp, scalar); break;
              case 1: M::wait_until_all_vector(p, n, st_ptr, cmp, vp); break;
              case 2: r = static_cast<std::size_t>(M::test_all(p, n, st_ptr, cmp, scalar)); break;
              case 3: r = static_cast<std::size_t>(M::test_all_vector(p, n, st_ptr, cmp, vp)); break;
              case 4: r = M::wait_until_any(p, n, st_ptr, cmp, scalar); break;
              case 5: r = M::wait_until_any_vector(p, n, st_ptr, cmp, vp); break;
              case 6: r = M::test_any(p, n, st_ptr, cmp, scalar); break;
              case 7: r = M::test_any_vector(p, n, st_ptr, cmp, vp); break;
              case 8: r = M::wait_until_some(p, n, idx.data(), st_ptr, cmp, scalar); break;
              case 9: r = M::wait_until_some_vector(p, n, idx.data(), st_ptr, cmp, vp); break;
              case 10: r = M::test_some(p, n, idx.data(), st_ptr, cmp, scalar); break;
              default: r = M::test_some_vector(p, n, idx.data(), st_ptr, cmp, vp); break;
            }
          }
          if (which == 0) return test ? py::object(py::bool_(r != 0)) : py::object(py::none());
          if (which == 1) return r < n ? py::object(py::int_(r)) : py::object(py::none());
          py::list out;
          for (std::size_t i = 0; i < r && i < n; ++i) out.append(idx[i]);
          return out;
        } else {
          unsupported(func, op, kMultiTypes);
        }
      },
      [&]() -> py::object { unsupported(func, op, kMultiTypes); });
}

// A lock: a symmetric int64 of one element, zero when created.
long* lock_arg(py::handle lock) {
  Operand op = operand(lock, "lock", Access::kWrite);
  if (op.elem != Elem::I64)
    raise_type("lock must be an int64 array (got " + op.type + "); create it with shmem.new_lock()");
  require_scalar(op);
  require_symmetric(op);
  return reinterpret_cast<long*>(op.data);
}

}  // namespace

void bind_sync(py::module_& m) {
  using py::arg;
  m.def("wait_or_test", &wait_or_test, arg("test"), arg("ivar"), arg("cmp"), arg("value"));
  m.def("multi", &multi, arg("test"), arg("which"), arg("vector"), arg("ivars"), arg("cmp"), arg("value"),
        arg("status"));
  m.def("signal_fetch", [](py::handle signal) {
    const Operand sig = signal_operand(signal);
    return shmem_signal_fetch(reinterpret_cast<const std::uint64_t*>(sig.data));
  });
  m.def("signal_wait_until", [](py::handle signal, int cmp, py::handle value) {
    check_cmp(cmp);
    const Operand sig = signal_operand(signal);
    const auto v = value_arg<std::uint64_t>(value, "value");
    return call_nogil(shmem_signal_wait_until, reinterpret_cast<std::uint64_t*>(sig.data), cmp, v);
  });
  m.def("signal_wait_until_addr", [](std::uintptr_t sig, int cmp, std::uint64_t value) {
    check_cmp(cmp);
    require_symmetric_addr(sig, sizeof(std::uint64_t), "sig_addr");
    if (sig % alignof(std::uint64_t) != 0) raise_value("sig_addr is not 8-byte aligned");
    return call_nogil(shmem_signal_wait_until, reinterpret_cast<std::uint64_t*>(sig), cmp, value);
  });
  m.def("fence", [](std::uintptr_t ctx) {
    ensure_init();
    check_ctx(ctx);
    shmem_ctx_fence(ctx_of(ctx));
  });
  m.def("quiet", [](std::uintptr_t ctx) {
    ensure_init();
    check_ctx(ctx);
    call_nogil(shmem_ctx_quiet, ctx_of(ctx));
  });
  m.def("barrier_all", [] {
    ensure_init();
    call_nogil(shmem_barrier_all);
  });
  m.def("sync_all", [] {
    ensure_init();
    call_nogil(shmem_sync_all);
  });
  m.def("set_lock", [](py::handle lock) { call_nogil(shmem_set_lock, lock_arg(lock)); });
  m.def("test_lock", [](py::handle lock) { return call_nogil(shmem_test_lock, lock_arg(lock)).cast<int>() != 0; });
  m.def("clear_lock", [](py::handle lock) { call_nogil(shmem_clear_lock, lock_arg(lock)); });
  m.attr("CMP_EQ") = SHMEM_CMP_EQ;
  m.attr("CMP_NE") = SHMEM_CMP_NE;
  m.attr("CMP_GT") = SHMEM_CMP_GT;
  m.attr("CMP_GE") = SHMEM_CMP_GE;
  m.attr("CMP_LT") = SHMEM_CMP_LT;
  m.attr("CMP_LE") = SHMEM_CMP_LE;
}

}  // namespace shmem_py
