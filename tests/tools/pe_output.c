/*
 * pe_output.c - output that must survive the end of a PE (tests/tools/oshrun_crash_output.sh).
 * Every PE prints two lines (and whether its stdout is a terminal), all PEs meet in a barrier,
 * then the last PE ends in the way `mode` names while the others wait in a second barrier, to
 * be ended by oshrun:
 *   segv | abort | kill      the last PE crashes (NULL store), aborts, or is killed (SIGKILL)
 *   global-exit              the last PE calls shmem_global_exit(5)
 *   fatal                    the last PE passes a PE number out of range (the library's fatal path)
 *   partial                  as segv, but each PE's second line has no newline yet
 * Nothing is flushed by hand: the lines reach oshrun only if the library and launcher see to it.
 */
#include <shmem.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long word;

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  shmem_init();
  const int me = shmem_my_pe(), victim = shmem_n_pes() - 1;
  printf("PE %d line 1 tty=%d\n", me, isatty(1));
  printf("PE %d line 2\n", me);
  shmem_barrier_all();
  if (me == victim) {
    if (!strcmp(mode, "segv")) {
      volatile int* volatile nowhere = NULL;
      *nowhere = 1;
    } else if (!strcmp(mode, "abort")) {
      abort();
    } else if (!strcmp(mode, "kill")) {
      raise(SIGKILL);
    } else if (!strcmp(mode, "global-exit")) {
      shmem_global_exit(5);
    } else if (!strcmp(mode, "fatal")) {
      shmem_long_p(&word, 1, shmem_n_pes() + 7);
    } else {
      fprintf(stderr, "pe_output: unknown mode '%s'\n", mode);
      return 2;
    }
  }
  shmem_barrier_all();
  shmem_finalize();
  return 0;
}
