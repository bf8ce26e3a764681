/*
 * launch_probe.c - runs one job's launcher for bench/scale.sh and reports what it cost.
 *
 *   launch_probe TIMEOUT_S COMM REPORT COMMAND [ARGS...]
 *
 * Starts COMMAND in a process group of its own, as its parent, and while it runs samples
 * /proc/<pid> every 10 ms once the process is named COMM (/proc/<pid>/comm: the launcher, after
 * the harness agent's chain of execs reaches it): the peak number of open descriptors and
 * VmHWM (the peak resident set, which the kernel keeps; its last sample is within 10 ms of the
 * end). When the process has exited it is left a zombie (waitid WNOWAIT) so that its
 * /proc/<pid>/io (rchar, wchar: bytes through read/write-family calls, not send/recv) can be
 * read without a race, then reaped. After TIMEOUT_S seconds the group gets SIGTERM, and
 * SIGKILL 5 s later.
 *
 * REPORT gets one line: "wall_ms=W status=S timed_out=0|1 fds_peak=F hwm_kb=H rchar=R
 * wchar=W" (status: the exit status, or 128 + the signal). The exit status is COMMAND's, 124
 * when it timed out, 127 when it could not be started.
 */
#define _GNU_SOURCE

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double mono(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The value after "KEY" on its line of the /proc file, or -1. */
static long field(pid_t pid, const char* file, const char* key) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, file);
  FILE* f = fopen(path, "r");
  if (!f) return -1;
  long v = -1;
  size_t klen = strlen(key);
  while (fgets(line, sizeof line, f))
    if (strncmp(line, key, klen) == 0) {
      v = strtol(line + klen, NULL, 10);
      break;
    }
  fclose(f);
  return v;
}

static int named(pid_t pid, const char* comm) {
  char path[64], name[64] = "";
  snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
  FILE* f = fopen(path, "r");
  if (!f) return 0;
  if (!fgets(name, sizeof name, f)) name[0] = 0;
  fclose(f);
  name[strcspn(name, "\n")] = 0;
  return strcmp(name, comm) == 0;
}

static long count_fds(pid_t pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
  DIR* d = opendir(path);
  if (!d) return -1;
  long n = 0;
  struct dirent* e;
  while ((e = readdir(d)) != NULL)
    if (e->d_name[0] != '.') n++;
  closedir(d);
  return n;
}

int main(int argc, char** argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: launch_probe TIMEOUT_S COMM REPORT COMMAND [ARGS...]\n");
    return 2;
  }
  char* end;
  double timeout_s = strtod(argv[1], &end);
  if (*end || timeout_s <= 0) {
    fprintf(stderr, "launch_probe: TIMEOUT_S must be a positive number of seconds, not '%s'\n", argv[1]);
    return 2;
  }
  const char* comm = argv[2];
  FILE* report = fopen(argv[3], "w");
  if (!report) {
    fprintf(stderr, "launch_probe: cannot write the report %s: %s\n", argv[3], strerror(errno));
    return 2;
  }
  double t0 = mono();
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "launch_probe: fork: %s\n", strerror(errno));
    return 127;
  }
  if (pid == 0) {
    setpgid(0, 0);
    execvp(argv[4], argv + 4);
    fprintf(stderr, "launch_probe: cannot run %s: %s\n", argv[4], strerror(errno));
    _exit(127);
  }
  setpgid(pid, pid);
  long fds_peak = -1, hwm = -1;
  int timed_out = 0;
  double killed_at = 0;
  const struct timespec tick = {0, 10 * 1000 * 1000};
  for (;;) {
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid) break;
    if (named(pid, comm)) {
      long f = count_fds(pid), h = field(pid, "status", "VmHWM:");
      if (f > fds_peak) fds_peak = f;
      if (h > hwm) hwm = h;
    }
    double t = mono() - t0;
    if (!timed_out && t > timeout_s) {
      timed_out = 1;
      killed_at = t;
      kill(-pid, SIGTERM);
    } else if (timed_out && killed_at > 0 && t > killed_at + 5) {
      kill(-pid, SIGKILL);
      killed_at = -1;
    }
    nanosleep(&tick, NULL);
  }
  double wall_ms = (mono() - t0) * 1e3;
  long rchar = field(pid, "io", "rchar:"), wchar = field(pid, "io", "wchar:");
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
  int status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  fprintf(report, "wall_ms=%.1f status=%d timed_out=%d fds_peak=%ld hwm_kb=%ld rchar=%ld wchar=%ld\n", wall_ms, status,
          timed_out, fds_peak, hwm, rchar, wchar);
  fclose(report);
  return timed_out ? 124 : status;
}
