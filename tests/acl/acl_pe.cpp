// A program written only against aclshmem.h, as a user porting from Ascend SHMEM writes it: no
// launcher, every process is told its PE number, the job size and how to meet the others.
//
//   acl_pe default   <my_pe> <n_pes> <tcp://host:port> [notls]   ACLSHMEMX_INIT_WITH_DEFAULT
//   acl_pe uid       <my_pe> <n_pes> <dir>                       ACLSHMEMX_INIT_WITH_UNIQUEID; PE 0
//                                                                writes the ID to <dir>/uid, the others read it
//   acl_pe tls       <my_pe> <n_pes> <tcp://host:port> <dir> [wrongca]
//                    certificates from <dir> (acl_launch.sh --certs); PE 1 uses an encrypted key and the
//                    decrypt callback; with wrongca PE 1 trusts another CA and must be refused
//   acl_pe instances <my_pe> <n_pes> <url0> <url1>               two runtime instances in one process
//   acl_pe mpi                                                   ACLSHMEMX_INIT_WITH_MPI under mpirun, comm_args
//                                                                NULL (the library initialises and finalises MPI);
//                                                                my_pe / n_pes from OMPI_COMM_WORLD_RANK / _SIZE
//
// After init every mode runs the same checks: typed/sized/mem RMA, p/g, put_signal with int32
// signals and signal_wait_until, the wait/test out-pointer forms, barriers, teams, finalize.
// Exits non-zero on the first failed check.
#include <aclshmem.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

int g_me = -1;

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      std::fprintf(stderr, "PE %d: CHECK failed at %s:%d: %s\n", g_me, __FILE__, __LINE__, #cond); \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// ---- typed RMA over Ascend SHMEM's host type list ------------------------------------------------
template <class T>
T value(int pe, int i) {
  return static_cast<T>(pe * 10 + i + 1);
}

template <class T>
struct RmaFns {
  void (*put)(T*, const T*, size_t, int);
  void (*get)(T*, const T*, size_t, int);
  void (*put_nbi)(T*, const T*, size_t, int);
  void (*get_nbi)(T*, const T*, size_t, int);
  void (*iput)(T*, const T*, ptrdiff_t, ptrdiff_t, size_t, int);
  void (*iget)(T*, const T*, ptrdiff_t, ptrdiff_t, size_t, int);
  void (*p)(T*, const T, int);
  T (*g)(const T*, int);
  void (*put_signal)(T*, const T*, size_t, void*, int32_t, int, int);
};

template <class T>
void check_rma(const RmaFns<T>& f, int me, int npes) {
  constexpr int kN = 8;
  const int right = (me + 1) % npes, left = (me + npes - 1) % npes;
  T* buf = static_cast<T*>(aclshmem_malloc(2 * kN * sizeof(T)));
  auto* sig = static_cast<int32_t*>(aclshmem_calloc(1, sizeof(int32_t)));
  CHECK(buf != nullptr && sig != nullptr);
  T src[kN], back[2 * kN];
  for (int i = 0; i < kN; ++i) src[i] = value<T>(me, i);

  f.put(buf, src, kN, right);  // blocking put, then a barrier: visible on right
  aclshmem_barrier_all();
  for (int i = 0; i < kN; ++i) CHECK(buf[i] == value<T>(left, i));
  f.get(back, buf, kN, right);  // right's buf holds what I put
  for (int i = 0; i < kN; ++i) CHECK(back[i] == value<T>(me, i));
  aclshmem_barrier_all();

  f.put_nbi(buf + kN, src, kN, left);
  aclshmem_barrier_all();
  for (int i = 0; i < kN; ++i) CHECK(buf[kN + i] == value<T>(right, i));
  std::memset(static_cast<void*>(back), 0, sizeof back);
  f.get_nbi(back, buf + kN, kN, left);
  aclshmem_barrier_all();
  for (int i = 0; i < kN; ++i) CHECK(back[i] == value<T>(me, i));

  // Strided: every other element of dest, from consecutive source elements.
  f.iput(buf, src, 2, 1, kN, right);
  aclshmem_barrier_all();
  for (int i = 0; i < kN; ++i) CHECK(buf[2 * i] == value<T>(left, i));
  f.iget(back, buf, 1, 2, kN, right);
  for (int i = 0; i < kN; ++i) CHECK(back[i] == value<T>(me, i));
  aclshmem_barrier_all();

  f.p(buf, value<T>(me, 5), right);
  aclshmem_barrier_all();
  CHECK(buf[0] == value<T>(left, 5));
  CHECK(f.g(buf, right) == value<T>(me, 5));
  aclshmem_barrier_all();

  // put_signal: data first, then the int32 signal; Ascend SHMEM's typed form takes uint8_t*.
  f.put_signal(buf, src, kN, reinterpret_cast<uint8_t*>(sig), me + 1, ACLSHMEM_SIGNAL_SET, right);
  aclshmem_signal_wait_until(sig, ACLSHMEM_CMP_EQ, left + 1);
  for (int i = 0; i < kN; ++i) CHECK(buf[i] == value<T>(left, i));
  aclshmem_barrier_all();
  aclshmem_free(sig);
  aclshmem_free(buf);
}

#define RMA_FNS(T, NAME)                                                                                         \
  RmaFns<T>{aclshmem_##NAME##_put,  aclshmem_##NAME##_get, aclshmem_##NAME##_put_nbi, aclshmem_##NAME##_get_nbi, \
            aclshmem_##NAME##_iput, aclshmem_##NAME##_iget, aclshmem_##NAME##_p,      aclshmem_##NAME##_g,       \
            aclshmem_##NAME##_put_signal}
#define CHECK_RMA(T, NAME) check_rma<T>(RMA_FNS(T, NAME), me, npes);

void check_sized_and_mem(int me, int npes) {
  const int right = (me + 1) % npes, left = (me + npes - 1) % npes;
  auto* buf = static_cast<uint64_t*>(aclshmem_calloc(16, sizeof(uint64_t)));
  auto* sig = static_cast<int32_t*>(aclshmem_calloc(2, sizeof(int32_t)));
  CHECK(buf != nullptr && sig != nullptr);
  uint64_t src[4] = {uint64_t(me) << 40 | 1, 2, 3, uint64_t(me)};
  aclshmem_put64(buf, src, 4, right);
  aclshmem_put32_nbi(buf + 4, src, 8, right);  // 8 x 32 bits = the same 4 words
  aclshmem_putmem(buf + 8, src, sizeof src, right);
  aclshmem_put128(buf + 12, src, 2, right);  // 2 x 128 bits
  aclshmem_barrier_all();
  for (int blk = 0; blk < 4; ++blk) {
    CHECK(buf[blk * 4 + 0] == (uint64_t(left) << 40 | 1));
    CHECK(buf[blk * 4 + 3] == uint64_t(left));
  }
  uint64_t back[4] = {};
  aclshmem_getmem(back, buf, sizeof back, right);
  CHECK(back[0] == src[0] && back[3] == src[3]);
  aclshmem_get16_nbi(back, buf + 4, 16, right);
  aclshmem_barrier_all();
  CHECK(back[3] == src[3]);
  aclshmem_iput64(buf, src, 4, 1, 4, right);  // words 0, 4, 8, 12
  aclshmem_barrier_all();
  CHECK(buf[0] == (uint64_t(left) << 40 | 1) && buf[4] == 2 && buf[8] == 3 && buf[12] == uint64_t(left));
  aclshmem_barrier_all();

  // putmem_signal with ADD: every PE adds 1 to PE 0's counter after writing its slot.
  aclshmemx_putmem_signal(buf + me % 16, &src[3], sizeof(uint64_t), sig + 1, 1, ACLSHMEM_SIGNAL_ADD, 0);
  if (me == 0) {
    aclshmem_signal_wait_until(sig + 1, ACLSHMEM_CMP_EQ, npes);
    for (int pe = 0; pe < npes && pe < 16; ++pe) CHECK(buf[pe] == uint64_t(pe));
  }
  aclshmem_barrier_all();
  aclshmem_put32_signal(buf, src, 2, sig, 7, ACLSHMEM_SIGNAL_SET, right);
  aclshmem_signal_wait_until(sig, ACLSHMEM_CMP_GE, 7);
  aclshmem_barrier_all();
  aclshmem_free(sig);
  aclshmem_free(buf);
}

// ---- wait / test out-pointer forms -------------------------------------------------------------
// Every PE sets its slot of PE 0's arrays; PE 0 waits for them with the various forms.
void check_wait_test(int me, int npes) {
  auto* i32 = static_cast<int32_t*>(aclshmem_calloc(size_t(npes), sizeof(int32_t)));
  auto* i8 = static_cast<int8_t*>(aclshmem_calloc(size_t(npes), 1));
  auto* f32 = static_cast<float*>(aclshmem_calloc(size_t(npes), sizeof(float)));
  auto* u64 = static_cast<uint64_t*>(aclshmem_calloc(size_t(npes), sizeof(uint64_t)));
  auto* c = static_cast<char*>(aclshmem_calloc(size_t(npes), 1));
  CHECK(i32 && i8 && f32 && u64 && c);
  std::vector<int> none_excluded(size_t(npes), 0), all_excluded(size_t(npes), 1);
  std::vector<size_t> idx(size_t(npes), 0);
  size_t res = 12345;
  int ok = -1;

  if (me == 0) {  // nothing has arrived: tests say no, excluded sets say "none"
    aclshmem_int32_test_any(i32, size_t(npes), nullptr, ACLSHMEM_CMP_EQ, 1, &res);
    CHECK(res == SIZE_MAX);
    aclshmem_int32_test_any(i32, size_t(npes), all_excluded.data(), ACLSHMEM_CMP_EQ, 0, &res);
    CHECK(res == SIZE_MAX);
    aclshmem_int8_wait_until_any(i8, size_t(npes), all_excluded.data(), ACLSHMEM_CMP_EQ, 1, &res);
    CHECK(res == SIZE_MAX);
    aclshmem_uint64_wait_until_some(u64, size_t(npes), idx.data(), all_excluded.data(), ACLSHMEM_CMP_EQ, 1, &res);
    CHECK(res == 0);
  }
  aclshmem_barrier_all();
  aclshmem_int32_p(i32 + me, me + 1, 0);
  aclshmem_int8_p(i8 + me, int8_t(me + 1), 0);
  aclshmem_float_p(f32 + me, 0.5f + float(me), 0);
  aclshmem_uint64_p(u64 + me, uint64_t(1) << 40 | uint64_t(me), 0);
  aclshmem_char_p(c + me, 'a', 0);

  if (me == 0) {
    aclshmem_int32_wait_until_all(i32, size_t(npes), none_excluded.data(), ACLSHMEM_CMP_GT, 0);
    for (int pe = 0; pe < npes; ++pe) CHECK(i32[pe] == pe + 1);
    std::vector<int32_t> want32(static_cast<size_t>(npes));
    for (int pe = 0; pe < npes; ++pe) want32[size_t(pe)] = pe + 1;
    aclshmem_int32_wait_until_all_vector(i32, size_t(npes), nullptr, ACLSHMEM_CMP_EQ, want32.data());
    aclshmem_int32_test_all_vector(i32, size_t(npes), nullptr, ACLSHMEM_CMP_EQ, want32.data(), &ok);
    CHECK(ok == 1);
    want32[0] = 99;
    aclshmem_int32_test_all_vector(i32, size_t(npes), nullptr, ACLSHMEM_CMP_EQ, want32.data(), &ok);
    CHECK(ok == 0);
    aclshmem_int32_test_any_vector(i32, size_t(npes), nullptr, ACLSHMEM_CMP_EQ, want32.data(), &res);
    CHECK(npes == 1 ? res == SIZE_MAX : res == 1);
    aclshmem_int32_test(i32, ACLSHMEM_CMP_EQ, 1, &ok);
    CHECK(ok == 1);
    aclshmem_int32_test(i32, ACLSHMEM_CMP_LT, 1, &ok);
    CHECK(ok == 0);
    aclshmem_int32_test_some(i32, size_t(npes), idx.data(), nullptr, ACLSHMEM_CMP_GE, 1, &res);
    CHECK(res == size_t(npes) && idx[0] == 0 && idx[size_t(npes) - 1] == size_t(npes) - 1);

    // 8-bit, float and char words (Ascend SHMEM's list has them; OpenSHMEM does not).
    aclshmem_int8_wait_until_all(i8, size_t(npes), nullptr, ACLSHMEM_CMP_NE, 0);
    aclshmem_int8_wait_until_some(i8, size_t(npes), idx.data(), nullptr, ACLSHMEM_CMP_EQ, int8_t(npes), &res);
    CHECK(res == 1 && idx[0] == size_t(npes) - 1);
    aclshmem_float_wait_until_any(f32, size_t(npes), nullptr, ACLSHMEM_CMP_GE, 0.5f + float(npes - 1), &res);
    CHECK(res == size_t(npes) - 1);
    aclshmem_float_wait_until_all(f32, size_t(npes), nullptr, ACLSHMEM_CMP_GT, 0.25f);
    aclshmem_float_test(f32, ACLSHMEM_CMP_EQ, 0.5f, &ok);
    CHECK(ok == 1);
    std::vector<float> wantf(static_cast<size_t>(npes));
    for (int pe = 0; pe < npes; ++pe) wantf[size_t(pe)] = 0.5f + float(pe);
    aclshmem_float_test_some_vector(f32, size_t(npes), idx.data(), nullptr, ACLSHMEM_CMP_EQ, wantf.data(), &res);
    CHECK(res == size_t(npes));
    aclshmem_char_wait_until_all(c, size_t(npes), nullptr, ACLSHMEM_CMP_EQ, 'a');
    aclshmem_char_wait(c, 0);
    std::vector<uint64_t> want64(static_cast<size_t>(npes));
    for (int pe = 0; pe < npes; ++pe) want64[size_t(pe)] = uint64_t(1) << 40 | uint64_t(pe);
    aclshmem_uint64_wait_until_any_vector(u64, size_t(npes), nullptr, ACLSHMEM_CMP_EQ, want64.data(), &res);
    // Any satisfied entry may be returned (the _any forms rotate over them, spec 1.6).
    CHECK(res < size_t(npes) && u64[res] == want64[res]);
    aclshmem_uint64_wait_until(u64 + npes - 1, ACLSHMEM_CMP_EQ, uint64_t(1) << 40 | uint64_t(npes - 1));
    aclshmem_uint64_test_any(u64, size_t(npes), nullptr, ACLSHMEM_CMP_EQ, uint64_t(1) << 40, &res);
    CHECK(res == 0);
  }
  aclshmem_barrier_all();
  aclshmem_free(c);
  aclshmem_free(u64);
  aclshmem_free(f32);
  aclshmem_free(i8);
  aclshmem_free(i32);
}

// ---- teams -------------------------------------------------------------------------------------
// Every PE reports its handle of `team` into slot `me` of PE 0's array; PE 0 checks that the
// members (report != INVALID) agree, since a handle must name the same team on every member.
void check_handles_agree(int32_t* reports, aclshmem_team_t team, int me, int npes, bool (*member)(int, int)) {
  aclshmem_int32_p(reports + me, team, 0);
  aclshmem_barrier_all();
  if (me == 0) {
    int32_t seen = ACLSHMEM_TEAM_INVALID;
    for (int pe = 0; pe < npes; ++pe) {
      if (!member(pe, npes)) {
        CHECK(reports[pe] == ACLSHMEM_TEAM_INVALID);
        continue;
      }
      CHECK(reports[pe] > ACLSHMEM_TEAM_WORLD);
      if (seen == ACLSHMEM_TEAM_INVALID) seen = reports[pe];
      CHECK(reports[pe] == seen);
    }
  }
  aclshmem_barrier_all();
}

void check_teams(int me, int npes) {
  CHECK(aclshmem_team_my_pe(ACLSHMEM_TEAM_WORLD) == me);
  CHECK(aclshmem_team_n_pes(ACLSHMEM_TEAM_WORLD) == npes);
  CHECK(aclshmem_team_my_pe(ACLSHMEM_TEAM_INVALID) == -1);
  CHECK(aclshmem_team_n_pes(77) == -1);
  auto* reports = static_cast<int32_t*>(aclshmem_calloc(size_t(npes), sizeof(int32_t)));
  CHECK(reports != nullptr);

  const int n_even = (npes + 1) / 2;
  aclshmem_team_t even = 12345;
  CHECK(aclshmem_team_split_strided(ACLSHMEM_TEAM_WORLD, 0, 2, n_even, &even) == 0);
  check_handles_agree(reports, even, me, npes, [](int pe, int) { return pe % 2 == 0; });
  if (me % 2 == 0) {
    CHECK(aclshmem_team_my_pe(even) == me / 2);
    CHECK(aclshmem_team_n_pes(even) == n_even);
    CHECK(aclshmem_team_translate_pe(even, n_even - 1, ACLSHMEM_TEAM_WORLD) == 2 * (n_even - 1));
    CHECK(aclshmem_team_translate_pe(ACLSHMEM_TEAM_WORLD, me, even) == me / 2);
    aclshmem_team_config_t cfg;
    CHECK(aclshmem_team_get_config(even, &cfg) == 0);
    CHECK(cfg.uniqueid == even && cfg.version == (1 << 16) + int32_t(sizeof cfg));
    aclshmem_barrier(even);
    aclshmem_sync(even);
  } else {
    CHECK(even == ACLSHMEM_TEAM_INVALID);
    CHECK(aclshmem_team_translate_pe(ACLSHMEM_TEAM_WORLD, me, ACLSHMEM_TEAM_WORLD) == me);
  }
  aclshmem_barrier_all();

  aclshmem_team_t x = 0, y = 0;
  CHECK(aclshmem_team_split_2d(ACLSHMEM_TEAM_WORLD, 2, &x, &y) == 0);
  CHECK(x != ACLSHMEM_TEAM_INVALID && y != ACLSHMEM_TEAM_INVALID && x != y);
  CHECK(aclshmem_team_my_pe(x) == me % 2 && aclshmem_team_my_pe(y) == me / 2);
  CHECK(aclshmem_team_n_pes(x) == std::min(2, npes - (me / 2) * 2));
  CHECK(aclshmem_team_translate_pe(x, 0, y) == (me % 2 == 0 ? me / 2 : -1));
  // PEs 0 and 1 form the first x team; the others report nothing for it.
  check_handles_agree(reports, me < 2 ? x : ACLSHMEM_TEAM_INVALID, me, npes, [](int pe, int) { return pe < 2; });
  aclshmem_barrier(x);
  aclshmem_barrier(y);
  aclshmem_team_destroy(y);
  aclshmem_team_destroy(x);
  aclshmem_team_destroy(even);  // INVALID on odd PEs: ignored
  aclshmem_sync_all();
  CHECK(aclshmem_team_n_pes(x) == -1);

  aclshmem_team_t again = ACLSHMEM_TEAM_INVALID;
  CHECK(aclshmem_team_split_strided(ACLSHMEM_TEAM_WORLD, 0, 1, npes, &again) == 0);
  check_handles_agree(reports, again, me, npes, [](int, int) { return true; });
  CHECK(aclshmem_team_n_pes(again) == npes);
  aclshmem_team_destroy(again);
  aclshmem_free(reports);
  aclshmem_barrier(ACLSHMEM_TEAM_WORLD);
}

void check_memory(int me, int npes) {
  void* host = aclshmemx_malloc(4096, HOST_SIDE);
  void* dev = aclshmemx_calloc(4, 1024);  // DEVICE_SIDE by default
  CHECK(host != nullptr && dev != nullptr);
  CHECK(static_cast<char*>(dev)[4095] == 0);
  char* base = static_cast<char*>(aclshmemx_get_heap_base());
  CHECK(base != nullptr && base <= static_cast<char*>(host));
  CHECK(aclshmem_ptr(host, me) == host);
  CHECK(aclshmem_ptr(host, npes) == nullptr);
  CHECK(aclshmem_ptr(&g_me, me) != nullptr);  // globals are symmetric here too
  void* al = aclshmemx_align(4096, 100, DEVICE_SIDE);
  CHECK(al != nullptr && reinterpret_cast<uintptr_t>(al) % 4096 == 0);
  CHECK(aclshmem_malloc(0) == nullptr);
  aclshmem_free(al);
  aclshmemx_free(dev);
  aclshmemx_free(host, HOST_SIDE);
}

void exercise(int me, int npes) {
  CHECK(aclshmemx_init_status() == ACLSHMEM_STATUS_IS_INITIALIZED);
  CHECK(aclshmem_my_pe() == me && aclshmem_n_pes() == npes);
  check_memory(me, npes);
  ACLSHMEM_HOST_TYPE_TABLE(CHECK_RMA)
  check_sized_and_mem(me, npes);
  check_wait_test(me, npes);
  check_teams(me, npes);
}

// ---- modes ------------------------------------------------------------------------------------
aclshmemx_init_attr_t attr_for(int me, int npes, const std::string& url) {
  aclshmemx_init_attr_t attr;  // option_attr, comm_args, instance_id: the header's defaults
  attr.my_pe = me;
  attr.n_pes = npes;
  std::snprintf(attr.ip_port, sizeof attr.ip_port, "%s", url.c_str());
  attr.local_mem_size = 64ULL << 20;
  return attr;
}

int finish() {
  CHECK(aclshmem_finalize() == 0);
  CHECK(aclshmemx_init_status() == ACLSHMEM_STATUS_NOT_INITIALIZED);
  std::printf("PE %d: OK\n", g_me);
  return 0;
}

int run_default(int me, int npes, const std::string& url, bool notls) {
  if (notls) CHECK(aclshmemx_set_conf_store_tls(false, nullptr, 0) == 0);
  aclshmemx_init_attr_t attr = attr_for(me, npes, url);
  CHECK(attr.option_attr.version == (1 << 16) + int32_t(sizeof(aclshmem_init_optional_attr_t)));
  CHECK(attr.option_attr.data_op_engine_type == ACLSHMEM_DATA_OP_MTE && attr.comm_args == nullptr);
  CHECK(aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_DEFAULT, &attr) == 0);
  exercise(me, npes);
  return finish();
}

int run_uid(int me, int npes, const std::string& dir) {
  aclshmemx_uniqueid_t uid = ACLSHMEM_UNIQUEID_INITIALIZER;
  const std::string path = dir + "/uid";
  if (me == 0) {
    CHECK(aclshmemx_get_uniqueid(&uid) == 0);
    std::ofstream(path + ".tmp", std::ios::binary).write(reinterpret_cast<const char*>(&uid), sizeof uid);
    CHECK(std::rename((path + ".tmp").c_str(), path.c_str()) == 0);  // appears whole
  } else {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    std::string bytes;
    while ((bytes = read_file(path)).size() != sizeof uid) {
      CHECK(std::chrono::steady_clock::now() < deadline);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    std::memcpy(&uid, bytes.data(), sizeof uid);
  }
  aclshmemx_init_attr_t attr;
  CHECK(aclshmemx_set_attr_uniqueid_args(me, npes, 64LL << 20, &uid, &attr) == 0);
  CHECK(attr.comm_args == &uid && attr.my_pe == me && attr.n_pes == npes);
  CHECK(aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_UNIQUEID, &attr) == 0);
  exercise(me, npes);
  return finish();
}

// The "encrypted" password of PE 1's key is the real one reversed; this callback undoes that.
int reverse_decrypt(const char* cipher, size_t cipher_len, char* plain, size_t& plain_len) {
  if (plain_len < cipher_len) return 1;
  std::reverse_copy(cipher, cipher + cipher_len, plain);
  plain_len = cipher_len;
  return 0;
}

int run_tls(int me, int npes, const std::string& url, const std::string& dir, bool wrong_ca) {
  const std::string name = "pe" + std::to_string(me);
  const std::string ca = (wrong_ca && me == 1) ? dir + "/ca2.pem" : dir + "/ca.pem";
  const std::string info = "tlsCaFile: " + ca + "; tlsCert: " + dir + "/" + name + ".pem;";
  CHECK(aclshmemx_set_conf_store_tls(true, info.c_str(), uint32_t(info.size())) == 0);
  if (me == 1) {  // encrypted key, password through the decrypt callback
    const std::string pem = read_file(dir + "/pe1.enc.key"), cipher = "terces";
    CHECK(!pem.empty());
    CHECK(aclshmemx_set_config_store_tls_key(pem.c_str(), uint32_t(pem.size()), cipher.c_str(),
                                             uint32_t(cipher.size()), reverse_decrypt) == 0);
  } else {
    const std::string pem = read_file(dir + "/" + name + ".key");
    CHECK(!pem.empty());
    CHECK(aclshmemx_set_config_store_tls_key(pem.c_str(), uint32_t(pem.size()), nullptr, 0, nullptr) == 0);
  }
  aclshmemx_init_attr_t attr = attr_for(me, npes, url);
  if (wrong_ca) {  // keep the expected failure short
    attr.option_attr.shm_init_timeout = 5;
    attr.option_attr.control_operation_timeout = 5;
  }
  const int rc = aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_DEFAULT, &attr);
  if (rc != 0) {
    std::fprintf(stderr, "PE %d: aclshmemx_init_attr returned %d\n", me, rc);
    return 3;
  }
  // Settings are frozen once initialised.
  CHECK(aclshmemx_set_conf_store_tls(false, nullptr, 0) != 0);
  exercise(me, npes);
  return finish();
}

int run_instances(int me, int npes, const std::string& url0, const std::string& url1) {
  CHECK(aclshmemx_set_conf_store_tls(false, nullptr, 0) == 0);
  aclshmemx_init_attr_t a0 = attr_for(me, npes, url0);
  CHECK(aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_DEFAULT, &a0) == 0);
  aclshmemx_init_attr_t a1 = attr_for(me, npes, url1);
  a1.instance_id = 1;
  CHECK(aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_DEFAULT, &a1) == 0);
  CHECK(aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_DEFAULT, &a1) != 0);  // already live
  CHECK(aclshmemx_instance_ctx_get() != nullptr && aclshmemx_instance_ctx_get()->id == 1);

  // Each instance has its own heap and its own team handles.
  aclshmem_team_t t1 = ACLSHMEM_TEAM_INVALID;
  CHECK(aclshmem_team_split_strided(ACLSHMEM_TEAM_WORLD, 0, 1, npes, &t1) == 0 && t1 > ACLSHMEM_TEAM_WORLD);
  auto* v1 = static_cast<int64_t*>(aclshmem_calloc(1, sizeof(int64_t)));
  CHECK(v1 != nullptr);
  aclshmem_int64_p(v1, 1000 + me, (me + 1) % npes);
  aclshmem_barrier(t1);
  CHECK(*v1 == 1000 + (me + npes - 1) % npes);

  CHECK(aclshmemx_instance_ctx_set(7) != 0);
  CHECK(aclshmemx_instance_ctx_set(0) == 0);
  CHECK(aclshmemx_instance_ctx_get()->id == 0);
  CHECK(aclshmem_team_n_pes(t1) == -1);  // instance 0 has no such team
  exercise(me, npes);                    // the full set, on instance 0 while 1 stays live

  CHECK(aclshmemx_instance_ctx_set(1) == 0);
  CHECK(*v1 == 1000 + (me + npes - 1) % npes);  // untouched by instance 0's traffic
  aclshmem_team_destroy(t1);
  aclshmem_free(v1);
  CHECK(aclshmemx_finalize(1) == 0);
  CHECK(aclshmemx_finalize(1) != 0);
  CHECK(aclshmemx_instance_ctx_get()->id == 0);  // falls back to the remaining instance
  CHECK(aclshmemx_init_status() == ACLSHMEM_STATUS_IS_INITIALIZED);
  aclshmem_barrier_all();
  return finish();
}

int env_int(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') {
    std::fprintf(stderr, "acl_pe mpi: %s is not set (start it with Open MPI's mpirun)\n", name);
    std::exit(2);
  }
  return std::atoi(v);
}

// The PE number and job size are the rank and size in MPI_COMM_WORLD; this program does not
// link MPI: the library's MPI plugin initialises it and finalises it at aclshmem_finalize.
int run_mpi() {
  const int me = env_int("OMPI_COMM_WORLD_RANK"), npes = env_int("OMPI_COMM_WORLD_SIZE");
  g_me = me;
  aclshmemx_init_attr_t attr = attr_for(me, npes, "");
  CHECK(aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_MPI, &attr) == 0);
  exercise(me, npes);
  return finish();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "mpi") return run_mpi();
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s default|uid|tls|instances my_pe n_pes ... | mpi\n", argv[0]);
    return 2;
  }
  const std::string mode = argv[1];
  const int me = std::atoi(argv[2]), npes = std::atoi(argv[3]);
  g_me = me;
  const std::string a4 = argv[4], a5 = argc > 5 ? argv[5] : "", a6 = argc > 6 ? argv[6] : "";
  if (mode == "default") return run_default(me, npes, a4, a5 == "notls");
  if (mode == "uid") return run_uid(me, npes, a4);
  if (mode == "tls") return run_tls(me, npes, a4, a5, a6 == "wrongca");
  if (mode == "instances") return run_instances(me, npes, a4, a5);
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  return 2;
}
