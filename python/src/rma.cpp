// Remote memory access: put/get (+ _nbi) on contiguous arrays and 1-D strided views, iput/iget,
// put_signal (+ _nbi), and Ascend SHMEM's integer-address putmem/getmem.
#include <algorithm>

#include "common.hpp"

namespace shmem_py {

namespace {

using SizedStrided = void (*)(shmem_ctx_t, void*, const void*, std::ptrdiff_t, std::ptrdiff_t, std::size_t, int);

SizedStrided sized_strided(bool put, std::size_t word) {
  switch (word) {
    case 1: return put ? shmem_ctx_iput8 : shmem_ctx_iget8;
    case 2: return put ? shmem_ctx_iput16 : shmem_ctx_iget16;
    case 4: return put ? shmem_ctx_iput32 : shmem_ctx_iget32;
    case 8: return put ? shmem_ctx_iput64 : shmem_ctx_iget64;
    default: return put ? shmem_ctx_iput128 : shmem_ctx_iget128;
  }
}

// n elements of `itemsize` bytes, dst/src strides in elements. Items the sized routines cannot
// move whole (e.g. 32-byte complex) go as itemsize/word interleaved word streams.
void strided_copy(bool put, std::uintptr_t ctx, char* dst, const char* src, std::ptrdiff_t dst_stride,
                  std::ptrdiff_t src_stride, std::size_t n, std::size_t itemsize, int pe) {
  std::size_t word = 1;
  if (itemsize == 16) {
    word = 16;
  } else {
    for (std::size_t w : {8u, 4u, 2u}) {
      if (itemsize % w == 0) {
        word = w;
        break;
      }
    }
  }
  const auto k = static_cast<std::ptrdiff_t>(itemsize / word);
  SizedStrided fn = sized_strided(put, word);
  py::gil_scoped_release nogil;
  for (std::ptrdiff_t w = 0; w < k; ++w)
    fn(ctx_of(ctx), dst + w * word, src + w * word, dst_stride * k, src_stride * k, n, pe);
}

std::size_t checked_count(py::handle size, const Operand& t, std::size_t t_avail, const Operand& s,
                          std::size_t s_avail) {
  const std::size_t n = size_arg(size, std::min(t_avail, s_avail));
  if (n > t_avail)
    raise_value("size=" + std::to_string(n) + " exceeds " + t.name + " (room for " + std::to_string(t_avail) +
                " elements)");
  if (n > s_avail)
    raise_value("size=" + std::to_string(n) + " exceeds " + s.name + " (" + std::to_string(s_avail) + " elements)");
  return n;
}

void rma(bool put, bool nbi, py::handle target, py::handle source, int pe, py::handle size, std::uintptr_t ctx) {
  const Operand t = operand(target, "target", Access::kWrite, true);
  const Operand s = operand(source, "source", Access::kRead, true);
  require_same_dtype(t, s);
  require_symmetric(put ? t : s);
  const std::size_t n = checked_count(size, t, t.size, s, s.size);
  check_pe(pe, ctx);
  if (t.stride == 1 && s.stride == 1) {
    const std::size_t bytes = n * t.itemsize;
    py::gil_scoped_release nogil;
    if (put) {
      (nbi ? shmem_ctx_putmem_nbi : shmem_ctx_putmem)(ctx_of(ctx), t.data, s.data, bytes, pe);
    } else {
      (nbi ? shmem_ctx_getmem_nbi : shmem_ctx_getmem)(ctx_of(ctx), t.data, s.data, bytes, pe);
    }
    return;
  }
  strided_copy(put, ctx, t.data, s.data, t.stride, s.stride, n, t.itemsize, pe);
}

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

void irma(bool put, py::handle target, py::handle source, int pe, std::ptrdiff_t tst, std::ptrdiff_t sst,
          py::handle size, std::uintptr_t ctx) {
  if (tst < 1) raise_value("tst=" + std::to_string(tst) + " must be >= 1");
  if (sst < 1) raise_value("sst=" + std::to_string(sst) + " must be >= 1");
  const Operand t = operand(target, "target", Access::kWrite, true);
  const Operand s = operand(source, "source", Access::kRead, true);
  require_same_dtype(t, s);
  require_symmetric(put ? t : s);
  const std::size_t n = checked_count(size, t, ceil_div(t.size, static_cast<std::size_t>(tst)), s,
                                      ceil_div(s.size, static_cast<std::size_t>(sst)));
  check_pe(pe, ctx);
  strided_copy(put, ctx, t.data, s.data, t.stride * tst, s.stride * sst, n, t.itemsize, pe);
}

void put_signal(bool nbi, py::handle target, py::handle source, int pe, py::handle signal, py::handle value,
                int sigop, py::handle size, std::uintptr_t ctx) {
  const Operand t = operand(target, "target", Access::kWrite);
  const Operand s = operand(source, "source", Access::kRead);
  require_same_dtype(t, s);
  require_symmetric(t);
  const Operand sig = signal_operand(signal);
  if (sigop != SHMEM_SIGNAL_SET && sigop != SHMEM_SIGNAL_ADD)
    raise_value("sigop=" + std::to_string(sigop) + " is neither SIGNAL.SET nor SIGNAL.ADD");
  const auto v = value_arg<std::uint64_t>(value, "value");
  const std::size_t n = checked_count(size, t, t.size, s, s.size);
  check_pe(pe, ctx);
  const std::size_t bytes = n * t.itemsize;
  auto* sig_addr = reinterpret_cast<std::uint64_t*>(sig.data);
  py::gil_scoped_release nogil;
  (nbi ? shmem_ctx_putmem_signal_nbi : shmem_ctx_putmem_signal)(ctx_of(ctx), t.data, s.data, bytes, sig_addr, v,
                                                                sigop, pe);
}

// Ascend SHMEM's raw form: integer addresses, byte counts. Only the symmetric side can be checked.
void rma_addr(bool put, bool nbi, std::uintptr_t dst, std::uintptr_t src, std::size_t nbytes, int pe) {
  require_symmetric_addr(put ? dst : src, nbytes, put ? "dst" : "src");
  check_pe(pe, 0);
  auto* d = reinterpret_cast<void*>(dst);
  const auto* s = reinterpret_cast<const void*>(src);
  py::gil_scoped_release nogil;
  if (put) {
    (nbi ? shmem_putmem_nbi : shmem_putmem)(d, s, nbytes, pe);
  } else {
    (nbi ? shmem_getmem_nbi : shmem_getmem)(d, s, nbytes, pe);
  }
}

void putmem_signal_addr(bool nbi, std::uintptr_t dst, std::uintptr_t src, std::size_t nbytes, std::uintptr_t sig,
                        std::uint64_t value, int sigop, int pe) {
  require_symmetric_addr(dst, nbytes, "dst");
  require_symmetric_addr(sig, sizeof(std::uint64_t), "sig_addr");
  if (sig % alignof(std::uint64_t) != 0) raise_value("sig_addr is not 8-byte aligned");
  if (sigop != SHMEM_SIGNAL_SET && sigop != SHMEM_SIGNAL_ADD)
    raise_value("sig_op=" + std::to_string(sigop) + " is neither SIGNAL_SET nor SIGNAL_ADD");
  check_pe(pe, 0);
  py::gil_scoped_release nogil;
  (nbi ? shmem_putmem_signal_nbi : shmem_putmem_signal)(reinterpret_cast<void*>(dst),
                                                        reinterpret_cast<const void*>(src), nbytes,
                                                        reinterpret_cast<std::uint64_t*>(sig), value, sigop, pe);
}

// shmem_signal_add / shmem_signal_set on a remote signal word.
void signal_op(bool add, py::handle signal, py::handle value, int pe, std::uintptr_t ctx) {
  const Operand sig = signal_operand(signal);
  const auto v = value_arg<std::uint64_t>(value, "value");
  check_pe(pe, ctx);
  auto* p = reinterpret_cast<std::uint64_t*>(sig.data);
  py::gil_scoped_release nogil;
  (add ? shmem_ctx_signal_add : shmem_ctx_signal_set)(ctx_of(ctx), p, v, pe);
}

}  // namespace

void bind_rma(py::module_& m) {
  using py::arg;
  m.def("rma", &rma, arg("put"), arg("nbi"), arg("target"), arg("source"), arg("pe"), arg("size"), arg("ctx"));
  m.def("irma", &irma, arg("put"), arg("target"), arg("source"), arg("pe"), arg("tst"), arg("sst"), arg("size"),
        arg("ctx"));
  m.def("put_signal", &put_signal, arg("nbi"), arg("target"), arg("source"), arg("pe"), arg("signal"), arg("value"),
        arg("sigop"), arg("size"), arg("ctx"));
  m.def("rma_addr", &rma_addr, arg("put"), arg("nbi"), arg("dst"), arg("src"), arg("nbytes"), arg("pe"));
  m.def("putmem_signal_addr", &putmem_signal_addr, arg("nbi"), arg("dst"), arg("src"), arg("nbytes"), arg("sig"),
        arg("value"), arg("sigop"), arg("pe"));
  m.def("signal_op", &signal_op, arg("add"), arg("signal"), arg("value"), arg("pe"), arg("ctx"));
  m.attr("SIGNAL_SET") = SHMEM_SIGNAL_SET;
  m.attr("SIGNAL_ADD") = SHMEM_SIGNAL_ADD;
}

}  // namespace shmem_py
