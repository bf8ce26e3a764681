/* A userspace network impairment between two interfaces (the kernel here has no netem): every
 * Ethernet frame that arrives on one is sent out of the other, except that a given percentage
 * is dropped and each is held back by a random delay of 0 to JITTER ms (so frames may also be
 * reordered, as on a real path with jitter). Run in the harness's switch namespace between a
 * host's port and the bridge (harness.sh: harness_impair).
 *
 *   impair_relay IF_A IF_B LOSS_PERCENT JITTER_MS SEED MAX_SECONDS
 *
 * Frames carry their virtio-net header (PACKET_VNET_HDR) so that offloaded segments and
 * checksums cross as the kernel left them. Bounded: it exits after MAX_SECONDS, when its parent
 * goes away, or on SIGTERM/SIGINT; at exit it prints what it relayed and dropped. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { kMaxFrame = 65536 + 64, kMaxHeld = 4096 };

typedef struct {
  uint64_t due_ns;
  int out; /* socket index to send on */
  int len;
  unsigned char* data;
} Held;

static volatile sig_atomic_t g_stop;
static void on_signal(int sig) {
  (void)sig;
  g_stop = 1;
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* xorshift64*: reproducible from SEED */
static uint64_t g_rng;
static uint64_t rnd(void) {
  g_rng ^= g_rng >> 12;
  g_rng ^= g_rng << 25;
  g_rng ^= g_rng >> 27;
  return g_rng * 2685821657736338717ull;
}

static int open_port(const char* ifname) {
  int fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
  if (fd < 0) {
    fprintf(stderr, "impair_relay: socket(AF_PACKET): %s\n", strerror(errno));
    exit(2);
  }
  int one = 1;
  if (setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof one) != 0) {
    fprintf(stderr, "impair_relay: PACKET_VNET_HDR: %s\n", strerror(errno));
    exit(2);
  }
  struct sockaddr_ll sll;
  memset(&sll, 0, sizeof sll);
  sll.sll_family = AF_PACKET;
  sll.sll_protocol = htons(ETH_P_ALL);
  sll.sll_ifindex = (int)if_nametoindex(ifname);
  if (sll.sll_ifindex == 0 || bind(fd, (struct sockaddr*)&sll, sizeof sll) != 0) {
    fprintf(stderr, "impair_relay: cannot bind to %s: %s\n", ifname, strerror(errno));
    exit(2);
  }
  struct packet_mreq mr;
  memset(&mr, 0, sizeof mr);
  mr.mr_ifindex = sll.sll_ifindex;
  mr.mr_type = PACKET_MR_PROMISC;
  if (setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof mr) != 0) {
    fprintf(stderr, "impair_relay: promiscuous mode on %s: %s\n", ifname, strerror(errno));
    exit(2);
  }
  return fd;
}

int main(int argc, char** argv) {
  if (argc != 7) {
    fprintf(stderr, "usage: %s IF_A IF_B LOSS_PERCENT JITTER_MS SEED MAX_SECONDS\n", argv[0]);
    return 2;
  }
  const double loss = atof(argv[3]) / 100.0;
  const uint64_t jitter_ns = (uint64_t)(atof(argv[4]) * 1e6);
  g_rng = strtoull(argv[5], NULL, 10) * 0x9E3779B97F4A7C15ull + 1;
  const uint64_t end_ns = now_ns() + (uint64_t)atoll(argv[6]) * 1000000000ull;
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  signal(SIGTERM, on_signal);
  signal(SIGINT, on_signal);

  int fds[2] = {open_port(argv[1]), open_port(argv[2])};
  static Held held[kMaxHeld];
  int nheld = 0;
  unsigned long relayed = 0, dropped = 0, overflow = 0;
  static unsigned char buf[kMaxFrame];

  printf("impair_relay: %s <-> %s, loss %.1f %%, jitter 0-%s ms\n", argv[1], argv[2], loss * 100, argv[4]);
  fflush(stdout);
  while (!g_stop && now_ns() < end_ns) {
    /* Send what is due; find the next due time. */
    uint64_t t = now_ns(), next = t + 100000000ull;
    for (int i = 0; i < nheld;) {
      if (held[i].due_ns <= t) {
        if (send(fds[held[i].out], held[i].data, (size_t)held[i].len, 0) < 0 && errno != ENOBUFS)
          fprintf(stderr, "impair_relay: send: %s\n", strerror(errno));
        free(held[i].data);
        held[i] = held[--nheld];
        ++relayed;
        continue;
      }
      if (held[i].due_ns < next) next = held[i].due_ns;
      ++i;
    }
    struct pollfd p[2] = {{fds[0], POLLIN, 0}, {fds[1], POLLIN, 0}};
    int wait_ms = (int)((next - t + 999999) / 1000000);
    if (poll(p, 2, wait_ms) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int k = 0; k < 2; ++k) {
      if (!(p[k].revents & POLLIN)) continue;
      for (int burst = 0; burst < 64; ++burst) {
        struct sockaddr_ll from;
        socklen_t fl = sizeof from;
        ssize_t n = recvfrom(fds[k], buf, sizeof buf, MSG_DONTWAIT, (struct sockaddr*)&from, &fl);
        if (n <= 0) break;
        if (from.sll_pkttype == PACKET_OUTGOING) continue; /* our own sends */
        if ((double)(rnd() >> 11) / 9007199254740992.0 < loss) {
          ++dropped;
          continue;
        }
        if (nheld == kMaxHeld) {
          ++overflow; /* a queue that is full drops, as a switch's would */
          continue;
        }
        unsigned char* copy = malloc((size_t)n);
        if (!copy) continue;
        memcpy(copy, buf, (size_t)n);
        held[nheld].due_ns = now_ns() + (jitter_ns ? rnd() % jitter_ns : 0);
        held[nheld].out = 1 - k;
        held[nheld].len = (int)n;
        held[nheld].data = copy;
        ++nheld;
      }
    }
  }
  for (int i = 0; i < nheld; ++i) free(held[i].data);
  printf("impair_relay: relayed %lu frames, dropped %lu (loss), %lu (queue full)\n", relayed, dropped, overflow);
  return 0;
}
