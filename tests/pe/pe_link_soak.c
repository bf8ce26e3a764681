/*
 * pe_link_soak.c - traffic that must come through a network outage exact (tests/hosts/link_blip.sh).
 *   pe_link_soak STOP_FILE PROGRESS_FILE [MAX_ROUNDS]
 * Round r: every PE puts a 64 KiB block whose words depend on (r, sender) into its right
 * neighbour, adds 1 to a counter on PE 0, and the PEs agree through a max-reduction whether PE 0
 * has seen STOP_FILE; then each checks the block it received and the reduction's value. PE 0
 * writes the number of finished rounds to PROGRESS_FILE after each round, so that the test can
 * tell the job still moves after the link came back. The counter is checked at the end.
 */
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

#include "check.h"

#define WORDS (64 * 1024 / 8)

static long block[WORDS];
static long counter;
static long flag_src, flag_dst;

static long word(long round, int sender, long i) { return (round << 32) ^ ((long)sender << 20) ^ i; }

static void write_progress(const char* path, long rounds) {
  char text[32];
  const int len = snprintf(text, sizeof text, "%ld\n", rounds);
  const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  if (write(fd, text, (size_t)len) != len) perror("pe_link_soak: progress file");
  close(fd);
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: pe_link_soak STOP_FILE PROGRESS_FILE [MAX_ROUNDS]\n");
    return 2;
  }
  const long max_rounds = argc > 3 ? atol(argv[3]) : 1000000;
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  static long out[WORDS];
  long rounds = 0;
  for (long r = 0; r < max_rounds; ++r) {
    for (long i = 0; i < WORDS; ++i) out[i] = word(r, me, i);
    shmem_long_put(block, out, WORDS, right);
    shmem_long_atomic_add(&counter, 1, 0);
    flag_src = me == 0 && access(argv[1], F_OK) == 0;
    shmem_barrier_all(); /* the puts and adds are complete and visible */
    shmem_long_max_reduce(SHMEM_TEAM_WORLD, &flag_dst, &flag_src, 1);
    long bad = 0;
    for (long i = 0; i < WORDS; ++i) bad += block[i] != word(r, left, i);
    CHECK_EQ_AT(bad, 0L, "round %ld: words of PE %d's block", r, left);
    rounds = r + 1;
    if (me == 0) write_progress(argv[2], rounds);
    shmem_barrier_all(); /* everyone checked the block before it is overwritten */
    if (flag_dst) break;
  }
  if (me == 0) CHECK_EQ(shmem_long_atomic_fetch(&counter, 0), rounds * n);
  if (me == 0) printf("pe_link_soak: %ld rounds on %d PEs, every block and the counter exact\n", rounds, n);
  return check_finish("pe_link_soak");
}
