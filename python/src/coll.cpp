// Team-based collectives: broadcast, collect, fcollect, alltoall(s) and the reductions. Every
// array is checked (symmetric, dtype, sizes against the team size) on this PE before the call.
// Built only when <shmem.h> declares the collectives.
#include <algorithm>

#include "half.hpp"
#include "typed.hpp"

namespace shmem_py {

#if defined(SHMEM_SHMEM_COLL_H) && defined(SHMEM_SHMEM_TEAM_H)

namespace {

template <class T>
struct RedBit {};
template <class T>
struct RedMinMax {};
template <class T>
struct RedSum {};

#define SHMEM_PY_RED_BIT_(T, N)                           \
  template <>                                             \
  struct RedBit<T> {                                      \
    static constexpr auto and_ = shmem_##N##_and_reduce;  \
    static constexpr auto or_ = shmem_##N##_or_reduce;    \
    static constexpr auto xor_ = shmem_##N##_xor_reduce;  \
  };
SHMEM_REDUCE_BIT_TYPE_TABLE_BASE(SHMEM_PY_RED_BIT_)
#undef SHMEM_PY_RED_BIT_

#define SHMEM_PY_RED_MINMAX_(T, N)                      \
  template <>                                           \
  struct RedMinMax<T> {                                 \
    static constexpr auto max = shmem_##N##_max_reduce; \
    static constexpr auto min = shmem_##N##_min_reduce; \
  };
SHMEM_REDUCE_MINMAX_TYPE_TABLE_BASE(SHMEM_PY_RED_MINMAX_)
#undef SHMEM_PY_RED_MINMAX_

#define SHMEM_PY_RED_SUM_(T, N)                           \
  template <>                                             \
  struct RedSum<T> {                                      \
    static constexpr auto sum = shmem_##N##_sum_reduce;   \
    static constexpr auto prod = shmem_##N##_prod_reduce; \
  };
SHMEM_REDUCE_SUM_TYPE_TABLE_BASE(SHMEM_PY_RED_SUM_)
#undef SHMEM_PY_RED_SUM_

shmem_team_t team_of(std::uintptr_t h) { return reinterpret_cast<shmem_team_t>(h); }

struct Args {
  Operand t, s;
  std::size_t npes = 0;
};

// Both arrays symmetric, contiguous, of one dtype; the team valid.
Args coll_args(std::uintptr_t team, py::handle target, py::handle source, bool strided = false) {
  Args a;
  a.npes = static_cast<std::size_t>(team_size(team));
  a.t = operand(target, "target", Access::kWrite, strided);
  a.s = operand(source, "source", Access::kRead, strided);
  require_same_dtype(a.t, a.s);
  require_symmetric(a.t);
  require_symmetric(a.s);
  return a;
}

void too_big(const char* what, std::size_t need, const Operand& op, std::size_t have) {
  if (need > have)
    raise_value(std::string(what) + " needs " + std::to_string(need) + " elements of " + op.name + ", which has " +
                std::to_string(have));
}

template <class F, class... A>
void run(const char* func, F f, A... args) {
  int rc = 0;
  {
    py::gil_scoped_release nogil;
    rc = f(args...);
  }
  check_rc(rc, func);
}

void broadcast(std::uintptr_t team, py::handle target, py::handle source, int root, py::handle size) {
  const Args a = coll_args(team, target, source);
  const std::size_t n = size_arg(size, std::min(a.t.size, a.s.size));
  too_big("broadcast", n, a.t, a.t.size);
  too_big("broadcast", n, a.s, a.s.size);
  if (root < 0 || static_cast<std::size_t>(root) >= a.npes)
    raise_value("root=" + std::to_string(root) + " is out of range: the team has PEs 0.." + std::to_string(a.npes - 1));
  run("shmem_broadcastmem", shmem_broadcastmem, team_of(team), a.t.data, a.s.data, n * a.t.itemsize, root);
}

void collect(bool fixed, std::uintptr_t team, py::handle target, py::handle source, py::handle size) {
  const Args a = coll_args(team, target, source);
  const std::size_t n = size_arg(size, a.s.size);
  too_big(fixed ? "fcollect" : "collect", n, a.s, a.s.size);
  // collect's total depends on the other PEs' sizes; only this PE's share can be checked here.
  too_big(fixed ? "fcollect" : "collect", fixed ? n * a.npes : n, a.t, a.t.size);
  const std::size_t bytes = n * a.t.itemsize;
  if (fixed)
    run("shmem_fcollectmem", shmem_fcollectmem, team_of(team), a.t.data, a.s.data, bytes);
  else
    run("shmem_collectmem", shmem_collectmem, team_of(team), a.t.data, a.s.data, bytes);
}

std::size_t per_pe_count(py::handle size, const Args& a, std::size_t t_avail, std::size_t s_avail) {
  if (size.is_none()) {
    const std::size_t m = std::min(t_avail, s_avail);
    if (m % a.npes != 0)
      raise_value("size=None: the arrays hold " + std::to_string(m) + " elements, not a multiple of the team's " +
                  std::to_string(a.npes) + " PEs; pass size");
    return m / a.npes;
  }
  const std::size_t n = size_arg(size, 0);
  too_big("alltoall", n * a.npes, a.t, t_avail);
  too_big("alltoall", n * a.npes, a.s, s_avail);
  return n;
}

void alltoall(std::uintptr_t team, py::handle target, py::handle source, py::handle size) {
  const Args a = coll_args(team, target, source);
  const std::size_t n = per_pe_count(size, a, a.t.size, a.s.size);
  run("shmem_alltoallmem", shmem_alltoallmem, team_of(team), a.t.data, a.s.data, n * a.t.itemsize);
}

void alltoalls(std::uintptr_t team, py::handle target, py::handle source, std::ptrdiff_t tst, std::ptrdiff_t sst,
               py::handle size) {
  if (tst < 1) raise_value("tst=" + std::to_string(tst) + " must be >= 1");
  if (sst < 1) raise_value("sst=" + std::to_string(sst) + " must be >= 1");
  const Args a = coll_args(team, target, source);
  const auto cdiv = [](std::size_t x, std::ptrdiff_t d) { return (x + static_cast<std::size_t>(d) - 1) / static_cast<std::size_t>(d); };
  const std::size_t n = per_pe_count(size, a, cdiv(a.t.size, tst), cdiv(a.s.size, sst));
  // Items move as itemsize/word interleaved streams of 8/4/2/1-byte words.
  std::size_t word = 1;
  for (std::size_t w : {8u, 4u, 2u}) {
    if (a.t.itemsize % w == 0) {
      word = w;
      break;
    }
  }
  const auto k = static_cast<std::ptrdiff_t>(a.t.itemsize / word);
  const shmem_team_t tm = team_of(team);
  auto words = [&](char* d, const char* s) -> int {
    switch (word) {
      case 8:
        return shmem_uint64_alltoalls(tm, reinterpret_cast<std::uint64_t*>(d), reinterpret_cast<const std::uint64_t*>(s),
                                      tst * k, sst * k, n);
      case 4:
        return shmem_uint32_alltoalls(tm, reinterpret_cast<std::uint32_t*>(d), reinterpret_cast<const std::uint32_t*>(s),
                                      tst * k, sst * k, n);
      case 2:
        return shmem_uint16_alltoalls(tm, reinterpret_cast<std::uint16_t*>(d), reinterpret_cast<const std::uint16_t*>(s),
                                      tst * k, sst * k, n);
      default:
        return shmem_uint8_alltoalls(tm, reinterpret_cast<std::uint8_t*>(d), reinterpret_cast<const std::uint8_t*>(s),
                                     tst * k, sst * k, n);
    }
  };
  for (std::ptrdiff_t w = 0; w < k; ++w)
    run("shmem_alltoalls", words, a.t.data + w * static_cast<std::ptrdiff_t>(word),
        static_cast<const char*>(a.s.data + w * static_cast<std::ptrdiff_t>(word)));
}

#define SHMEM_PY_RED_CASE(NAME, TRAIT, MEMBER)                                                                      \
  if (op == NAME) {                                                                                                 \
    if constexpr (requires { TRAIT<T>::MEMBER; }) {                                                                 \
      run("shmem_" NAME "_reduce", TRAIT<T>::MEMBER, team_of(team), reinterpret_cast<T*>(a.t.data),                 \
          reinterpret_cast<const T*>(a.s.data), n);                                                                 \
      return;                                                                                                       \
    }                                                                                                               \
    raise_type(std::string(NAME "_reduce does not support dtype ") + a.t.type + " (supported: " + supported + ")"); \
  }

void reduce(const std::string& op, std::uintptr_t team, py::handle target, py::handle source, py::handle size) {
  const char* supported = op == "sum" || op == "prod"  ? "integers, float16, bfloat16, float32/64/128, complex64/128"
                          : op == "max" || op == "min" ? "integers, float16, bfloat16, float32/64/128"
                                                       : "integers";
  const Args a = coll_args(team, target, source);
  const std::size_t n = size_arg(size, std::min(a.t.size, a.s.size));
  too_big("reduce", n, a.t, a.t.size);
  too_big("reduce", n, a.s, a.s.size);
  if (a.t.elem == Elem::F16 || a.t.elem == Elem::BF16) {  // through float (half.hpp)
    if (op != "sum" && op != "prod" && op != "max" && op != "min") {
      if (op == "and" || op == "or" || op == "xor")
        raise_type(op + "_reduce does not support dtype " + a.t.type + " (supported: " + supported + ")");
      raise_value("op='" + op + "' is not a reduction (and, or, xor, max, min, sum, prod)");
    }
    half_reduce(op, team_of(team), a.t.data, a.s.data, n, a.t.elem == Elem::BF16);
    return;
  }
  visit_elem(
      a.t.elem,
      [&]<class T>(Tag<T>) {
        SHMEM_PY_RED_CASE("and", RedBit, and_)
        SHMEM_PY_RED_CASE("or", RedBit, or_)
        SHMEM_PY_RED_CASE("xor", RedBit, xor_)
        SHMEM_PY_RED_CASE("max", RedMinMax, max)
        SHMEM_PY_RED_CASE("min", RedMinMax, min)
        SHMEM_PY_RED_CASE("sum", RedSum, sum)
        SHMEM_PY_RED_CASE("prod", RedSum, prod)
        raise_value("op='" + op + "' is not a reduction (and, or, xor, max, min, sum, prod)");
      },
      [&] { raise_type(op + "_reduce does not support dtype " + a.t.type + " (supported: " + supported + ")"); });
}

#undef SHMEM_PY_RED_CASE

}  // namespace

void bind_coll(py::module_& m) {
  using py::arg;
  m.attr("HAVE_COLLECTIVES") = true;
  m.def("broadcast", &broadcast, arg("team"), arg("target"), arg("source"), arg("root"), arg("size"));
  m.def("collect", &collect, arg("fixed"), arg("team"), arg("target"), arg("source"), arg("size"));
  m.def("alltoall", &alltoall, arg("team"), arg("target"), arg("source"), arg("size"));
  m.def("alltoalls", &alltoalls, arg("team"), arg("target"), arg("source"), arg("tst"), arg("sst"), arg("size"));
  m.def("reduce", &reduce, arg("op"), arg("team"), arg("target"), arg("source"), arg("size"));
}

#else

void bind_coll(py::module_& m) { m.attr("HAVE_COLLECTIVES") = false; }

#endif

}  // namespace shmem_py
