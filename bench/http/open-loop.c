/*
 * The open-loop generator of bench/http/open-loop.ts in C, for the same measurement with a
 * fraction of the CPU: on a 2-core machine a generator in JavaScript must spin to send on time
 * (its timers fire a millisecond late), so it keeps a whole core busy that the server under test
 * then lacks. Here the process sleeps in epoll until an answer arrives or a timerfd set to the
 * next intended send time (nanoseconds, 1 ns timer slack) fires.
 *
 * Same method: each keep-alive connection owns a fixed schedule of intended send times
 * (rate / connections per second, the connections staggered); its next request goes at its
 * intended time, or as soon as the answer before it is in when that answer is late; every latency
 * runs from the request's INTENDED send time to the end of its answer; answers are framed by
 * Content-Length (a 304 has no body; chunked answers are refused).
 *
 * Usage: open-loop PORT RATE DURATION_S CONNECTIONS REQUEST_FILE
 * Connects to 127.0.0.1 only. Prints one JSON line with the figures (see OpenLoopRun) and exits
 * 0, or a message on stderr and exit 1.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define DRAIN_NS 5000000000LL
#define TIMER_TAG UINT64_MAX

typedef struct {
  int fd;
  int64_t next;     /* intended send time of the next request */
  int64_t inflight; /* intended send time of the request in flight, or -1 */
  int64_t sent_at;
  int on_time;      /* sent on an idle connection: its lateness is the generator's */
  char *buf;
  size_t len, cap;
} conn_t;

static const char *request;
static size_t request_len;
static int64_t interval, t_end, measured_from;
static int64_t *lat, *lag;
static size_t n_lat, n_lag, cap_lat;
static long bad;

static void die(const char *what) {
  fprintf(stderr, "open-loop: %s: %s\n", what, errno ? strerror(errno) : "failed");
  exit(1);
}

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void push(int64_t **a, size_t *n, int64_t v) {
  if (*n == cap_lat) return; /* sized for every intended request plus the drain: never reached */
  (*a)[(*n)++] = v;
}

static void send_request(conn_t *c, int64_t t, int on_time) {
  c->inflight = c->next;
  c->sent_at = t;
  c->on_time = on_time;
  c->next += interval;
  size_t off = 0;
  while (off < request_len) {
    ssize_t w = write(c->fd, request + off, request_len - off);
    if (w < 0) {
      if (errno == EINTR) continue;
      die("write");
    }
    off += (size_t)w;
  }
}

/* Bytes of the complete answer at the start of buf, 0 when it is not all in yet; sets *status. */
static size_t complete_answer(const char *buf, size_t len, int *status) {
  const char *end = memmem(buf, len, "\r\n\r\n", 4);
  if (!end) return 0;
  size_t head = (size_t)(end - buf);
  if (head < 12) die("short status line");
  *status = (buf[9] - '0') * 100 + (buf[10] - '0') * 10 + (buf[11] - '0');
  long body = 0;
  for (size_t i = 0; i + 2 < head; i++) {
    if (buf[i] != '\r' || buf[i + 1] != '\n') continue;
    const char *h = buf + i + 2;
    size_t rest = head - (i + 2);
    if (rest >= 26 && strncasecmp(h, "transfer-encoding: chunked", 26) == 0) {
      errno = 0;
      die("chunked answers are not supported by the open-loop generator");
    }
    if (rest >= 15 && strncasecmp(h, "content-length:", 15) == 0) body = strtol(h + 15, NULL, 10);
  }
  if (*status == 304 || *status == 204 || (*status >= 100 && *status < 200)) body = 0;
  size_t bytes = head + 4 + (size_t)body;
  return len >= bytes ? bytes : 0;
}

static int cmp64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* The q-quantile in ms, by the nearest-rank rule of bench/lib/measure.ts (percentile). */
static double quantile_ms(int64_t *a, size_t n, double q) {
  if (n == 0) return 0;
  double r = q * (double)n;
  size_t rank = (size_t)r;
  if ((double)rank < r) rank++; /* ceil */
  if (rank < 1) rank = 1;
  if (rank > n) rank = n;
  return (double)a[rank - 1] / 1e6;
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: open-loop PORT RATE DURATION_S CONNECTIONS REQUEST_FILE\n");
    return 1;
  }
  int port = atoi(argv[1]);
  double rate = atof(argv[2]), duration_s = atof(argv[3]);
  int nconn = atoi(argv[4]);
  if (port <= 0 || port > 65535 || rate <= 0 || duration_s <= 0 || nconn <= 0 || nconn > 4096) {
    fprintf(stderr, "open-loop: bad arguments\n");
    return 1;
  }
  FILE *f = fopen(argv[5], "rb");
  if (!f) die("request file");
  static char reqbuf[65536];
  request_len = fread(reqbuf, 1, sizeof reqbuf, f);
  fclose(f);
  if (request_len == 0 || request_len == sizeof reqbuf) die("request file size");
  request = reqbuf;

  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  /* OPEN_LOOP_REALTIME=1: the lowest real-time priority, when allowed, so the generator wakes at
   * its intended times instead of after another process's time slice. Off by default: on 2 cores
   * it then preempts the server on every answer (loopback delivery runs in the sender's system
   * call), which raised the server's median latency more than it cut the generator's lateness. */
  struct sched_param sp = {.sched_priority = 1};
  const char *rt = getenv("OPEN_LOOP_REALTIME");
  int realtime = rt && strcmp(rt, "1") == 0 && sched_setscheduler(0, SCHED_FIFO, &sp) == 0;
  interval = (int64_t)(1e9 * nconn / rate);
  int64_t warmup = (int64_t)(duration_s * 0.2e9);
  if (warmup > 1000000000LL) warmup = 1000000000LL;
  cap_lat = (size_t)(rate * (duration_s + 1.0 + DRAIN_NS / 1e9)) + (size_t)nconn * 4 + 16;
  lat = malloc(cap_lat * sizeof *lat);
  lag = malloc(cap_lat * sizeof *lag);
  conn_t *conns = calloc((size_t)nconn, sizeof *conns);
  if (!lat || !lag || !conns) die("memory");

  int ep = epoll_create1(0);
  int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
  if (ep < 0 || tfd < 0) die("epoll/timerfd");
  struct epoll_event ev = {.events = EPOLLIN, .data.u64 = TIMER_TAG};
  if (epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev) < 0) die("epoll_ctl timer");

  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  for (int i = 0; i < nconn; i++) {
    conn_t *c = &conns[i];
    c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&addr, sizeof addr) < 0) die("connect");
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    c->cap = 1 << 16;
    c->buf = malloc(c->cap);
    if (!c->buf) die("memory");
    c->inflight = -1;
    struct epoll_event cev = {.events = EPOLLIN | EPOLLRDHUP, .data.u64 = (uint64_t)i};
    if (epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &cev) < 0) die("epoll_ctl");
  }

  int64_t t0 = now_ns() + 1000000;
  measured_from = t0 + warmup;
  t_end = measured_from + (int64_t)(duration_s * 1e9);
  int64_t deadline = t_end + DRAIN_NS;
  for (int i = 0; i < nconn; i++) conns[i].next = t0 + (int64_t)i * interval / nconn;

  struct epoll_event events[256];
  int64_t armed = -1;
  for (;;) {
    int64_t t = now_ns();
    int busy = 0;
    int64_t soonest = INT64_MAX;
    for (int i = 0; i < nconn; i++) {
      conn_t *c = &conns[i];
      if (c->inflight < 0 && c->next <= t && c->next < t_end) send_request(c, t, 1);
      if (c->inflight >= 0) busy = 1;
      else if (c->next < t_end && c->next < soonest) soonest = c->next;
    }
    if (t >= deadline || (!busy && soonest == INT64_MAX)) break;
    /* Armed earlier than the soonest is fine (one spare wake-up); re-arming costs a system call. */
    if (soonest != INT64_MAX && (armed < 0 || soonest < armed)) {
      struct itimerspec its = {0};
      its.it_value.tv_sec = soonest / 1000000000LL;
      its.it_value.tv_nsec = soonest % 1000000000LL;
      if (timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL) < 0) die("timerfd_settime");
      armed = soonest;
    }
    int timeout_ms = (int)((deadline - t) / 1000000) + 1;
    int n = epoll_wait(ep, events, 256, timeout_ms);
    if (n < 0) {
      if (errno == EINTR) continue;
      die("epoll_wait");
    }
    for (int k = 0; k < n; k++) {
      if (events[k].data.u64 == TIMER_TAG) {
        uint64_t expirations;
        if (read(tfd, &expirations, sizeof expirations) < 0 && errno != EAGAIN) die("timerfd read");
        armed = -1;
        continue;
      }
      conn_t *c = &conns[events[k].data.u64];
      for (;;) {
        if (c->len == c->cap) {
          c->cap *= 2;
          c->buf = realloc(c->buf, c->cap);
          if (!c->buf) die("memory");
        }
        ssize_t r = recv(c->fd, c->buf + c->len, c->cap - c->len, MSG_DONTWAIT);
        if (r < 0) {
          if (errno == EINTR) continue;
          if (errno == EAGAIN || errno == EWOULDBLOCK) break;
          die("recv");
        }
        if (r == 0) {
          if (c->inflight >= 0) {
            errno = 0;
            die("the server closed a connection with a request in flight");
          }
          break;
        }
        c->len += (size_t)r;
        int status = 0;
        size_t bytes = complete_answer(c->buf, c->len, &status);
        if (!bytes) continue;
        int64_t at = now_ns();
        if (bytes != c->len) {
          errno = 0;
          die("bytes after an answer with one request in flight");
        }
        c->len = 0;
        if (c->inflight >= measured_from) {
          push(&lat, &n_lat, at - c->inflight);
          if (c->on_time) push(&lag, &n_lag, c->sent_at - c->inflight);
          if (status < 200 || status >= 400) bad++;
        }
        c->inflight = -1;
        /* Due already: this request waited for the answer before it (the server's delay). */
        if (c->next <= at && c->next < t_end) send_request(c, at, 0);
        break;
      }
    }
  }

  long unanswered = 0;
  for (int i = 0; i < nconn; i++) {
    conn_t *c = &conns[i];
    if (c->inflight >= 0) unanswered++;
    if (c->next < t_end) unanswered += (long)((t_end - c->next + interval - 1) / interval);
    close(c->fd);
  }
  qsort(lat, n_lat, sizeof *lat, cmp64);
  qsort(lag, n_lag, sizeof *lag, cmp64);
  printf("{\"target_rps\":%.0f,\"achieved_rps\":%.0f,\"requests\":%zu,"
         "\"p50_ms\":%.3f,\"p90_ms\":%.3f,\"p99_ms\":%.3f,\"p999_ms\":%.3f,\"max_ms\":%.3f,"
         "\"send_lag_p99_ms\":%.3f,\"bad_status\":%ld,\"unanswered\":%ld,\"connections\":%d,\"duration_s\":%g,\"scheduling\":\"%s\"}\n",
         rate, (double)n_lat / duration_s, n_lat,
         quantile_ms(lat, n_lat, 0.5), quantile_ms(lat, n_lat, 0.9), quantile_ms(lat, n_lat, 0.99),
         quantile_ms(lat, n_lat, 0.999), n_lat ? (double)lat[n_lat - 1] / 1e6 : 0,
         quantile_ms(lag, n_lag, 0.99), bad, unanswered, nconn, duration_s, realtime ? "SCHED_FIFO 1" : "normal");
  return 0;
}
