/*
 * tcp_pingpong.c - the physical floor for the cross-host benchmark: a plain TCP 8-byte
 * ping-pong and a single-stream 1 MiB bandwidth between two hosts, with the same median
 * method as perf.c. One side listens, the other connects:
 *
 *   tcp_pingpong server PORT            (prints nothing; serves one client, then exits)
 *   tcp_pingpong client HOST PORT       (prints CSV lines: metric,size_bytes,value,unit)
 *
 * Environment: PERF_REPS (default 11), PERF_REP_MS (default 20), as perf.c.
 */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { kMsg = 8, kBwBytes = 1 << 20, kMaxReps = 101 };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void die(const char* what) {
  perror(what);
  exit(1);
}

static void full(int fd, void* buf, size_t n, int writing) {
  char* p = buf;
  while (n) {
    ssize_t r = writing ? write(fd, p, n) : read(fd, p, n);
    if (r <= 0) die(writing ? "write" : "read");
    p += r;
    n -= (size_t)r;
  }
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* Command bytes from the client: 'p' = ping-pong 8 bytes, 'b' = receive 1 MiB then ack, 'q' = quit. */
static void serve(int fd) {
  static char big[kBwBytes];
  char cmd, msg[kMsg];
  for (;;) {
    full(fd, &cmd, 1, 0);
    if (cmd == 'q') return;
    if (cmd == 'p') {
      full(fd, msg, kMsg, 0);
      full(fd, msg, kMsg, 1);
    } else if (cmd == 'b') {
      full(fd, big, kBwBytes, 0);
      full(fd, &cmd, 1, 1);
    }
  }
}

static double batch(int fd, char cmd, long iters) {
  static char big[kBwBytes];
  char msg[kMsg] = {0}, ack;
  double t0 = now();
  for (long i = 0; i < iters; ++i) {
    full(fd, &cmd, 1, 1);
    if (cmd == 'p') {
      full(fd, msg, kMsg, 1);
      full(fd, msg, kMsg, 0);
    } else {
      full(fd, big, kBwBytes, 1);
      full(fd, &ack, 1, 0);
    }
  }
  return (now() - t0) / (double)iters;
}

static void measure(int fd, char cmd, int reps, double rep_s, const char* metric) {
  double per = batch(fd, cmd, 4); /* warm-up, and a first estimate */
  long iters = (long)(rep_s / (per > 0 ? per : 1e-6));
  if (iters < 4) iters = 4;
  double t[kMaxReps];
  for (int r = 0; r < reps; ++r) t[r] = batch(fd, cmd, iters);
  qsort(t, (size_t)reps, sizeof t[0], cmp_double);
  const double med = t[reps / 2];
  if (cmd == 'p') {
    printf("%s,%d,%.4f,us\n", metric, kMsg, med * 1e6);
    printf("%s_min,%d,%.4f,us\n", metric, kMsg, t[0] * 1e6);
  } else {
    printf("%s,%d,%.3f,GB/s\n", metric, kBwBytes, (double)kBwBytes / med * 1e-9);
    printf("%s_max,%d,%.3f,GB/s\n", metric, kBwBytes, (double)kBwBytes / t[0] * 1e-9);
  }
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: tcp_pingpong server PORT | client HOST PORT\n");
    return 2;
  }
  int reps = getenv("PERF_REPS") ? atoi(getenv("PERF_REPS")) : 11;
  double rep_s = (getenv("PERF_REP_MS") ? atof(getenv("PERF_REP_MS")) : 20.0) / 1000.0;
  if (reps < 1 || reps > kMaxReps) reps = 11;
  int one = 1;
  if (!strcmp(argv[1], "server")) {
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)atoi(argv[2]));
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(ls, (struct sockaddr*)&a, sizeof a) || listen(ls, 1)) die("bind/listen");
    int fd = accept(ls, NULL, NULL);
    if (fd < 0) die("accept");
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    serve(fd);
    return 0;
  }
  if (argc < 4) return 2;
  struct addrinfo hints = {0}, *res;
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  if (getaddrinfo(argv[2], argv[3], &hints, &res)) die("getaddrinfo");
  int fd = -1;
  for (int attempt = 0; attempt < 200; ++attempt) { /* the server may still be starting: up to 2 s */
    fd = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(fd, res->ai_addr, res->ai_addrlen) == 0) break;
    close(fd);
    fd = -1;
    struct timespec ts = {0, 10 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  if (fd < 0) die("connect");
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  printf("metric,size_bytes,value,unit\n");
  measure(fd, 'p', reps, rep_s, "tcp_pingpong_rtt");
  measure(fd, 'b', reps, rep_s, "tcp_stream_bw");
  char q = 'q';
  full(fd, &q, 1, 1);
  return 0;
}
