/*
 * pe_fork.c - a PE forks (without exec) a child that exits: the child acts for nobody. Its exit
 * handlers leave the PE's instance alone (no finalize, no "PE exited with status N" that would end
 * the job), shmem_finalize in it is ignored, and its copy of the PE's store connection is
 * /dev/null (util/parent_only_fd.hpp), so it can neither keep that connection open nor write on
 * it. Nor does it wait for the PE's stream and kernel-pool threads (they are not in it): at exit,
 * or in the ignored shmem_finalize, while the PE's stream still runs a kernel.
 * Its global variables are its own, as after any fork, though the PE's are symmetric (shared
 * memory): each writes one after the fork and neither sees the other's value.
 * The PE then goes on: a barrier, a sum reduction, finalize.
 *   PE me's child: me % 3 == 0  exit(0)
 *                  me % 3 == 1  exit(3)
 *                  me % 3 == 2  shmem_finalize(), then exit(5)
 * A child reports a store connection that is still a socket with status 9 (under a launcher that
 * passes it as SHMEM_STORE_FD; otherwise that is not checked), and a global that is not its own
 * with status 8.
 */
#include <sched.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <shmemx.h>

#include "check.h"

static long src, dst;
static long global = 1; /* static data: symmetric, and the child's own after the fork */

static void count_block(shmemx_block_t* b, void* args) {
  (void)b;
  __atomic_fetch_add((int*)args, 1, __ATOMIC_RELAXED);
}

static int release_kernel; /* the PE sets it once its child has exited */
__attribute__((unused)) static void wait_for_release(shmemx_block_t* b, void* args) {
  (void)b;
  (void)args;
  while (!__atomic_load_n(&release_kernel, __ATOMIC_ACQUIRE)) sched_yield();
}

/* The child's copy of SHMEM_STORE_FD: 1 when it is still a socket. */
static int store_fd_is_socket(void) {
  const char* v = getenv("SHMEM_STORE_FD");
  if (!v || !*v) return 0;
  struct stat st;
  return fstat(atoi(v), &st) == 0 && S_ISSOCK(st.st_mode);
}

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  static const int want[3] = {0, 3, 5};
  /* A stream with a thread, and the kernel pool's threads, running when the PE forks. */
  shmemx_stream_t stream;
  CHECK_EQ(shmemx_stream_create(&stream), 0);
  int blocks = 0;
  CHECK_EQ(shmemx_launch(count_block, 4, 1, &blocks, 0, stream), 0);
  CHECK_EQ(shmemx_stream_synchronize(stream), 0);
  CHECK_EQ(blocks, 4);
#if !defined(__SANITIZE_ADDRESS__)
  /* Still running at the fork. Not under AddressSanitizer: LeakSanitizer, at the child's exit,
   * would count what the PE's stream thread holds for it as the child's leaks. */
  CHECK_EQ(shmemx_launch(wait_for_release, 1, 1, NULL, 0, stream), 0);
#endif
  int to_child[2], to_parent[2];
  CHECKF(pipe(to_child) == 0 && pipe(to_parent) == 0, "pipe");
  fflush(NULL); /* nothing buffered is written twice */
  const pid_t child = fork();
  CHECKF(child >= 0, "fork failed");
  if (child == 0) {
    if (store_fd_is_socket()) _exit(9);
    char c;
    if (read(to_child[0], &c, 1) != 1 || global != 1) _exit(8); /* the parent has written 2 */
    global = 3;
    if (write(to_parent[1], "c", 1) != 1) _exit(8);
    if (me % 3 == 2) shmem_finalize();
    exit(want[me % 3]); /* exit, not _exit: the library's exit handlers run in the child */
  }
  close(to_child[0]); /* so that a child that ended early reads as EOF, not a hang */
  close(to_parent[1]);
  global = 2;
  char c;
  CHECKF(write(to_child[1], "p", 1) == 1 && read(to_parent[0], &c, 1) == 1, "the pipes to the child");
  CHECK_EQ(global, 2); /* the child has written 3 (or ended early: status below) */
  close(to_child[1]);
  close(to_parent[0]);
  int status = 0;
  CHECKF(waitpid(child, &status, 0) == child, "waitpid");
  CHECKF(WIFEXITED(status), "PE %d: the child did not exit normally (status 0x%x)", me, status);
  CHECK_EQ(WEXITSTATUS(status), want[me % 3]);
  __atomic_store_n(&release_kernel, 1, __ATOMIC_RELEASE);
  CHECK_EQ(shmemx_stream_synchronize(stream), 0);
  CHECK_EQ(shmemx_stream_destroy(stream), 0);

  src = me + 1;
  shmem_barrier_all();
  shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &dst, &src, 1);
  CHECK_EQ(dst, (long)n * (n + 1) / 2);
  return check_finish("pe_fork");
}
