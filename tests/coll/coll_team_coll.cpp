// coll_team_coll.cpp - team-based collectives with exact values.
//
//   broadcast, collect (different sizes per PE, zero included), fcollect, alltoall, alltoalls
//   (strides > 1), their *mem forms, and/or/xor/max/min/sum/prod reductions and the 1.6 sum
//   scans, in place and out of place, with their return values;
//   over the team shapes WORLD, a strided subset, a reversed team, and 2-D rows and columns;
//   at 0, 1 and 37 elements for every type of the spec's tables (expanded from the header's
//   X-macros: every type on WORLD and on the rows, a representative subset on the other
//   shapes), and at 1 MiB for a few types;
//   and 100 back-to-back alternating broadcast/reduce/fcollect calls on the same buffers with
//   changing values and no barrier in between; a stream of 200 small broadcasts with rotating
//   roots and no synchronisation, each into its own dest words.
//
// Values are small integers, halves, or bit patterns, so every result, floating point and
// complex included, is exact whatever the order of accumulation. Each PE checks every element
// of its own result and the guard bytes after it.
#include <shmem.h>

#include <complex>
#include <cstdint>
#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "check.h"

namespace {

int g_me, g_npes;

constexpr std::size_t kBig = std::size_t{1} << 20;  // "1 MiB" per PE block
constexpr std::size_t kGuard = 256;                 // bytes checked after every result
constexpr unsigned char kFill = 0xA5;
constexpr std::size_t kBufBytes = 16 * kBig + 4096;

char* g_src;  // symmetric
char* g_dst;  // symmetric
unsigned char g_fill_ref[kGuard];

struct TeamDesc {
  shmem_team_t team;
  std::string name;
  bool full_types;  // every type of the tables, or the representative subset
};

// ---- type helpers -------------------------------------------------------------------------------
template <class T>
struct IsComplex : std::false_type {};
template <class T>
struct IsComplex<std::complex<T>> : std::true_type {};

template <class T>
bool same(const T& a, const T& b) {
  return a == b;
}

template <class T>
std::string show(const T& v) {
  char b[96];
  if constexpr (IsComplex<T>::value)
    snprintf(b, sizeof b, "(%.21Lg, %.21Lg)", (long double)v.real(), (long double)v.imag());
  else
    snprintf(b, sizeof b, "%.21Lg", (long double)v);
  return b;
}

// Small distinct values for data movement: a identifies the sender, b the receiver or block.
template <class T>
T move_val(int a, int b, std::size_t i) {
  const long v = (long)((a * 31 + b * 17 + (long)(i % 1009) * 7) % 101) + 1;
  if constexpr (IsComplex<T>::value)
    return T(typename T::value_type(v), typename T::value_type(v % 3));
  else
    return static_cast<T>(v);
}

enum Op { kSum, kProd, kMax, kMin, kAnd, kOr, kXor };
const char* op_name(Op op) {
  static const char* names[] = {"sum", "prod", "max", "min", "and", "or", "xor"};
  return names[op];
}

// Each PE's contribution for reduction op at element i.
template <class T>
T red_val(Op op, int p, std::size_t i) {
  const long pi = p + (long)(i % 4099);
  if constexpr (IsComplex<T>::value) {
    using F = typename T::value_type;
    if (op == kSum) return T(F(pi % 5) - F(2) + F(0.5), F((p * 2 + (long)(i % 4099)) % 3));
    const long r = pi % 3;
    return r == 0 ? T(0, 1) : r == 1 ? T(2, 0) : T(1, 0);
  } else if constexpr (std::is_floating_point_v<T>) {
    switch (op) {
      case kSum: return T(pi % 5) - T(2) + T(0.5);
      case kProd: return pi % 3 == 0 ? T(-1) : pi % 3 == 1 ? T(2) : T(0.5);
      default: return T((p * 5 + (long)(i % 4099) * 3) % 11) - T(5.5);
    }
  } else {
    using U = std::make_unsigned_t<T>;
    constexpr int bits = 8 * sizeof(T);
    const long k = (p * 5 + (long)(i % 4099) * 3) % 11;
    switch (op) {
      case kSum:
        if constexpr (std::is_signed_v<T>) return static_cast<T>(pi % 5 - 2);
        else return static_cast<T>(~T(0) - static_cast<T>(pi % 5));  // wraps around
      case kProd: {
        const long r = pi % 3;
        if constexpr (std::is_signed_v<T>) return static_cast<T>(r == 0 ? -1 : r == 1 ? 2 : 1);
        else return static_cast<T>(r == 0 ? 1 : r == 1 ? 2 : 3);
      }
      case kMax:
      case kMin:
        if constexpr (std::is_signed_v<T>) return static_cast<T>(k - 5);
        else return k % 2 ? static_cast<T>(~T(0) - static_cast<T>(k)) : static_cast<T>(k);
      case kAnd: return static_cast<T>(static_cast<U>(~(U(1) << ((p * 3 + (long)(i % 4099)) % bits))));
      case kOr: return static_cast<T>(static_cast<U>(U(1) << ((p * 3 + (long)(i % 4099)) % bits)));
      case kXor:
        return static_cast<T>(static_cast<U>(0x9E3779B97F4A7C15ull * static_cast<unsigned long long>(p * 131 + (long)i + 1)));
    }
    return T{};
  }
}

template <class T>
T combine(Op op, const T& a, const T& b) {
  if constexpr (IsComplex<T>::value) {
    return op == kSum ? T(a + b) : T(a * b);
  } else {
    switch (op) {
      case kSum: return static_cast<T>(a + b);
      case kProd: return static_cast<T>(a * b);
      case kMax: return a < b ? b : a;
      case kMin: return b < a ? b : a;
      default: break;
    }
    if constexpr (std::is_integral_v<T>) {
      switch (op) {
        case kAnd: return static_cast<T>(a & b);
        case kOr: return static_cast<T>(a | b);
        case kXor: return static_cast<T>(a ^ b);
        default: break;
      }
    }
    return T{};
  }
}

// Compares n elements against expected(i); reports the first mismatch and the count.
template <class T, class F>
void check_elems(const T* got, std::size_t n, F expected, const std::string& what) {
  std::size_t bad = 0, first = 0;
  T first_got{}, first_exp{};
  for (std::size_t i = 0; i < n; ++i) {
    const T e = expected(i);
    if (!same(got[i], e)) {
      if (!bad) first = i, first_got = got[i], first_exp = e;
      ++bad;
    }
  }
  CHECKF(bad == 0, "%s: %zu of %zu elements wrong, first at %zu (got %s, expected %s)", what.c_str(), bad, n, first,
         show(first_got).c_str(), show(first_exp).c_str());
}

void check_guard(const void* end, const std::string& what) {
  CHECK_BYTES(end, g_fill_ref, kGuard, "%s: guard bytes after the result", what.c_str());
}

void fill(void* p, std::size_t bytes) { std::memset(p, kFill, bytes); }

std::string label(const TeamDesc& td, const char* tname, const char* op, std::size_t n) {
  return td.name + " " + tname + " " + op + " n=" + std::to_string(n);
}

// ---- data movement --------------------------------------------------------------------------------
// Elements each PE contributes to collect: zero for some PEs, different for others.
std::size_t collect_count(int p, std::size_t base) { return base * static_cast<std::size_t>((p + 1) % 3) / 2; }

template <class T, auto Bcast, auto Collect, auto Fcollect, auto A2A, auto A2AS>
void test_move(const TeamDesc& td, const char* tname, std::size_t nelems) {
  const int n = shmem_team_n_pes(td.team), me = shmem_team_my_pe(td.team);
  T* src = reinterpret_cast<T*>(g_src);
  T* dst = reinterpret_cast<T*>(g_dst);

  // broadcast from several roots; every PE's source differs so a wrong root shows.
  const int roots[] = {0, n - 1, n / 2};
  for (int root : roots) {
    for (std::size_t i = 0; i < nelems; ++i) src[i] = move_val<T>(me, 0, i);
    fill(dst, nelems * sizeof(T) + kGuard);
    shmem_team_sync(td.team);  // the spec: every dest is ready before any PE calls broadcast
    const std::string what = label(td, tname, "broadcast", nelems) + " root " + std::to_string(root);
    CHECK_EQ_AT(Bcast(td.team, dst, src, nelems, root), 0, "%s", what.c_str());
    check_elems(dst, nelems, [&](std::size_t i) { return move_val<T>(root, 0, i); }, what);
    check_guard(dst + nelems, what);
    check_elems(src, nelems, [&](std::size_t i) { return move_val<T>(me, 0, i); }, what + " (source kept)");
  }

  // collect: PE p contributes collect_count(p) elements.
  {
    const std::size_t mine = collect_count(me, nelems);
    for (std::size_t i = 0; i < mine; ++i) src[i] = move_val<T>(me, 1, i);
    std::size_t total = 0;
    for (int p = 0; p < n; ++p) total += collect_count(p, nelems);
    fill(dst, total * sizeof(T) + kGuard);
    const std::string what = label(td, tname, "collect", nelems);
    CHECK_EQ_AT(Collect(td.team, dst, src, mine), 0, "%s", what.c_str());
    std::size_t off = 0;
    for (int p = 0; p < n; ++p) {
      const std::size_t c = collect_count(p, nelems);
      check_elems(dst + off, c, [&](std::size_t i) { return move_val<T>(p, 1, i); },
                  what + " block of team PE " + std::to_string(p));
      off += c;
    }
    check_guard(dst + total, what);
  }

  // fcollect
  {
    for (std::size_t i = 0; i < nelems; ++i) src[i] = move_val<T>(me, 2, i);
    fill(dst, n * nelems * sizeof(T) + kGuard);
    const std::string what = label(td, tname, "fcollect", nelems);
    CHECK_EQ_AT(Fcollect(td.team, dst, src, nelems), 0, "%s", what.c_str());
    for (int p = 0; p < n; ++p)
      check_elems(dst + p * nelems, nelems, [&](std::size_t i) { return move_val<T>(p, 2, i); },
                  what + " block of team PE " + std::to_string(p));
    check_guard(dst + n * nelems, what);
  }

  // alltoall: block j of my source goes to PE j; block k of my dest comes from PE k.
  {
    for (int j = 0; j < n; ++j)
      for (std::size_t i = 0; i < nelems; ++i) src[j * nelems + i] = move_val<T>(me, j + 3, i);
    fill(dst, n * nelems * sizeof(T) + kGuard);
    const std::string what = label(td, tname, "alltoall", nelems);
    CHECK_EQ_AT(A2A(td.team, dst, src, nelems), 0, "%s", what.c_str());
    for (int k = 0; k < n; ++k)
      check_elems(dst + k * nelems, nelems, [&](std::size_t i) { return move_val<T>(k, me + 3, i); },
                  what + " block from team PE " + std::to_string(k));
    check_guard(dst + n * nelems, what);
  }

  // alltoalls with dst = 2, sst = 3, and with unit strides.
  const std::ptrdiff_t strides[][2] = {{2, 3}, {1, 1}, {3, 1}};
  for (const auto& s : strides) {
    const std::ptrdiff_t dstr = s[0], sstr = s[1];
    const std::size_t span_src = nelems ? (n * nelems - 1) * sstr + 1 : 0;
    const std::size_t span_dst = nelems ? (n * nelems - 1) * dstr + 1 : 0;
    if (span_src * sizeof(T) > kBufBytes || span_dst * sizeof(T) + kGuard > kBufBytes) continue;
    // Gaps in the source hold values that must never arrive anywhere.
    for (std::size_t k = 0; k < span_src; ++k) src[k] = move_val<T>(me + 50, 50, k);
    for (int j = 0; j < n; ++j)
      for (std::size_t i = 0; i < nelems; ++i) src[(j * nelems + i) * sstr] = move_val<T>(me, j + 7, i);
    fill(dst, span_dst * sizeof(T) + kGuard);
    const std::string what = label(td, tname, "alltoalls", nelems) + " dst " + std::to_string(dstr) + " sst " +
                             std::to_string(sstr);
    CHECK_EQ_AT(A2AS(td.team, dst, src, dstr, sstr, nelems), 0, "%s", what.c_str());
    std::size_t bad = 0;
    for (int k = 0; k < n; ++k)
      for (std::size_t i = 0; i < nelems; ++i)
        if (!same(dst[(k * nelems + i) * dstr], move_val<T>(k, me + 7, i))) ++bad;
    CHECKF(bad == 0, "%s: %zu strided elements wrong", what.c_str(), bad);
    // The gaps between dest elements are untouched.
    std::size_t touched = 0;
    for (std::size_t k = 0; k < span_dst; ++k) {
      if (k % dstr == 0) continue;
      const unsigned char* b = reinterpret_cast<const unsigned char*>(dst + k);
      for (std::size_t c = 0; c < sizeof(T); ++c)
        if (b[c] != kFill) ++touched;
    }
    CHECKF(touched == 0, "%s: %zu bytes written into the gaps of dest", what.c_str(), touched);
    check_guard(dst + span_dst, what);
  }
}

// The *mem forms at byte granularity.
void test_move_mem(const TeamDesc& td, std::size_t bytes) {
  const int n = shmem_team_n_pes(td.team), me = shmem_team_my_pe(td.team);
  unsigned char* src = reinterpret_cast<unsigned char*>(g_src);
  unsigned char* dst = reinterpret_cast<unsigned char*>(g_dst);
  auto val = [](int a, int b, std::size_t i) { return static_cast<unsigned char>((a * 53 + b * 29 + i * 13 + (i >> 8)) & 0xff); };
  const std::string base = td.name + " mem bytes=" + std::to_string(bytes);
  for (int root : {0, n - 1}) {
    for (std::size_t i = 0; i < bytes; ++i) src[i] = val(me, 0, i);
    fill(dst, bytes + kGuard);
    shmem_team_sync(td.team);  // every dest ready before any PE calls broadcast
    CHECK_EQ_AT(shmem_broadcastmem(td.team, dst, src, bytes, root), 0, "%s", base.c_str());
    check_elems(dst, bytes, [&](std::size_t i) { return val(root, 0, i); }, base + " broadcastmem");
    check_guard(dst + bytes, base + " broadcastmem");
  }
  {
    const std::size_t mine = collect_count(me, bytes);
    for (std::size_t i = 0; i < mine; ++i) src[i] = val(me, 1, i);
    std::size_t total = 0;
    for (int p = 0; p < n; ++p) total += collect_count(p, bytes);
    fill(dst, total + kGuard);
    CHECK_EQ_AT(shmem_collectmem(td.team, dst, src, mine), 0, "%s", base.c_str());
    std::size_t off = 0;
    for (int p = 0; p < n; ++p) {
      check_elems(dst + off, collect_count(p, bytes), [&](std::size_t i) { return val(p, 1, i); },
                  base + " collectmem block " + std::to_string(p));
      off += collect_count(p, bytes);
    }
    check_guard(dst + total, base + " collectmem");
  }
  {
    for (std::size_t i = 0; i < bytes; ++i) src[i] = val(me, 2, i);
    fill(dst, n * bytes + kGuard);
    CHECK_EQ_AT(shmem_fcollectmem(td.team, dst, src, bytes), 0, "%s", base.c_str());
    for (int p = 0; p < n; ++p)
      check_elems(dst + p * bytes, bytes, [&](std::size_t i) { return val(p, 2, i); },
                  base + " fcollectmem block " + std::to_string(p));
    check_guard(dst + n * bytes, base + " fcollectmem");
  }
  {
    for (int j = 0; j < n; ++j)
      for (std::size_t i = 0; i < bytes; ++i) src[j * bytes + i] = val(me, j + 3, i);
    fill(dst, n * bytes + kGuard);
    CHECK_EQ_AT(shmem_alltoallmem(td.team, dst, src, bytes), 0, "%s", base.c_str());
    for (int k = 0; k < n; ++k)
      check_elems(dst + k * bytes, bytes, [&](std::size_t i) { return val(k, me + 3, i); },
                  base + " alltoallmem block " + std::to_string(k));
    check_guard(dst + n * bytes, base + " alltoallmem");
  }
  {
    const std::size_t nel = bytes / 4;  // keep the strided span within the buffers
    const std::ptrdiff_t dstr = 3, sstr = 2;
    const std::size_t span_src = nel ? (n * nel - 1) * sstr + 1 : 0;
    const std::size_t span_dst = nel ? (n * nel - 1) * dstr + 1 : 0;
    fill(src, span_src);
    for (int j = 0; j < n; ++j)
      for (std::size_t i = 0; i < nel; ++i) src[(j * nel + i) * sstr] = val(me, j + 7, i);
    fill(dst, span_dst + kGuard);
    CHECK_EQ_AT(shmem_alltoallsmem(td.team, dst, src, dstr, sstr, nel), 0, "%s", base.c_str());
    std::size_t bad = 0;
    for (int k = 0; k < n; ++k)
      for (std::size_t i = 0; i < nel; ++i)
        if (dst[(k * nel + i) * dstr] != val(k, me + 7, i)) ++bad;
    for (std::size_t k = 0; k < span_dst; ++k)
      if (k % dstr && dst[k] != kFill) ++bad;
    CHECKF(bad == 0, "%s alltoallsmem: %zu bytes wrong", base.c_str(), bad);
    check_guard(dst + span_dst, base + " alltoallsmem");
  }
}

// ---- reductions -------------------------------------------------------------------------------------
template <class T, auto Fn>
void test_reduce(const TeamDesc& td, const char* tname, Op op, std::size_t nelems, bool in_place) {
  const int n = shmem_team_n_pes(td.team), me = shmem_team_my_pe(td.team);
  T* src = reinterpret_cast<T*>(g_src);
  T* dst = in_place ? src : reinterpret_cast<T*>(g_dst);
  for (std::size_t i = 0; i < nelems; ++i) src[i] = red_val<T>(op, me, i);
  if (in_place) fill(src + nelems, kGuard);
  else fill(dst, nelems * sizeof(T) + kGuard);
  const std::string what = label(td, tname, op_name(op), nelems) + (in_place ? " in place" : "");
  CHECK_EQ_AT(Fn(td.team, dst, src, nelems), 0, "%s", what.c_str());
  check_elems(dst, nelems, [&](std::size_t i) {
    T acc = red_val<T>(op, 0, i);
    for (int p = 1; p < n; ++p) acc = combine(op, acc, red_val<T>(op, p, i));
    return acc;
  }, what);
  check_guard(dst + nelems, what);
  if (!in_place)
    check_elems(src, nelems, [&](std::size_t i) { return red_val<T>(op, me, i); }, what + " (source kept)");
}

template <class T, auto Fn>
void test_scan(const TeamDesc& td, const char* tname, bool exclusive, std::size_t nelems, bool in_place) {
  const int me = shmem_team_my_pe(td.team);
  T* src = reinterpret_cast<T*>(g_src);
  T* dst = in_place ? src : reinterpret_cast<T*>(g_dst);
  for (std::size_t i = 0; i < nelems; ++i) src[i] = red_val<T>(kSum, me, i);
  if (in_place) fill(src + nelems, kGuard);
  else fill(dst, nelems * sizeof(T) + kGuard);
  const std::string what = label(td, tname, exclusive ? "sum_exscan" : "sum_inscan", nelems) + (in_place ? " in place" : "");
  CHECK_EQ_AT(Fn(td.team, dst, src, nelems), 0, "%s", what.c_str());
  const int last = exclusive ? me - 1 : me;
  check_elems(dst, nelems, [&](std::size_t i) {
    T acc{};  // the exclusive scan gives 0 on team PE 0
    for (int p = 0; p <= last; ++p) acc = p == 0 ? red_val<T>(kSum, 0, i) : combine(kSum, acc, red_val<T>(kSum, p, i));
    return acc;
  }, what);
  check_guard(dst + nelems, what);
}

bool representative(const char* tname) {
  static const char* reps[] = {"char", "int", "ulong", "double", "longdouble", "uint8", "int64", "complexf", "complexd"};
  for (const char* r : reps)
    if (std::strcmp(r, tname) == 0) return true;
  return false;
}

void all_moves(const TeamDesc& td, std::size_t nelems) {
#define MOVE_ONE(T, N)                                                                                       \
  if (td.full_types || representative(#N))                                                                   \
    test_move<T, shmem_##N##_broadcast, shmem_##N##_collect, shmem_##N##_fcollect, shmem_##N##_alltoall,     \
              shmem_##N##_alltoalls>(td, #N, nelems);
  SHMEM_RMA_TYPE_TABLE(MOVE_ONE)
#undef MOVE_ONE
}

void all_reductions(const TeamDesc& td, std::size_t nelems, bool in_place) {
#define RED_SUM(T, N)                                                             \
  if (td.full_types || representative(#N)) {                                      \
    test_reduce<T, shmem_##N##_sum_reduce>(td, #N, kSum, nelems, in_place);       \
    test_reduce<T, shmem_##N##_prod_reduce>(td, #N, kProd, nelems, in_place);     \
    test_scan<T, shmem_##N##_sum_inscan>(td, #N, false, nelems, in_place);        \
    test_scan<T, shmem_##N##_sum_exscan>(td, #N, true, nelems, in_place);         \
  }
#define RED_MINMAX(T, N)                                                          \
  if (td.full_types || representative(#N)) {                                      \
    test_reduce<T, shmem_##N##_max_reduce>(td, #N, kMax, nelems, in_place);       \
    test_reduce<T, shmem_##N##_min_reduce>(td, #N, kMin, nelems, in_place);       \
  }
#define RED_BIT(T, N)                                                             \
  if (td.full_types || representative(#N)) {                                      \
    test_reduce<T, shmem_##N##_and_reduce>(td, #N, kAnd, nelems, in_place);       \
    test_reduce<T, shmem_##N##_or_reduce>(td, #N, kOr, nelems, in_place);         \
    test_reduce<T, shmem_##N##_xor_reduce>(td, #N, kXor, nelems, in_place);       \
  }
  SHMEM_REDUCE_SUM_TYPE_TABLE(RED_SUM)
  SHMEM_REDUCE_MINMAX_TYPE_TABLE(RED_MINMAX)
  SHMEM_REDUCE_BIT_TYPE_TABLE(RED_BIT)
#undef RED_SUM
#undef RED_MINMAX
#undef RED_BIT
}

// A few types at 1 MiB.
void big(const TeamDesc& td) {
  const std::size_t ni = kBig / sizeof(int), nd = kBig / sizeof(double);
  test_move<double, shmem_double_broadcast, shmem_double_collect, shmem_double_fcollect, shmem_double_alltoall,
            shmem_double_alltoalls>(td, "double", nd);
  test_move_mem(td, kBig);
  test_reduce<int, shmem_int_sum_reduce>(td, "int", kSum, ni, true);
  test_reduce<int, shmem_int_sum_reduce>(td, "int", kSum, ni, false);
  test_reduce<double, shmem_double_sum_reduce>(td, "double", kSum, nd, false);
  test_reduce<float, shmem_float_min_reduce>(td, "float", kMin, kBig / sizeof(float), true);
  test_reduce<uint64_t, shmem_uint64_xor_reduce>(td, "uint64", kXor, kBig / 8, true);
  test_reduce<unsigned char, shmem_uchar_max_reduce>(td, "uchar", kMax, kBig, false);
  test_reduce<std::complex<double>, shmem_complexd_prod_reduce>(td, "complexd", kProd, kBig / 16, false);
  test_scan<long, shmem_long_sum_inscan>(td, "long", false, kBig / sizeof(long), false);
}

// 100 back-to-back collectives on the same buffers: broadcast A -> B, then everyone changes B,
// then reduce B -> A, then fcollect A -> B, with no barrier anywhere. Values change every
// iteration, so a PE reading a stale or a too-new buffer shows up.
void back_to_back(const TeamDesc& td) {
  const int n = shmem_team_n_pes(td.team), me = shmem_team_my_pe(td.team);
  const std::size_t ne = 37;
  long* a = reinterpret_cast<long*>(g_src);
  long* b = reinterpret_cast<long*>(g_dst);
  long* c = reinterpret_cast<long*>(g_dst) + 4096;  // fcollect target, away from b
  long bad = 0;
  int first_bad = -1;
  // The only synchronisation: b (the first broadcast's dest) may still be read by the previous
  // test on some PE. Inside the loop, each reduction and fcollect orders the next broadcast.
  shmem_team_sync(td.team);
  for (int k = 0; k < 100; ++k) {
    const int root = k % n;
    auto f = [&](std::size_t i) { return (long)(k * 1000 + i * 3 + 1); };
    if (me == root)
      for (std::size_t i = 0; i < ne; ++i) a[i] = f(i);
    if (shmem_long_broadcast(td.team, b, a, ne, root) != 0) ++bad;
    for (std::size_t i = 0; i < ne; ++i) {
      if (b[i] != f(i)) ++bad;
      b[i] += me;  // B is mine again once the broadcast has returned
    }
    if (shmem_long_sum_reduce(td.team, a, b, ne) != 0) ++bad;
    for (std::size_t i = 0; i < ne; ++i)
      if (a[i] != n * f(i) + (long)n * (n - 1) / 2) ++bad;
    // fcollect of one element of A (equal everywhere) plus the PE number.
    b[0] = a[k % ne] * 10 + me;
    if (shmem_long_fcollect(td.team, c, b, 1) != 0) ++bad;
    for (int p = 0; p < n; ++p)
      if (c[p] != (n * f(k % ne) + (long)n * (n - 1) / 2) * 10 + p) ++bad;
    // Reported once, and the loop goes on: its team mates make all 100 calls, so stopping
    // here would leave them waiting (a hang instead of a failure).
    if (bad && first_bad < 0) {
      first_bad = k;
      CHECKF(false, "%s back-to-back: wrong values at iteration %d (broadcast b[0] %ld, reduce a[0] %ld, fcollect c[0] %ld)",
             td.name.c_str(), k, b[0], a[0], c[0]);
    }
  }
  // And 100 plain team syncs interleaved with reductions of a changing scalar.
  // Every member makes all 100 calls here too, whatever it found above.
  bool reported = false;
  for (int k = 0; k < 100; ++k) {
    a[0] = k + me;
    const int rs = shmem_team_sync(td.team);
    const int rr = shmem_long_max_reduce(td.team, b, a, 1);
    const bool ok = rs == 0 && rr == 0 && b[0] == k + n - 1;
    if (!ok && !reported) {
      reported = true;
      CHECKF(false, "%s sync/max: wrong value at iteration %d (got %ld)", td.name.c_str(), k, b[0]);
    }
  }
}

// A stream of small broadcasts with rotating roots and no synchronisation in between, each
// into its own dest words (all ready before the first call, as the specification asks): the
// roots run ahead of the receivers, so copies from different roots reach a PE in any order,
// and every PE must still find each call's own data in its own dest.
void broadcast_stream(const TeamDesc& td) {
  const int n = shmem_team_n_pes(td.team), me = shmem_team_my_pe(td.team);
  constexpr int kCalls = 200, kMaxElems = 3;
  long* src = reinterpret_cast<long*>(g_src);
  long* dst = reinterpret_cast<long*>(g_dst);
  auto elems = [](int k) { return k % 5 == 4 ? kMaxElems : 1; };
  auto value = [](int k, int pe, int i) { return 100000L * k + 100L * pe + i + 1; };
  for (int k = 0; k < kCalls; ++k)
    for (int i = 0; i < kMaxElems; ++i) {
      src[k * kMaxElems + i] = value(k, me, i);
      dst[k * kMaxElems + i] = -1;
    }
  shmem_team_sync(td.team);
  long bad = 0;
  int first_bad = -1;
  // Each PE checks its dest as soon as the call returns (the data must be there by then) and
  // again once all calls are over (nothing later may have overwritten it).
  auto check = [&](int k) {
    const int root = (k / 3) % n;
    for (int i = 0; i < kMaxElems; ++i) {
      const long want = i < elems(k) ? value(k, root, i) : -1;
      if (dst[k * kMaxElems + i] != want) {
        ++bad;
        if (first_bad < 0) first_bad = k;
      }
    }
  };
  for (int k = 0; k < kCalls; ++k) {
    const int root = (k / 3) % n;
    if (shmem_long_broadcast(td.team, dst + k * kMaxElems, src + k * kMaxElems, static_cast<std::size_t>(elems(k)), root) != 0)
      ++bad;
    check(k);
  }
  shmem_team_sync(td.team);
  for (int k = 0; k < kCalls; ++k) check(k);
  CHECKF(bad == 0, "%s broadcast stream: %ld wrong words (first at call %d)", td.name.c_str(), bad, first_bad);
}

// Row and column collectives interleaved without barriers: every PE alternates between its row
// and its column team (from split_2d with xrange) while its row- and column-mates may still be
// in the other team's call. Row and column calls use separate buffers (the row's in the first
// half, the column's in the second half of the symmetric buffers).
void interleaved_2d(shmem_team_t row, shmem_team_t col, int xrange) {
  const int rn = shmem_team_n_pes(row), rme = shmem_team_my_pe(row);
  const int cn = shmem_team_n_pes(col), cme = shmem_team_my_pe(col);
  // Size of the row of column PE p (the last row may be short).
  auto row_size_of = [&](int p) {
    const int w = shmem_team_translate_pe(col, p, SHMEM_TEAM_WORLD);
    const int first = (w / xrange) * xrange;
    return std::min(xrange, g_npes - first);
  };
  auto row_sum = [](int n, int k, std::size_t i) { return n * (1000L * k + (long)i) + 10L * n * (n - 1) / 2; };
  long* rs = reinterpret_cast<long*>(g_src);
  long* rd = reinterpret_cast<long*>(g_dst);
  long* cs = reinterpret_cast<long*>(g_src + kBufBytes / 2);
  long* cd = reinterpret_cast<long*>(g_dst + kBufBytes / 2);
  // The column broadcast's dest is apart from the column fcollect's: the broadcast's root may
  // write it while a column-mate still checks the previous iteration's fcollect result (the
  // spec asks only that a broadcast's dest be ready, which the fcollect's sync guarantees here).
  long* cb = cd + 64;
  const std::size_t ne = 13;
  long bad = 0;
  int k = 0;
  for (; k < 60 && !bad; ++k) {
    for (std::size_t i = 0; i < ne; ++i) rs[i] = 1000L * k + 10L * rme + (long)i;
    if (shmem_long_sum_reduce(row, rd, rs, ne) != 0) ++bad;
    for (std::size_t i = 0; i < ne; ++i) bad += rd[i] != row_sum(rn, k, i);
    // Each row's result, tagged with the column PE, goes down the column from PE k % cn.
    for (std::size_t i = 0; i < ne; ++i) cs[i] = rd[i] + 100000L * cme;
    const int root = k % cn;
    if (shmem_long_broadcast(col, cb, cs, ne, root) != 0) ++bad;
    for (std::size_t i = 0; i < ne; ++i) bad += cb[i] != row_sum(row_size_of(root), k, i) + 100000L * root;
    if (shmem_long_fcollect(col, cd, cs, 1) != 0) ++bad;
    for (int p = 0; p < cn; ++p) bad += cd[p] != row_sum(row_size_of(p), k, 0) + 100000L * p;
    if (shmem_long_fcollect(row, rd, rs, 1) != 0) ++bad;
    for (int p = 0; p < rn; ++p) bad += rd[p] != 1000L * k + 10L * p;
  }
  CHECKF(bad == 0, "interleaved row/column collectives: wrong values by iteration %d", k - 1);
}

void run_team(const TeamDesc& td, bool with_big) {
  if (td.team == SHMEM_TEAM_INVALID) return;
  for (std::size_t ne : {std::size_t{0}, std::size_t{1}, std::size_t{37}}) {
    all_moves(td, ne);
    all_reductions(td, ne, false);
    all_reductions(td, ne, true);
    test_move_mem(td, ne);
  }
  if (with_big) big(td);
  back_to_back(td);
  broadcast_stream(td);
}

void invalid_team() {
  // The library documents nonzero for SHMEM_TEAM_INVALID (the spec leaves it undefined).
  long* s = reinterpret_cast<long*>(g_src);
  long* d = reinterpret_cast<long*>(g_dst);
  CHECK(shmem_long_broadcast(SHMEM_TEAM_INVALID, d, s, 1, 0) != 0);
  CHECK(shmem_long_collect(SHMEM_TEAM_INVALID, d, s, 1) != 0);
  CHECK(shmem_long_fcollect(SHMEM_TEAM_INVALID, d, s, 1) != 0);
  CHECK(shmem_long_alltoall(SHMEM_TEAM_INVALID, d, s, 1) != 0);
  CHECK(shmem_long_alltoalls(SHMEM_TEAM_INVALID, d, s, 1, 1, 1) != 0);
  CHECK(shmem_long_sum_reduce(SHMEM_TEAM_INVALID, d, s, 1) != 0);
  CHECK(shmem_team_sync(SHMEM_TEAM_INVALID) != 0);
}

}  // namespace

int main() {
  shmem_init();
  g_me = shmem_my_pe();
  g_npes = shmem_n_pes();
  std::memset(g_fill_ref, kFill, sizeof g_fill_ref);
  g_src = static_cast<char*>(shmem_malloc(kBufBytes));
  g_dst = static_cast<char*>(shmem_malloc(kBufBytes));
  CHECK(g_src != nullptr && g_dst != nullptr);
  if (!g_src || !g_dst) return check_finish("coll_team_coll");

  // Teams: a strided subset (odd PEs; PE 0 alone at 1 PE), the reversed WORLD, 2-D rows and
  // columns with xrange 2 (ragged at odd PE counts).
  shmem_team_t strided = SHMEM_TEAM_INVALID, reversed = SHMEM_TEAM_INVALID, row = SHMEM_TEAM_INVALID,
               col = SHMEM_TEAM_INVALID;
  if (g_npes > 1)
    CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, g_npes / 2, nullptr, 0, &strided), 0);
  else
    CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 1, nullptr, 0, &strided), 0);
  CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, g_npes - 1, -1, g_npes, nullptr, 0, &reversed), 0);
  CHECK_EQ(shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, nullptr, 0, &row, nullptr, 0, &col), 0);

  invalid_team();
  const TeamDesc teams[] = {
      {SHMEM_TEAM_WORLD, "WORLD", true},
      {strided, "strided(1,2)", false},
      {reversed, "reversed", false},
      {row, "row(xrange 2)", true},
      {col, "column(xrange 2)", false},
  };
  for (const TeamDesc& td : teams) {
    run_team(td, td.team == SHMEM_TEAM_WORLD || td.team == col);
    shmem_barrier_all();
  }
  interleaved_2d(row, col, 2);
  shmem_barrier_all();

  shmem_team_destroy(strided);
  shmem_team_destroy(reversed);
  shmem_team_destroy(row);
  shmem_team_destroy(col);
  shmem_free(g_src);
  shmem_free(g_dst);
  return check_finish("coll_team_coll");
}
