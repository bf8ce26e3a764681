/*
 * pe_lifecycle_edge.c - lifecycle edge cases, one per mode (each its own process):
 *   finalize-only        shmem_finalize without shmem_init: harmless, exit 0
 *   before-init <call>   a shmem call before shmem_init must end the program with a message
 *                        saying it was called before shmem_init (the wrapper checks the text
 *                        and the non-zero exit); <call> is my_pe, malloc, put, barrier, or
 *                        after-finalize (a call after shmem_finalize)
 */
#include "check.h"

static long target;

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "finalize-only")) {
    shmem_finalize();
    shmem_finalize();
    printf("finalize without init: OK\n");
    return 0;
  }
  if (!strcmp(mode, "before-init")) {
    const char* call = argc > 2 ? argv[2] : "my_pe";
    int rc = 0;
    if (!strcmp(call, "my_pe")) {
      rc = shmem_my_pe();
    } else if (!strcmp(call, "malloc")) {
      rc = shmem_malloc(64) != NULL;
    } else if (!strcmp(call, "put")) {
      long v = 1;
      shmem_long_put(&target, &v, 1, 0);
    } else if (!strcmp(call, "barrier")) {
      shmem_barrier_all();
    } else if (!strcmp(call, "after-finalize")) {
      shmem_init();
      shmem_finalize();
      shmem_long_p(&target, 1, 0);
    } else {
      fprintf(stderr, "unknown call %s\n", call);
      return 2;
    }
    /* Reaching this line is the failure: the call should have ended the program. */
    printf("NOT STOPPED: %s before shmem_init returned (%d)\n", call, rc);
    return 0;
  }
  fprintf(stderr, "usage: pe_lifecycle_edge finalize-only | before-init CALL\n");
  return 2;
}
