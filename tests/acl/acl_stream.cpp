// Ascend SHMEM's stream-ordered host calls, used as a ported program uses them:
// aclshmemx_{putmem,getmem}_on_stream, aclshmemx_signal_op_on_stream (int32 SET and ADD),
// aclshmemx_signal_wait_until_on_stream, aclshmemx_quiet_on_stream, aclshmemx_barrier_on_stream,
// aclshmemx_barrier_all_on_stream and aclshmemx_handle_wait, on a created stream and on the NULL
// default stream. Only the stream handles come from shmemx.h (create / query / synchronize /
// destroy: CANN's aclrtCreateStream and aclrtSynchronizeStream do not exist here).
//
//   acl_stream <my_pe> <n_pes> <tcp://host:port>      (started by acl_launch.sh; n_pes >= 2)
//
// Every value is checked exactly; a failed check prints FAILED with the reason and exits 1.
#include <aclshmem.h>
#include <shmemx.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

int me = -1, npes = 0, right = 0, left = 0;

#define CHECK(cond, ...)                                                                   \
  do {                                                                                     \
    if (!(cond)) {                                                                         \
      std::fprintf(stderr, "PE %d: FAILED at %s:%d: %s: ", me, __FILE__, __LINE__, #cond); \
      std::fprintf(stderr, __VA_ARGS__);                                                   \
      std::fprintf(stderr, "\n");                                                          \
      aclshmem_global_exit(1); /* ends the peers too (before init it only warns) */        \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

constexpr size_t kN = 4096;  // bytes per transfer

uint8_t pattern(int pe, int round, size_t i) { return static_cast<uint8_t>(pe * 31 + round * 7 + int(i % 251)); }

void fill(uint8_t* p, int pe, int round) {
  for (size_t i = 0; i < kN; ++i) p[i] = pattern(pe, round, i);
}

void expect(const uint8_t* p, int pe, int round, const char* what) {
  for (size_t i = 0; i < kN; ++i)
    CHECK(p[i] == pattern(pe, round, i), "%s[%zu] = %u, expected %u (PE %d's round %d data)", what, i, unsigned(p[i]),
          unsigned(pattern(pe, round, i)), pe, round);
}

aclrtStream acl(shmemx_stream_t s) { return static_cast<aclrtStream>(s); }

void synchronize(shmemx_stream_t s, const char* what) {
  const int rc = shmemx_stream_synchronize(s);
  CHECK(rc == 0, "synchronize after %s returned %d", what, rc);
}

// Symmetric buffers of the whole test.
struct Sym {
  uint8_t* inbox;   // written by the left neighbour
  uint8_t* outbox;  // read by the right neighbour
  int32_t* sig;     // [0] SET, [1] ADD counter, [2] guard, [3] negative SET, [4] ready, [5] errors
};

// put + quiet + SET signal to the right; the stream then waits for the left's signal and gets
// back what it put on the right.
void put_signal_wait(const Sym& m, shmemx_stream_t s) {
  uint8_t src[kN], back[kN];
  fill(src, me, 1);
  std::memset(back, 0, sizeof back);
  aclshmemx_putmem_on_stream(m.inbox, src, kN, right, acl(s));
  aclshmemx_quiet_on_stream(acl(s));
  aclshmemx_signal_op_on_stream(&m.sig[0], me + 1, ACLSHMEM_SIGNAL_SET, right, acl(s));
  aclshmemx_signal_wait_until_on_stream(&m.sig[0], ACLSHMEM_CMP_EQ, left + 1, acl(s));
  aclshmemx_getmem_on_stream(back, m.inbox, kN, right, acl(s));
  synchronize(s, "put/signal/wait/get");
  CHECK(m.sig[0] == left + 1, "sig[0] = %d, expected %d", int(m.sig[0]), left + 1);
  expect(m.inbox, left, 1, "inbox");
  expect(back, me, 1, "getmem result");
  aclshmem_barrier_all();  // everybody's wait is done before inbox is reused
}

// int32 ADD from every PE into PE 0's word, which starts at -1: the carry out of the low 32 bits
// must not reach the next word (a 64-bit add would). Then a negative SET and an EQ wait on it.
void add_and_negative(const Sym& m, shmemx_stream_t s) {
  m.sig[1] = -1;
  m.sig[2] = 0x5a5a5a5a;
  aclshmem_barrier_all();
  aclshmemx_signal_op_on_stream(&m.sig[1], me + 1, ACLSHMEM_SIGNAL_ADD, 0, acl(s));
  const int32_t total = -1 + npes * (npes + 1) / 2;
  if (me == 0) aclshmemx_signal_wait_until_on_stream(&m.sig[1], ACLSHMEM_CMP_EQ, total, acl(s));
  aclshmemx_signal_op_on_stream(&m.sig[3], -(me + 1), ACLSHMEM_SIGNAL_SET, right, acl(s));
  aclshmemx_signal_wait_until_on_stream(&m.sig[3], ACLSHMEM_CMP_EQ, -(left + 1), acl(s));
  aclshmemx_signal_wait_until_on_stream(&m.sig[3], ACLSHMEM_CMP_LT, 0, acl(s));
  synchronize(s, "ADD/negative SET");
  if (me == 0) CHECK(m.sig[1] == total, "sig[1] = %d after every PE's ADD, expected %d", int(m.sig[1]), total);
  CHECK(m.sig[2] == 0x5a5a5a5a, "sig[2] = %#x: the ADD on the word before it changed it", unsigned(m.sig[2]));
  CHECK(m.sig[3] == -(left + 1), "sig[3] = %d, expected %d", int(m.sig[3]), -(left + 1));
  aclshmem_barrier_all();
}

// A wait_until followed by a getmem on the same stream reads only after the signal arrived: the
// stream is still pending while no signal can have been sent, and what it reads is the data the
// left neighbour wrote (on the host) before signalling.
void wait_orders_get(const Sym& m, shmemx_stream_t s) {
  uint8_t back[kN];
  std::memset(back, 0xee, sizeof back);
  std::memset(m.outbox, 0, kN);
  m.sig[4] = 0;
  aclshmem_barrier_all();
  aclshmemx_signal_wait_until_on_stream(&m.sig[4], ACLSHMEM_CMP_EQ, 1, acl(s));
  aclshmemx_getmem_on_stream(back, m.outbox, kN, left, acl(s));
  aclshmem_barrier_all();  // every PE's wait and get are queued; nobody has signalled yet
  CHECK(shmemx_stream_query(s) == SHMEMX_STREAM_PENDING, "the stream finished before its signal was sent");
  aclshmem_barrier_all();
  fill(m.outbox, me, 2);
  aclshmemx_signal_op_on_stream(&m.sig[4], 1, ACLSHMEM_SIGNAL_SET, right, nullptr);  // the default stream
  synchronize(SHMEMX_STREAM_DEFAULT, "signal on the default stream");
  synchronize(s, "wait + get");
  expect(back, left, 2, "getmem after the wait");
  aclshmem_barrier_all();
}

// The NULL (default) stream: put, barrier_all, get. After the stream barrier every PE's put is
// complete, so the inbox holds the left's data and the get returns what this PE put.
void default_stream(const Sym& m) {
  uint8_t src[kN], back[kN];
  fill(src, me, 3);
  std::memset(back, 0, sizeof back);
  aclshmemx_putmem_on_stream(m.inbox, src, kN, right, nullptr);
  aclshmemx_barrier_all_on_stream(nullptr);
  aclshmemx_getmem_on_stream(back, m.inbox, kN, right, nullptr);
  synchronize(SHMEMX_STREAM_DEFAULT, "put/barrier_all/get on the default stream");
  expect(m.inbox, left, 3, "inbox after barrier_all_on_stream");
  expect(back, me, 3, "getmem on the default stream");
  aclshmem_barrier_all();
}

// A team barrier on the stream (barrier_on_stream, or handle_wait on the team) completes only
// once every member has enqueued it: PE 0 joins last, and the others' streams stay pending until
// then. Each PE put to its right first; after the barrier that data is complete everywhere.
template <class Enqueue>
void team_wait(const Sym& m, shmemx_stream_t s, int round, const char* what, Enqueue enqueue) {
  uint8_t src[kN];
  fill(src, me, round);
  aclshmemx_putmem_on_stream(m.inbox, src, kN, right, acl(s));
  if (me != 0) enqueue(s);
  aclshmem_barrier_all();  // host barrier on WORLD; the stream's is on another team
  if (me != 0) CHECK(shmemx_stream_query(s) == SHMEMX_STREAM_PENDING, "%s completed before PE 0 joined", what);
  aclshmem_barrier_all();
  if (me == 0) enqueue(s);
  synchronize(s, what);
  expect(m.inbox, left, round, what);
  aclshmem_barrier_all();
}

void teams(const Sym& m, shmemx_stream_t s) {
  aclshmem_team_t all = ACLSHMEM_TEAM_INVALID;
  CHECK(aclshmem_team_split_strided(ACLSHMEM_TEAM_WORLD, 0, 1, npes, &all) == 0 && all > ACLSHMEM_TEAM_WORLD,
        "split_strided returned team %d", int(all));
  team_wait(m, s, 4, "barrier_on_stream(team)",
            [all](shmemx_stream_t st) { aclshmemx_barrier_on_stream(all, acl(st)); });
  team_wait(m, s, 5, "handle_wait(team)", [all](shmemx_stream_t st) {
    aclshmem_handle_t h;
    h.team_id = all;
    const int32_t rc = aclshmemx_handle_wait(h, acl(st));
    CHECK(rc == ACLSHMEM_SUCCESS, "aclshmemx_handle_wait(team %d) returned %d", int(all), int(rc));
  });
  // Ascend SHMEM's usual form: handle_wait over WORLD after on-stream operations.
  uint8_t src[kN];
  fill(src, me, 6);
  aclshmemx_putmem_on_stream(m.inbox, src, kN, right, acl(s));
  aclshmem_handle_t world;
  world.team_id = ACLSHMEM_TEAM_WORLD;
  CHECK(aclshmemx_handle_wait(world, acl(s)) == ACLSHMEM_SUCCESS, "handle_wait(WORLD) failed");
  synchronize(s, "handle_wait(WORLD)");
  expect(m.inbox, left, 6, "inbox after handle_wait(WORLD)");
  aclshmem_barrier_all();
  aclshmem_team_destroy(all);
}

// Bad arguments: each is logged, skipped and returned by the next synchronize (then cleared);
// later work still runs. handle_wait refuses a bad team at once and enqueues nothing.
void errors(const Sym& m, shmemx_stream_t s) {
  auto* misaligned = reinterpret_cast<int32_t*>(reinterpret_cast<char*>(&m.sig[5]) + 2);
  uint8_t src[kN] = {};
  struct Bad {
    const char* what;
    void (*enqueue)(const Sym&, int32_t*, uint8_t*, aclrtStream);
  } const bad[] = {
      {"sig_op 7", [](const Sym& y, int32_t*, uint8_t*, aclrtStream st) {
         aclshmemx_signal_op_on_stream(&y.sig[5], 1, 7, right, st);
       }},
      {"misaligned signal", [](const Sym&, int32_t* mis, uint8_t*, aclrtStream st) {
         aclshmemx_signal_op_on_stream(mis, 1, ACLSHMEM_SIGNAL_SET, right, st);
       }},
      {"pe = n_pes", [](const Sym& y, int32_t*, uint8_t* b, aclrtStream st) {
         aclshmemx_putmem_on_stream(y.inbox, b, kN, npes, st);
       }},
      {"non-symmetric source", [](const Sym&, int32_t*, uint8_t* b, aclrtStream st) {
         aclshmemx_getmem_on_stream(b, b, kN, right, st);
       }},
      {"cmp 9", [](const Sym& y, int32_t*, uint8_t*, aclrtStream st) {
         aclshmemx_signal_wait_until_on_stream(&y.sig[5], 9, 0, st);
       }},
      {"team 77", [](const Sym&, int32_t*, uint8_t*, aclrtStream st) { aclshmemx_barrier_on_stream(77, st); }},
  };
  for (const Bad& b : bad) {
    m.sig[5] = 0;
    b.enqueue(m, misaligned, src, acl(s));
    aclshmemx_signal_op_on_stream(&m.sig[5], 42, ACLSHMEM_SIGNAL_SET, me, acl(s));  // still runs
    const int rc = shmemx_stream_synchronize(s);
    CHECK(rc == ACLSHMEM_INVALID_PARAM, "%s: synchronize returned %d, expected ACLSHMEM_INVALID_PARAM", b.what, rc);
    CHECK(m.sig[5] == 42, "%s: the operation after the bad one did not run (sig[5] = %d)", b.what, int(m.sig[5]));
    CHECK(shmemx_stream_synchronize(s) == 0, "%s: the error was not cleared", b.what);
  }
  aclshmem_handle_t h;
  h.team_id = ACLSHMEM_TEAM_INVALID;
  CHECK(aclshmemx_handle_wait(h, acl(s)) == ACLSHMEM_INVALID_PARAM, "handle_wait(ACLSHMEM_TEAM_INVALID)");
  h.team_id = 77;
  CHECK(aclshmemx_handle_wait(h, acl(s)) == ACLSHMEM_INVALID_PARAM, "handle_wait(team 77)");
  CHECK(shmemx_stream_query(s) == 0 && shmemx_stream_synchronize(s) == 0, "a refused handle_wait enqueued work");
  aclshmem_barrier_all();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s <my_pe> <n_pes> <tcp://host:port>\n", argv[0]);
    return 2;
  }
  me = std::atoi(argv[1]);
  npes = std::atoi(argv[2]);
  CHECK(npes >= 2, "needs at least 2 PEs, got n_pes=%d", npes);
  right = (me + 1) % npes;
  left = (me + npes - 1) % npes;

  CHECK(aclshmemx_set_conf_store_tls(false, nullptr, 0) == 0, "cannot turn TLS off");
  aclshmemx_init_attr_t attr;
  attr.my_pe = me;
  attr.n_pes = npes;
  std::snprintf(attr.ip_port, sizeof attr.ip_port, "%s", argv[3]);
  attr.local_mem_size = 16LL << 20;
  CHECK(aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_DEFAULT, &attr) == 0, "aclshmemx_init_attr failed");

  Sym m;
  m.inbox = static_cast<uint8_t*>(aclshmem_calloc(1, kN));
  m.outbox = static_cast<uint8_t*>(aclshmem_calloc(1, kN));
  m.sig = static_cast<int32_t*>(aclshmem_calloc(8, sizeof(int32_t)));
  CHECK(m.inbox && m.outbox && m.sig, "aclshmem_calloc failed");

  shmemx_stream_t s;
  CHECK(shmemx_stream_create(&s) == 0, "shmemx_stream_create failed");
  put_signal_wait(m, s);
  add_and_negative(m, s);
  wait_orders_get(m, s);
  default_stream(m);
  teams(m, s);
  errors(m, s);
  CHECK(shmemx_stream_destroy(s) == 0, "shmemx_stream_destroy failed");

  aclshmem_free(m.sig);
  aclshmem_free(m.outbox);
  aclshmem_free(m.inbox);
  CHECK(aclshmem_finalize() == 0, "aclshmem_finalize failed");
  std::printf("PE %d: OK\n", me);
  return 0;
}
