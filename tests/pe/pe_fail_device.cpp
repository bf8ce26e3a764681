// pe_fail_device.cpp MODE - device-API waits that never complete end the job (run with
// SHMEM_WAIT_TIMEOUT=1 under oshrun -n 2; the expectation is in tests/pe/CMakeLists.txt):
//   wait-timeout      PE 0's kernel waits (wait_until) for a value (42) that never comes; the
//                     other PEs block in pause(), outside the library
//   barrier-timeout   PE 0 never launches the kernel whose device barrier the others wait in
#include <unistd.h>

#include <cstring>
#include <shmem/device/device.hpp>

#include "check.h"

namespace dev = shmem::device;

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: pe_fail_device wait-timeout|barrier-timeout\n");
    return 2;
  }
  const char* mode = argv[1];
  shmem_init();
  const int me = shmem_my_pe();
  long* never_set = static_cast<long*>(shmem_calloc(1, sizeof(long)));
  shmem_barrier_all();
  int rc = 0;
  if (!strcmp(mode, "wait-timeout")) {
    if (me != 0)
      for (;;) pause();
    rc = dev::launch(nullptr, 1, [=](const dev::Block&) { dev::wait_until(never_set, SHMEM_CMP_EQ, 42L); });
  } else if (!strcmp(mode, "barrier-timeout")) {
    if (me == 0)
      for (;;) pause();
    rc = dev::launch(nullptr, 1, [](const dev::Block&) { dev::barrier_all(); });
  } else {
    fprintf(stderr, "pe_fail_device: unknown mode %s\n", mode);
    return 2;
  }
  CHECK_EQ(rc, 0);
  shmemx_stream_synchronize(nullptr);
  fprintf(stderr, "PE %d: NOT STOPPED: the wait returned\n", me);
  shmem_finalize();
  return 1;
}
