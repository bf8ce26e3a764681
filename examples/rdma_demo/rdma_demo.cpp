// rdma_demo: one-sided put, get and signals between PEs, the counterpart of Ascend SHMEM's
// rdma_demo (there RoCE from inside a kernel; here the same calls reach a node-local PE's
// mapped memory, or a PE on another host through the library's transport). Each PE sends a
// message to its right neighbour twice:
//   1. from a device kernel: putmem_signal to the right; wait for the left neighbour's
//      signal; getmem the left neighbour's message back from its own buffer;
//   2. with host calls on a stream: putmem + signal_op, signal_wait_until, getmem, quiet.
// Every PE checks what it received; PE 0 prints VERIFIED.
//   oshrun -n 2 ./rdma_demo [bytes=65536]
#include <shmemx.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <shmem/device/device.hpp>
#include <vector>

namespace dev = shmem::device;

static unsigned char pattern(int pe, int round, std::size_t i) {
  return static_cast<unsigned char>(pe * 31 + round * 7 + static_cast<int>(i));
}

int main(int argc, char** argv) {
  const std::size_t bytes = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 65536;
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  const int right = (me + 1) % npes, left = (me + npes - 1) % npes;

  auto* msg = static_cast<unsigned char*>(shmem_malloc(bytes));    // what I send (readable by peers)
  auto* inbox = static_cast<unsigned char*>(shmem_malloc(bytes));  // what my left neighbour put here
  auto* sig = static_cast<std::uint64_t*>(shmem_calloc(2, sizeof(std::uint64_t)));
  std::vector<unsigned char> fetched(bytes);
  long wrong = 0;
  auto check = [&](const unsigned char* got, int from, int round) {
    for (std::size_t i = 0; i < bytes; ++i) wrong += got[i] != pattern(from, round, i);
  };

  // 1. From a kernel (one block).
  for (std::size_t i = 0; i < bytes; ++i) msg[i] = pattern(me, 1, i);
  shmem_barrier_all();
  unsigned char* back = fetched.data();
  dev::launch(nullptr, 1, [=](const dev::Block&) {
    dev::putmem_signal(inbox, msg, bytes, &sig[0], std::uint64_t{1}, SHMEM_SIGNAL_SET, right);  // data, then signal
    dev::signal_wait_until(&sig[0], SHMEM_CMP_EQ, std::uint64_t{1});  // my left neighbour's message is here
    dev::getmem(back, msg, bytes, left);                              // and read its source directly
  });
  shmemx_stream_synchronize(nullptr);
  check(inbox, left, 1);
  check(back, left, 1);

  // 2. Host calls on a stream: they queue at once and run in order on the stream's thread.
  shmem_barrier_all();  // everyone has read round 1
  for (std::size_t i = 0; i < bytes; ++i) msg[i] = pattern(me, 2, i);
  std::memset(back, 0, bytes);
  shmem_barrier_all();
  shmemx_stream_t s;
  shmemx_stream_create(&s);
  shmemx_putmem_on_stream(inbox, msg, bytes, right, s);
  shmemx_signal_op_on_stream(&sig[1], 1, SHMEM_SIGNAL_ADD, right, s);  // after the data: same stream
  shmemx_signal_wait_until_on_stream(&sig[1], SHMEM_CMP_EQ, 1, s);
  shmemx_getmem_on_stream(back, msg, bytes, left, s);
  shmemx_quiet_on_stream(s);
  const int rc = shmemx_stream_synchronize(s);  // the first error inside the stream, if any
  shmemx_stream_destroy(s);
  check(inbox, left, 2);
  check(back, left, 2);
  if (rc != 0) ++wrong;

  auto* total = static_cast<long*>(shmem_calloc(1, sizeof(long)));
  shmem_long_atomic_add(total, wrong, 0);
  shmem_barrier_all();
  if (me == 0)
    std::printf("rdma_demo: %d PEs, %zu-byte messages, put/get/signal from a kernel and from a stream: %s\n", npes,
                bytes, *total == 0 ? "VERIFIED" : "FAILED");
  const bool ok = wrong == 0 && (me != 0 || *total == 0);
  shmem_free(total);
  shmem_free(sig);
  shmem_free(inbox);
  shmem_free(msg);
  shmem_finalize();
  return ok ? 0 : 1;
}
