/*
 * paddock-init: the sandbox agent of Paddock's init-based drivers (bwrap, gVisor, Docker). One static binary, five modes.
 *
 *   paddock-init launch SOCKET UID GID LOGFILE PIDFILE [--join FILE]... [--seccomp] [--own-mounts OWN NSFILE DEV:INO] -- BWRAP ARGS...
 *     Runs as root on the host. Binds and listens on SOCKET, joins the sandbox's cgroups (writes "0" to
 *     each FILE), waits for one byte 'g' on stdin (the host made the workspace meanwhile), double-forks
 *     and setsid()s (so the sandbox outlives the host process), writes the pid of the process that
 *     becomes bwrap to PIDFILE, with --own-mounts moves to a copy of the launch mount namespace NSFILE
 *     (one of "mountns", identified by DEV:INO) with OWN attached in it (see own_mounts), drops to
 *     UID/GID (no groups, no_new_privs) and execs bwrap with the
 *     listening socket as fd 3 and the write end of a readiness pipe as fd 4; with --seccomp also the
 *     sandbox's seccomp filter (paddock-seccomp.h) as fd 5, for bwrap's "--seccomp 5". Exit status 0 once
 *     init reported on that pipe that it serves; otherwise 1 with the reason on stderr. So a caller never
 *     pings or polls: when the launcher is done, the sandbox answers.
 *
 *   paddock-init mountns ALL
 *     Runs as root on the host, as long as the bwrap driver does: makes the launch mount namespace (see
 *     mountns_main), writes "ready" on stdout, and exits when stdin closes.
 *
 *   paddock-init seccomp
 *     Writes that filter (a BPF program, as bwrap --seccomp reads it) to stdout.
 *
 *   paddock-init connect SOCKET|tcp:PORT WAIT_MS
 *     Runs inside the sandbox as an ordinary command: relays stdin to a unix socket there (or to 127.0.0.1:PORT of
 *     the sandbox's loopback) and its answer to stdout (how the host reaches in-sandbox services such as the browser
 *     agent and forwarded ports; see connect_relay).
 *
 *   paddock-init serve [4] [--listen SOCKET] [--egress SOCKET]
 *     Runs inside the sandbox as pid 1 of its pid namespace (bwrap --as-pid-1; the entrypoint of a Docker or
 *     gVisor container). Writes '+' to fd 4 and closes it once set up, then accepts on fd 3 (or on SOCKET,
 *     which it binds itself where no launcher hands over a bound socket), runs one command per connection, keeps
 *     background processes with a ring buffer of their output and reaps every orphan. When it exits the
 *     kernel kills everything in the pid namespace. With --egress it first starts the egress forwarder:
 *     127.0.0.1:3128 of the sandbox's own network namespace, relayed to the egress proxy at SOCKET.
 *
 *     Quiesce (with --listen only; gVisor cannot checkpoint a sandbox that holds a host socket open): SIGUSR2 from
 *     outside the sandbox (si_pid 0, e.g. runsc kill ID USR2) ends every host connection (commands running through
 *     them are killed; background processes go on), stops the egress forwarder with its relays and closes the
 *     listening socket, in that order, then creates SOCKET.quiesced: once that file exists nothing of the host is
 *     open any more.
 *     SIGUSR1 from outside removes SOCKET.quiesced, binds SOCKET again and restarts the forwarder: after a
 *     restore, or after a checkpoint that left the sandbox running or failed. Signals from inside are ignored.
 *
 * Wire format, both directions: frames of [type u8][length u32 big endian][payload]. Every length is
 * bounded; anything malformed closes the connection. Only peers outside the sandbox's pid namespace
 * (SO_PEERCRED pid 0; under gVisor, a host peer shows as init's own pid) are served.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "paddock-seccomp.h"

#define MAX_FRAME (1u << 20)      /* largest frame payload accepted */
#define MAX_ARGS 4096             /* argv and env entries per request */
#define CHUNK 65536               /* largest output chunk sent */
#define OUT_CAP (512u * 1024)     /* stop reading a command's output while this much is unsent */
#define STDIN_CAP (512u * 1024)   /* stop reading stdin frames while this much is unwritten */
#define RING_SIZE (1u << 20)      /* kept output of one background process */
#define MAX_BG 64                 /* background processes remembered */
#define MAX_CONN 256              /* concurrent connections */
#define MAX_ARGV_KEEP 8192        /* encoded argv kept for listing a background process */
/* fds the launcher hands through bwrap to init; BwrapArgs.java passes READY_FD to "serve" */
#define LISTEN_FD 3
#define READY_FD 4
#define SECCOMP_FD 5  /* BwrapArgs.SECCOMP_FD */

extern char **environ;

/* ---------- small helpers ---------- */

struct buf { unsigned char *d; size_t len, cap; };

static int buf_reserve(struct buf *b, size_t extra) {
    if (b->len + extra <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + extra) cap *= 2;
    unsigned char *d = realloc(b->d, cap);
    if (!d) return -1;
    b->d = d; b->cap = cap;
    return 0;
}
static int buf_put(struct buf *b, const void *p, size_t n) {
    if (buf_reserve(b, n)) return -1;
    memcpy(b->d + b->len, p, n); b->len += n;
    return 0;
}
static void buf_consume(struct buf *b, size_t n) {
    memmove(b->d, b->d + n, b->len - n); b->len -= n;
}
static void buf_free(struct buf *b) { free(b->d); b->d = NULL; b->len = b->cap = 0; }

static void put_u32(unsigned char *p, uint32_t v) { p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v; }
static uint32_t get_u32(const unsigned char *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }
static void put_u64(unsigned char *p, uint64_t v) { put_u32(p, v >> 32); put_u32(p + 4, (uint32_t)v); }

static int frame(struct buf *b, unsigned char type, const void *p, size_t n) {
    unsigned char h[5]; h[0] = type; put_u32(h + 1, (uint32_t)n);
    if (buf_put(b, h, 5)) return -1;
    return n ? buf_put(b, p, n) : 0;
}

static long long now_ms(int clock) {
    struct timespec ts; clock_gettime(clock, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void set_nonblock(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

static void die(const char *fmt, ...) {
    va_list ap; va_start(ap, fmt);
    fputs("paddock-init: ", stderr); vfprintf(stderr, fmt, ap); fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

/* ---------- request decoding (strict) ---------- */

struct reader { const unsigned char *p; size_t left; int bad; };

static uint32_t rd_u32(struct reader *r) {
    if (r->bad || r->left < 4) { r->bad = 1; return 0; }
    uint32_t v = get_u32(r->p); r->p += 4; r->left -= 4; return v;
}
static uint64_t rd_u64(struct reader *r) { uint64_t hi = rd_u32(r); return hi << 32 | rd_u32(r); }

/* A length-prefixed string without NUL bytes, returned NUL terminated (malloc'd). */
static char *rd_str(struct reader *r) {
    uint32_t n = rd_u32(r);
    if (r->bad || n > r->left || memchr(r->p, 0, n)) { r->bad = 1; return NULL; }
    char *s = malloc(n + 1);
    if (!s) { r->bad = 1; return NULL; }
    memcpy(s, r->p, n); s[n] = 0; r->p += n; r->left -= n;
    return s;
}

struct cmd {
    uint32_t timeout_ms;
    char *cwd;
    char **argv; uint32_t argc;
    char **env; uint32_t envc;
    const unsigned char *argv_raw; size_t argv_raw_len; /* encoded argv, for listing */
};

static void cmd_free(struct cmd *c) {
    free(c->cwd);
    for (uint32_t i = 0; c->argv && i < c->argc; i++) free(c->argv[i]);
    for (uint32_t i = 0; c->env && i < c->envc; i++) free(c->env[i]);
    free(c->argv); free(c->env);
    memset(c, 0, sizeof *c);
}

/* payload: timeout_ms u32, cwd str, argc u32, argv str*, envc u32, env str* ("KEY=VALUE") */
static int cmd_parse(const unsigned char *p, size_t n, struct cmd *c) {
    struct reader r = { p, n, 0 };
    memset(c, 0, sizeof *c);
    c->timeout_ms = rd_u32(&r);
    c->cwd = rd_str(&r);
    const unsigned char *argv_start = r.p;
    c->argc = rd_u32(&r);
    if (r.bad || c->argc == 0 || c->argc > MAX_ARGS || !c->cwd || c->cwd[0] != '/') goto bad;
    c->argv = calloc(c->argc + 1, sizeof(char *));
    if (!c->argv) goto bad;
    for (uint32_t i = 0; i < c->argc; i++) if (!(c->argv[i] = rd_str(&r))) goto bad;
    if (c->argv[0][0] == 0) goto bad;
    c->argv_raw = argv_start; c->argv_raw_len = (size_t)(r.p - argv_start);
    c->envc = rd_u32(&r);
    if (r.bad || c->envc > MAX_ARGS) goto bad;
    c->env = calloc(c->envc + 1, sizeof(char *));
    if (!c->env) goto bad;
    for (uint32_t i = 0; i < c->envc; i++) {
        if (!(c->env[i] = rd_str(&r))) goto bad;
        char *eq = strchr(c->env[i], '=');
        if (!eq || eq == c->env[i]) goto bad;
    }
    if (r.bad || r.left != 0) goto bad;
    return 0;
bad:
    cmd_free(c);
    return -1;
}

/* ---------- processes ---------- */

/*
 * Starts one command in its own session (so a kill of its process group reaches everything it started).
 * fds in/out/err become its stdin/stdout/stderr; its environment is init's with the request's entries on top.
 *
 * The child is a clone sharing init's memory (CLONE_VM) on a stack of its own, and init waits until it has
 * exec'd or exited (CLONE_VFORK), as posix_spawn does: no page tables are copied and no page is faulted in
 * copy-on-write, which on a virtual machine is most of what a fork costs (several milliseconds per command).
 * So the child writes nothing init relies on: the environment is built here and the one global it touches,
 * environ (for execvp's search of PATH), is put back below once the child is gone from init's memory.
 */
struct spawn_req { struct cmd *c; int in, out, err, ctty; char **envp; };

static int spawn_child(void *arg) {
    struct spawn_req *s = arg;
    sigset_t none; sigemptyset(&none); sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    setsid();
    if (dup2(s->in, 0) < 0 || dup2(s->out, 1) < 0 || dup2(s->err, 2) < 0) _exit(127);
    /* a terminal session: the pty becomes the controlling terminal of the new session (job control, ^C) */
    if (s->ctty && ioctl(0, TIOCSCTTY, 0) < 0) { dprintf(2, "paddock: cannot take the terminal: %s\n", strerror(errno)); _exit(127); }
    close_range(3, ~0u, 0);
    if (chdir(s->c->cwd) != 0) {
        dprintf(2, "paddock: cannot change directory to %s: %s\n", s->c->cwd, strerror(errno));
        _exit(127);
    }
    environ = s->envp;
    execvp(s->c->argv[0], s->c->argv);
    dprintf(2, "paddock: cannot run %s: %s\n", s->c->argv[0], strerror(errno));
    _exit(errno == ENOENT ? 127 : 126);
}

/* init's environment with the request's "K=V" entries set over it, in putenv's order (a later entry wins). */
static char **merged_env(struct cmd *c) {
    size_t n = 0;
    while (environ && environ[n]) n++;
    char **e = malloc((n + c->envc + 1) * sizeof *e);
    if (!e) return NULL;
    for (size_t i = 0; i < n; i++) e[i] = environ[i];
    for (uint32_t k = 0; k < c->envc; k++) {
        size_t key = (size_t)(strchr(c->env[k], '=') - c->env[k]) + 1; /* cmd_parse checked the '=' */
        size_t i = 0;
        while (i < n && strncmp(e[i], c->env[k], key)) i++;
        e[i] = c->env[k];
        if (i == n) n++;
    }
    e[n] = NULL;
    return e;
}

#define SPAWN_STACK (512u * 1024) /* execvp's search and its script fallback keep argv-sized arrays on the stack */

static pid_t spawn(struct cmd *c, int in, int out, int err, int ctty) {
    static unsigned char *stack;
    if (!stack) {
        /* one stack for every child (init waits for each), with a guard page below it */
        void *m = mmap(NULL, SPAWN_STACK + 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
        if (m == MAP_FAILED) return -1;
        if (mprotect(m, 4096, PROT_NONE)) { munmap(m, SPAWN_STACK + 4096); return -1; }
        stack = m;
    }
    struct spawn_req req = { c, in, out, err, ctty, merged_env(c) };
    if (!req.envp) return -1;
    char **own = environ;
    pid_t pid = clone(spawn_child, stack + 4096 + SPAWN_STACK, CLONE_VM | CLONE_VFORK | SIGCHLD, &req);
    environ = own;
    free(req.envp);
    return pid;
}

static void encode_exit(unsigned char *p, int status, int timed_out) {
    int code, sig = 0;
    if (WIFSIGNALED(status)) { sig = WTERMSIG(status); code = 128 + sig; } else code = WEXITSTATUS(status);
    put_u32(p, (uint32_t)code); put_u32(p + 4, (uint32_t)sig); p[8] = (unsigned char)timed_out;
}

struct bg {
    int used;
    pid_t pid;
    int fd;                   /* read end of its combined stdout+stderr, -1 at EOF */
    int running, status;
    long long started_ms;
    unsigned char *ring;      /* last RING_SIZE bytes of output */
    uint64_t total;           /* bytes produced so far */
    unsigned char *argv; size_t argv_len;
};
static struct bg bgs[MAX_BG];

enum { C_REQUEST, C_EXEC, C_FLUSH };

struct conn {
    int fd;
    int state;
    struct buf in, out;
    pid_t pid;
    int in_fd, out_fd, err_fd;    /* child's pipes, -1 when closed */
    int pty_fd;                   /* a terminal session's pty master (for resizes), else -1 */
    struct buf stdin_buf;
    int stdin_eof;
    int exited, status, timed_out;
    long long deadline;           /* monotonic ms, 0 = none */
};
static struct conn *conns[MAX_CONN];
/* what a quiesced init needs to serve again (see the header): the path it binds, the egress forwarder's loopback
 * socket (kept open meanwhile) and upstream, the forwarder's pid (also its process group) and whether fd 3 listens */
static const char *listen_path;
static const char *egress_upstream;
static int egress_fd = -1;
static pid_t forwarder;
static int listening = 1;
static int listen_at(const char *path);

static void close_fd(int *fd) { if (*fd >= 0) close(*fd); *fd = -1; }

static void conn_close(int i) {
    struct conn *c = conns[i];
    if (c->state == C_EXEC && !c->exited && c->pid > 0) { kill(-c->pid, SIGKILL); kill(c->pid, SIGKILL); }
    close(c->fd);
    close_fd(&c->in_fd); close_fd(&c->out_fd); close_fd(&c->err_fd); close_fd(&c->pty_fd);
    buf_free(&c->in); buf_free(&c->out); buf_free(&c->stdin_buf);
    free(c);
    conns[i] = NULL;
}

static void fail(struct conn *c, const char *msg) {
    frame(&c->out, 'F', msg, strlen(msg));
    c->state = C_FLUSH;
}

static int pipe2cx(int p[2]) { return pipe2(p, O_CLOEXEC); }

static void start_exec(struct conn *c, struct cmd *cmd) {
    int pin[2], pout[2], perr[2];
    if (pipe2cx(pin)) { fail(c, "cannot create pipes"); return; }
    if (pipe2cx(pout)) { close(pin[0]); close(pin[1]); fail(c, "cannot create pipes"); return; }
    if (pipe2cx(perr)) { close(pin[0]); close(pin[1]); close(pout[0]); close(pout[1]); fail(c, "cannot create pipes"); return; }
    pid_t pid = spawn(cmd, pin[0], pout[1], perr[1], 0);
    close(pin[0]); close(pout[1]); close(perr[1]);
    if (pid < 0) { close(pin[1]); close(pout[0]); close(perr[0]); fail(c, "cannot fork"); return; }
    c->pid = pid; c->in_fd = pin[1]; c->out_fd = pout[0]; c->err_fd = perr[0];
    set_nonblock(c->in_fd); set_nonblock(c->out_fd); set_nonblock(c->err_fd);
    c->deadline = cmd->timeout_ms ? now_ms(CLOCK_MONOTONIC) + cmd->timeout_ms : 0;
    c->state = C_EXEC;
    unsigned char p[4]; put_u32(p, (uint32_t)pid);
    frame(&c->out, 'S', p, 4); /* started, with its pid inside the sandbox */
}

/*
 * A terminal session (request 'Y'): the command runs on a new pty, allocated here as the sandbox's user inside its
 * namespaces (the sandbox's own devpts), as its controlling terminal. The master's output goes out as 'O' frames,
 * 'I' frames are typed input, 'W' resizes. payload: rows u32, cols u32, then a command as for 'E'.
 */
static void start_pty(struct conn *c, struct cmd *cmd, uint32_t rows, uint32_t cols) {
    int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (m < 0) { fail(c, "cannot allocate a terminal (no /dev/ptmx in this sandbox?)"); return; }
    char name[64];
    int s = -1;
    if (grantpt(m) == 0 && unlockpt(m) == 0 && ptsname_r(m, name, sizeof name) == 0) s = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (s < 0) { close(m); fail(c, "cannot open the terminal's pty"); return; }
    struct winsize ws = { .ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols };
    ioctl(s, TIOCSWINSZ, &ws);
    int in = fcntl(m, F_DUPFD_CLOEXEC, 0), ctl = fcntl(m, F_DUPFD_CLOEXEC, 0);
    if (in < 0 || ctl < 0) { if (in >= 0) close(in); if (ctl >= 0) close(ctl); close(m); close(s); fail(c, "out of file descriptors"); return; }
    pid_t pid = spawn(cmd, s, s, s, 1);
    close(s);
    if (pid < 0) { close(in); close(ctl); close(m); fail(c, "cannot fork"); return; }
    c->pid = pid; c->in_fd = in; c->out_fd = m; c->err_fd = -1; c->pty_fd = ctl;
    set_nonblock(c->in_fd); set_nonblock(c->out_fd);
    c->deadline = cmd->timeout_ms ? now_ms(CLOCK_MONOTONIC) + cmd->timeout_ms : 0;
    c->state = C_EXEC;
    unsigned char p[4]; put_u32(p, (uint32_t)pid);
    frame(&c->out, 'S', p, 4);
}

static int valid_size(uint32_t rows, uint32_t cols) { return rows >= 1 && rows <= 1000 && cols >= 1 && cols <= 1000; }

static struct bg *bg_slot(void) {
    struct bg *oldest = NULL;
    for (int i = 0; i < MAX_BG; i++) {
        if (!bgs[i].used) return &bgs[i];
        if (!bgs[i].running && bgs[i].fd < 0 && (!oldest || bgs[i].started_ms < oldest->started_ms)) oldest = &bgs[i];
    }
    if (oldest) { free(oldest->ring); free(oldest->argv); memset(oldest, 0, sizeof *oldest); }
    return oldest;
}

static void start_bg(struct conn *c, struct cmd *cmd) {
    struct bg *b = bg_slot();
    if (!b) { fail(c, "too many background processes are still running"); return; }
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC), p[2];
    if (devnull < 0 || pipe2cx(p)) { if (devnull >= 0) close(devnull); fail(c, "cannot create pipes"); return; }
    unsigned char *ring = malloc(RING_SIZE);
    size_t alen = cmd->argv_raw_len <= MAX_ARGV_KEEP ? cmd->argv_raw_len : 0;
    unsigned char *argv = malloc(alen ? alen : 1);
    if (!ring || !argv) { free(ring); free(argv); close(devnull); close(p[0]); close(p[1]); fail(c, "out of memory"); return; }
    pid_t pid = spawn(cmd, devnull, p[1], p[1], 0);
    close(devnull); close(p[1]);
    if (pid < 0) { free(ring); free(argv); close(p[0]); fail(c, "cannot fork"); return; }
    set_nonblock(p[0]);
    memcpy(argv, cmd->argv_raw, alen);
    *b = (struct bg){ .used = 1, .pid = pid, .fd = p[0], .running = 1, .started_ms = now_ms(CLOCK_REALTIME),
                      .ring = ring, .argv = argv, .argv_len = alen };
    unsigned char out[4]; put_u32(out, (uint32_t)pid);
    frame(&c->out, 'P', out, 4);
    c->state = C_FLUSH;
}

static struct bg *bg_find(uint32_t pid) {
    for (int i = 0; i < MAX_BG; i++) if (bgs[i].used && (uint32_t)bgs[i].pid == pid) return &bgs[i];
    return NULL;
}

static void bg_read(struct bg *b) {
    unsigned char tmp[CHUNK];
    for (;;) {
        ssize_t n = read(b->fd, tmp, sizeof tmp);
        if (n > 0) {
            for (ssize_t i = 0; i < n; i++) b->ring[(b->total + i) % RING_SIZE] = tmp[i];
            b->total += n;
            continue;
        }
        if (n == 0 || (errno != EAGAIN && errno != EINTR)) close_fd(&b->fd);
        if (n < 0 && errno == EINTR) continue;
        return;
    }
}

static void list_bg(struct conn *c) {
    struct buf b = {0};
    unsigned char h[4]; uint32_t count = 0;
    for (int i = 0; i < MAX_BG; i++) count += bgs[i].used;
    put_u32(h, count); buf_put(&b, h, 4);
    for (int i = 0; i < MAX_BG; i++) {
        struct bg *g = &bgs[i];
        if (!g->used) continue;
        unsigned char e[4 + 1 + 9 + 8 + 8 + 4];
        put_u32(e, (uint32_t)g->pid);
        e[4] = (unsigned char)g->running;
        encode_exit(e + 5, g->running ? 0 : g->status, 0);
        put_u64(e + 14, (uint64_t)g->started_ms);
        put_u64(e + 22, g->total);
        put_u32(e + 30, (uint32_t)g->argv_len);
        buf_put(&b, e, sizeof e);
        buf_put(&b, g->argv, g->argv_len);
    }
    frame(&c->out, 'L', b.d, b.len);
    buf_free(&b);
    c->state = C_FLUSH;
}

/* payload: pid u32, offset u64, max u32. Reply: first offset actually returned u64, then the bytes. */
static void logs_bg(struct conn *c, struct reader *r) {
    uint32_t pid = rd_u32(r); uint64_t off = rd_u64(r); uint32_t max = rd_u32(r);
    if (r->bad || r->left) { fail(c, "malformed logs request"); return; }
    struct bg *g = bg_find(pid);
    if (!g) { fail(c, "no such background process"); return; }
    if (max > RING_SIZE - 64) max = RING_SIZE - 64;
    uint64_t first = g->total > RING_SIZE ? g->total - RING_SIZE : 0;
    if (off < first) off = first;
    if (off > g->total) off = g->total;
    uint64_t n = g->total - off; if (n > max) n = max;
    unsigned char *p = malloc(8 + n);
    if (!p) { fail(c, "out of memory"); return; }
    put_u64(p, off);
    for (uint64_t i = 0; i < n; i++) p[8 + i] = g->ring[(off + i) % RING_SIZE];
    frame(&c->out, 'G', p, 8 + n);
    free(p);
    c->state = C_FLUSH;
}

static void signal_bg(struct conn *c, struct reader *r) {
    uint32_t pid = rd_u32(r), sig = rd_u32(r);
    if (r->bad || r->left || sig < 1 || sig > 64) { fail(c, "malformed signal request"); return; }
    struct bg *g = bg_find(pid);
    if (!g) { fail(c, "no such background process"); return; }
    if (g->running) { kill(-g->pid, (int)sig); kill(g->pid, (int)sig); }
    frame(&c->out, 'K', NULL, 0);
    c->state = C_FLUSH;
}

/* One complete request frame arrived on a fresh connection. */
static void handle_request(struct conn *c, unsigned char type, const unsigned char *p, size_t n) {
    struct reader r = { p, n, 0 };
    struct cmd cmd;
    switch (type) {
    case 'E': case 'B':
        if (cmd_parse(p, n, &cmd)) { fail(c, "malformed command request"); return; }
        if (type == 'E') start_exec(c, &cmd); else start_bg(c, &cmd);
        cmd_free(&cmd);
        return;
    case 'Y': {
        uint32_t rows = rd_u32(&r), cols = rd_u32(&r);
        if (r.bad || !valid_size(rows, cols) || cmd_parse(r.p, r.left, &cmd)) { fail(c, "malformed terminal request"); return; }
        start_pty(c, &cmd, rows, cols);
        cmd_free(&cmd);
        return;
    }
    case 'Q': {
        unsigned char out[4]; put_u32(out, (uint32_t)getpid());
        if (n) { fail(c, "malformed ping"); return; }
        frame(&c->out, 'q', out, 4); c->state = C_FLUSH; return;
    }
    case 'L': if (n) fail(c, "malformed list request"); else list_bg(c); return;
    case 'G': logs_bg(c, &r); return;
    case 'K': signal_bg(c, &r); return;
    default: fail(c, "unknown request type"); return;
    }
}

/* A frame on a connection whose command runs: stdin data, stdin end, or kill. */
static int handle_exec_frame(struct conn *c, unsigned char type, const unsigned char *p, size_t n) {
    switch (type) {
    case 'I':
        if (c->stdin_eof) return -1;
        if (c->in_fd >= 0 && buf_put(&c->stdin_buf, p, n)) return -1;
        return 0;
    case 'C': if (n) return -1; c->stdin_eof = 1; return 0;
    case 'X': if (n) return -1; if (!c->exited) { kill(-c->pid, SIGKILL); kill(c->pid, SIGKILL); } return 0;
    case 'W': {
        /* resize: rows u32, cols u32; the kernel sends SIGWINCH to the terminal's foreground process group */
        if (n != 8 || c->pty_fd < 0) return -1;
        uint32_t rows = get_u32(p), cols = get_u32(p + 4);
        if (!valid_size(rows, cols)) return -1;
        struct winsize ws = { .ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols };
        ioctl(c->pty_fd, TIOCSWINSZ, &ws);
        return 0;
    }
    default: return -1;
    }
}

/* Connections closed without an answer show in the sandbox's log (bounded: the log is a host file). */
static void note_drop(const char *why) {
    static int notes;
    if (notes < 20) { notes++; dprintf(2, "paddock-init: %s\n", why); }
}

/* A kill frame already queued in in[0..len) behind a request. */
static int kill_queued(const unsigned char *in, size_t len) {
    while (len >= 5) {
        uint32_t n = get_u32(in + 1);
        if (n > MAX_FRAME || len - 5 < n) return 0;
        if (in[0] == 'X') return 1;
        in += 5 + n;
        len -= 5 + (size_t)n;
    }
    return 0;
}

/* A command request whose caller gave up before init read it (init was frozen, say): the host has closed its end
 * or already asked for the kill. Starting it now would run a command the host reported as timed out, so it is not. */
static int cancelled(struct conn *c, unsigned char type, const unsigned char *rest, size_t rest_len) {
    if (type != 'E' && type != 'B' && type != 'Y') return 0;
    struct pollfd p = { .fd = c->fd, .events = 0 };
    return (poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR))) || kill_queued(rest, rest_len);
}

/* Parses complete frames from c->in. Returns -1 when the connection must be dropped. */
static int conn_frames(struct conn *c) {
    size_t pos = 0;
    while (c->in.len - pos >= 5) {
        unsigned char type = c->in.d[pos];
        uint32_t n = get_u32(c->in.d + pos + 1);
        if (n > MAX_FRAME) return -1;
        if (c->in.len - pos - 5 < n) break;
        const unsigned char *payload = c->in.d + pos + 5;
        pos += 5 + n;
        if (c->state == C_REQUEST && cancelled(c, type, c->in.d + pos, c->in.len - pos)) {
            note_drop("skipped a command cancelled before it started");
            return -1;
        }
        if (c->state == C_REQUEST) handle_request(c, type, payload, n);
        else if (c->state == C_EXEC) { if (handle_exec_frame(c, type, payload, n)) return -1; }
        /* C_FLUSH: the answer is out; late stdin or kill frames of a finished command are dropped */
    }
    buf_consume(&c->in, pos);
    return 0;
}

static void pump_output(struct conn *c, int *fd, unsigned char type, int drain) {
    unsigned char tmp[CHUNK];
    while (*fd >= 0 && (drain || c->out.len < OUT_CAP)) {
        ssize_t n = read(*fd, tmp, sizeof tmp);
        if (n > 0) { frame(&c->out, type, tmp, (size_t)n); continue; }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) return;
        close_fd(fd);
    }
}

static void finish_exec(struct conn *c) {
    pump_output(c, &c->out_fd, 'O', 1);
    pump_output(c, &c->err_fd, 'R', 1);
    close_fd(&c->out_fd); close_fd(&c->err_fd); close_fd(&c->in_fd); close_fd(&c->pty_fd);
    unsigned char p[9]; encode_exit(p, c->status, c->timed_out);
    frame(&c->out, 'T', p, 9);
    c->state = C_FLUSH;
}

static void reap(void) {
    int status; pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        for (int i = 0; i < MAX_CONN; i++) {
            struct conn *c = conns[i];
            if (c && c->state == C_EXEC && c->pid == pid) { c->exited = 1; c->status = status; finish_exec(c); }
        }
        struct bg *g = bg_find((uint32_t)pid);
        if (g && g->running) { g->running = 0; g->status = status; if (g->fd >= 0) bg_read(g); }
    }
}

static void accept_all(int lfd) {
    for (;;) {
        int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) return;
        struct ucred cred; socklen_t len = sizeof cred;
        /* A peer inside this pid namespace has a visible pid: only the host may drive init. The kernel shows the
         * host as pid 0; gVisor shows a peer on the host as the listener's own pid, which no other process here
         * can have (init never connects to itself). */
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) || (cred.pid != 0 && cred.pid != getpid())) {
            note_drop("refused a peer inside the sandbox");
            close(fd);
            continue;
        }
        int slot = -1;
        for (int i = 0; i < MAX_CONN; i++) if (!conns[i]) { slot = i; break; }
        struct conn *c = slot < 0 ? NULL : calloc(1, sizeof *c);
        if (!c) { note_drop("dropped a connection: too many open"); close(fd); continue; }
        c->fd = fd; c->in_fd = c->out_fd = c->err_fd = c->pty_fd = -1; c->state = C_REQUEST;
        conns[slot] = c;
    }
}

/* ---------- egress forwarder ----------
 * A sandbox with egress has no network but loopback. This child of init listens on 127.0.0.1:3128 of the
 * sandbox's own network namespace and relays each connection to the egress proxy's unix socket, connecting anew
 * per connection so a socket re-created by a restarted host is picked up. It decides nothing: the proxy outside
 * enforces the policy, so a process that kills or replaces the forwarder only loses its own way out.
 */
#define EGRESS_PORT 3128

static int fwd_write_all(int fd, const char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) { if (errno == EINTR) continue; return -1; }
        p += w; n -= (size_t)w;
    }
    return 0;
}

/* Copies both directions until both have ended; an end of one direction is passed on as a half-close. */
static void fwd_relay(int a, int b) {
    static char buf[65536];
    int open_a = 1, open_b = 1;
    while (open_a || open_b) {
        struct pollfd p[2] = {{a, (short)(open_a ? POLLIN : 0), 0}, {b, (short)(open_b ? POLLIN : 0), 0}};
        if (poll(p, 2, -1) < 0) { if (errno == EINTR) continue; return; }
        for (int i = 0; i < 2; i++) {
            int from = i ? b : a, to = i ? a : b;
            int *open = i ? &open_b : &open_a;
            if (!*open || !(p[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            ssize_t n = read(from, buf, sizeof buf);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) { *open = 0; shutdown(to, SHUT_WR); continue; }
            if (fwd_write_all(to, buf, (size_t)n)) return;
        }
    }
}

static void fwd_one(int client, const char *socket_path) {
    /* a response head and its body arrive as separate reads: without this, Nagle holds the second write back
     * until the client acknowledges the first, a delay on every request */
    int one = 1;
    setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", socket_path);
    int up = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (up < 0 || connect(up, (struct sockaddr *)&sa, sizeof sa) < 0) {
        static const char body[] = "paddock: the egress proxy is not reachable from this sandbox\n";
        char head[160];
        int n = snprintf(head, sizeof head, "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\n"
                         "Connection: close\r\n\r\n", sizeof body - 1);
        fwd_write_all(client, head, (size_t)n);
        fwd_write_all(client, body, sizeof body - 1);
        return;
    }
    fwd_relay(client, up);
}

/* Binds 127.0.0.1:3128 before init reports ready, so the first command finds the forwarder listening. */
static int egress_listen(void) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons(EGRESS_PORT);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) || listen(fd, 128)) { close(fd); return -1; }
    return fd;
}

/* The forwarder process: one short-lived child per connection, reaped by the kernel (SA_NOCLDWAIT). */
static void egress_forwarder(int lfd, const char *socket_path) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sa.sa_flags = SA_NOCLDWAIT;
    sigaction(SIGCHLD, &sa, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    prctl(PR_SET_NAME, "paddock-egress", 0, 0, 0);
    setpgid(0, 0); /* with its relays in one group, which a quiesce kills at once */
    for (;;) {
        int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0) {
            if (errno != EINTR && errno != ECONNABORTED) usleep(100000); /* out of fds or pids: back off, keep serving */
            continue;
        }
        pid_t pid = fork();
        if (pid == 0) {
            close(lfd);
            fwd_one(c, socket_path);
            _exit(0);
        }
        close(c);
    }
}

/* ---------- connect ----------
 * paddock-init connect SOCKET WAIT_MS: relays stdin to a unix socket inside the sandbox and the socket's answer
 * to stdout, waiting up to WAIT_MS for something to listen there. The host reaches in-sandbox services (the
 * browser agent) this way, through init's host-only channel, without starting an interpreter per call. Exit
 * status 0 once the socket ended its answer, 3 when nothing listened in time.
 * SOCKET "tcp:PORT" connects to 127.0.0.1:PORT of the sandbox's own network namespace instead (a port that the
 * host forwards: a server listening on the sandbox's loopback, reached without any change to its network).
 */
static int connect_relay(const char *path, const char *wait_arg) {
    char *end;
    long wait = strtol(wait_arg, &end, 10);
    if (*end || wait < 0 || wait > 600000) die("connect: WAIT_MS must be 0 to 600000");
    struct sockaddr_un sa;
    struct sockaddr_in sin;
    struct sockaddr *addr = (struct sockaddr *)&sa;
    socklen_t addr_len = sizeof sa;
    int family = AF_UNIX;
    memset(&sa, 0, sizeof sa);
    memset(&sin, 0, sizeof sin);
    if (!strncmp(path, "tcp:", 4)) {
        long port = strtol(path + 4, &end, 10);
        if (path[4] == 0 || *end || port < 1 || port > 65535) die("connect: tcp:PORT needs a port from 1 to 65535");
        sin.sin_family = AF_INET;
        sin.sin_port = htons((uint16_t)port);
        sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        addr = (struct sockaddr *)&sin; addr_len = sizeof sin; family = AF_INET;
    } else {
        sa.sun_family = AF_UNIX;
        if (strlen(path) >= sizeof sa.sun_path) die("connect: socket path too long");
        strcpy(sa.sun_path, path);
    }
    signal(SIGPIPE, SIG_IGN);
    long long deadline = now_ms(CLOCK_MONOTONIC) + wait;
    int s;
    for (;;) {
        s = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (s < 0) die("connect: socket: %s", strerror(errno));
        if (connect(s, addr, addr_len) == 0) break;
        int e = errno;
        close(s);
        if ((e != ENOENT && e != ECONNREFUSED) || now_ms(CLOCK_MONOTONIC) >= deadline) {
            fprintf(stderr, "paddock: nothing listens on %s%s: %s\n", family == AF_INET ? "127.0.0.1:" : "", family == AF_INET ? path + 4 : path, strerror(e));
            return 3;
        }
        usleep(20000);
    }
    if (family == AF_INET) { int one = 1; setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one); }
    static char buf[65536];
    int in_open = 1;
    for (;;) {
        struct pollfd p[2] = {{0, (short)(in_open ? POLLIN : 0), 0}, {s, POLLIN, 0}};
        if (poll(p, 2, -1) < 0) { if (errno == EINTR) continue; return 1; }
        if (in_open && (p[0].revents & (POLLIN | POLLHUP | POLLERR))) {
            ssize_t n = read(0, buf, sizeof buf);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) { in_open = 0; shutdown(s, SHUT_WR); }
            else if (fwd_write_all(s, buf, (size_t)n)) return 1;
        }
        if (p[1].revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t n = read(s, buf, sizeof buf);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return n == 0 ? 0 : 1; /* the answer is complete once the service ends it */
            if (fwd_write_all(1, buf, (size_t)n)) return 1;
        }
    }
}

static int start_forwarder(int ready_fd) {
    pid_t f = fork();
    if (f < 0) return -1;
    if (f == 0) {
        if (listening) close(LISTEN_FD);
        if (ready_fd >= 0) close(ready_fd);
        egress_forwarder(egress_fd, egress_upstream);
        _exit(1);
    }
    setpgid(f, f); /* also here: a quiesce right after the fork must find the group */
    forwarder = f;
    return 0;
}

/* SIGUSR2 (see the header): nothing of the host stays open once the listening socket is closed. */
static void quiesce(void) {
    if (!listening) return;
    if (forwarder > 0) {
        kill(-forwarder, SIGKILL);
        int st;
        waitpid(forwarder, &st, 0);
        /* the relays were the forwarder's children and are ours now; wait until each has let go of its socket */
        while (waitpid(-forwarder, &st, 0) > 0 || errno == EINTR) {}
        forwarder = 0;
    }
    for (int i = 0; i < MAX_CONN; i++) if (conns[i]) conn_close(i);
    close(LISTEN_FD);
    listening = 0;
    /* the report: under gVisor a host connect may still succeed for a while after the close */
    char mark[sizeof(((struct sockaddr_un *)0)->sun_path) + 16];
    snprintf(mark, sizeof mark, "%s.quiesced", listen_path);
    int fd = open(mark, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd >= 0) close(fd);
}

/* SIGUSR1: serve again. A failure leaves init quiesced (the host's connect is refused) rather than ending it. */
static void relisten(void) {
    if (listening) return;
    char mark[sizeof(((struct sockaddr_un *)0)->sun_path) + 16];
    snprintf(mark, sizeof mark, "%s.quiesced", listen_path);
    unlink(mark);
    if (listen_at(listen_path)) { dprintf(2, "paddock-init: cannot listen again: %s\n", strerror(errno)); return; }
    set_nonblock(LISTEN_FD);
    listening = 1;
    if (egress_fd >= 0 && start_forwarder(-1)) dprintf(2, "paddock-init: cannot restart the egress forwarder: %s\n", strerror(errno));
}

static int serve(int ready_fd, const char *egress_socket) {
    if (fcntl(LISTEN_FD, F_SETFD, FD_CLOEXEC)) die("serve: fd 3 is not the listening socket");
    set_nonblock(LISTEN_FD);
    prctl(PR_SET_DUMPABLE, 0);          /* sandbox processes share our uid: keep them out of /proc/1 */
    prctl(PR_SET_CHILD_SUBREAPER, 1);   /* orphans come to us also when we are not pid 1 */
    signal(SIGPIPE, SIG_IGN);
    if (egress_socket) {
        /* listening before readiness is reported, so the first command already has its way out */
        egress_fd = egress_listen();
        if (egress_fd < 0) die("serve: cannot listen on 127.0.0.1:%d for the egress forwarder: %s", EGRESS_PORT, strerror(errno));
        egress_upstream = egress_socket;
        if (start_forwarder(ready_fd)) die("serve: cannot start the egress forwarder: %s", strerror(errno));
        if (!listen_path) close_fd(&egress_fd); /* no quiesce without --listen: nothing restarts the forwarder */
    }
    sigset_t chld; sigemptyset(&chld); sigaddset(&chld, SIGCHLD);
    if (listen_path) { sigaddset(&chld, SIGUSR1); sigaddset(&chld, SIGUSR2); }
    sigprocmask(SIG_BLOCK, &chld, NULL);
    int sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
    if (sfd < 0) die("serve: signalfd: %s", strerror(errno));
    if (ready_fd >= 0) {
        /* the socket listens since before bwrap started: from here on every connection is served */
        if (write(ready_fd, "+", 1) != 1) die("serve: cannot report readiness: %s", strerror(errno));
        close(ready_fd);
    }

    static struct pollfd pfd[1 + 1 + MAX_CONN * 4 + MAX_BG];
    static void *owner[1 + 1 + MAX_CONN * 4 + MAX_BG];
    static int role[1 + 1 + MAX_CONN * 4 + MAX_BG];
    for (;;) {
        int n = 0, timeout = -1;
        long long now = now_ms(CLOCK_MONOTONIC);
        if (listening) { pfd[n] = (struct pollfd){ LISTEN_FD, POLLIN, 0 }; role[n++] = 0; }
        pfd[n] = (struct pollfd){ sfd, POLLIN, 0 }; role[n++] = 1;
        for (int i = 0; i < MAX_CONN; i++) {
            struct conn *c = conns[i];
            if (!c) continue;
            if (c->state == C_EXEC && !c->exited && c->deadline) {
                if (now >= c->deadline) { c->timed_out = 1; c->deadline = 0; kill(-c->pid, SIGKILL); kill(c->pid, SIGKILL); }
                else if (timeout < 0 || c->deadline - now < timeout) timeout = (int)(c->deadline - now);
            }
            if (c->state == C_EXEC && c->stdin_eof && c->stdin_buf.len == 0) close_fd(&c->in_fd);
            short ev = 0;
            if (c->stdin_buf.len < STDIN_CAP) ev |= POLLIN;
            if (c->out.len) ev |= POLLOUT;
            if (c->state == C_FLUSH && !c->out.len) {
                /* read what the peer already sent: closing with unread data would reset the connection */
                unsigned char junk[4096];
                while (read(c->fd, junk, sizeof junk) > 0) {}
                conn_close(i);
                continue;
            }
            pfd[n] = (struct pollfd){ c->fd, ev, 0 }; owner[n] = c; role[n++] = 2;
            if (c->state != C_EXEC) continue;
            if (c->out.len < OUT_CAP) {
                if (c->out_fd >= 0) { pfd[n] = (struct pollfd){ c->out_fd, POLLIN, 0 }; owner[n] = c; role[n++] = 3; }
                if (c->err_fd >= 0) { pfd[n] = (struct pollfd){ c->err_fd, POLLIN, 0 }; owner[n] = c; role[n++] = 4; }
            }
            if (c->in_fd >= 0 && c->stdin_buf.len) { pfd[n] = (struct pollfd){ c->in_fd, POLLOUT, 0 }; owner[n] = c; role[n++] = 5; }
        }
        for (int i = 0; i < MAX_BG; i++)
            if (bgs[i].used && bgs[i].fd >= 0) { pfd[n] = (struct pollfd){ bgs[i].fd, POLLIN, 0 }; owner[n] = &bgs[i]; role[n++] = 6; }

        if (poll(pfd, n, timeout) < 0) { if (errno == EINTR) continue; die("serve: poll: %s", strerror(errno)); }

        for (int k = 0; k < n; k++) {
            if (!pfd[k].revents) continue;
            struct conn *c = owner[k];
            int i = -1;
            if (role[k] >= 2 && role[k] <= 5) {
                for (int j = 0; j < MAX_CONN; j++) if (conns[j] == c) { i = j; break; }
                if (i < 0) continue; /* closed earlier in this round */
            }
            switch (role[k]) {
            case 0: accept_all(LISTEN_FD); break;
            case 1: {
                struct signalfd_siginfo si;
                int quiet = 0, again = 0;
                while (read(sfd, &si, sizeof si) > 0) {
                    /* only from outside the sandbox: a process inside cannot take its host connection away */
                    if (si.ssi_signo == SIGUSR2 && si.ssi_pid == 0) quiet = 1, again = 0;
                    if (si.ssi_signo == SIGUSR1 && si.ssi_pid == 0) again = 1, quiet = 0;
                }
                reap();
                if (quiet) { quiesce(); k = n; }  /* the fds of this round are closed */
                if (again) relisten();
                break;
            }
            case 2:
                if (pfd[k].revents & POLLOUT && c->out.len) {
                    ssize_t w = write(c->fd, c->out.d, c->out.len);
                    if (w > 0) buf_consume(&c->out, (size_t)w);
                    else if (w < 0 && errno != EAGAIN && errno != EINTR) { conn_close(i); break; }
                }
                if (pfd[k].revents & (POLLIN | POLLHUP | POLLERR)) {
                    if (buf_reserve(&c->in, CHUNK)) { conn_close(i); break; }
                    ssize_t r = read(c->fd, c->in.d + c->in.len, CHUNK);
                    if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) { conn_close(i); break; }
                    if (r > 0) { c->in.len += (size_t)r; if (conn_frames(c)) { conn_close(i); break; } }
                }
                break;
            case 3: pump_output(c, &c->out_fd, 'O', 0); break;
            case 4: pump_output(c, &c->err_fd, 'R', 0); break;
            case 5: {
                ssize_t w = write(c->in_fd, c->stdin_buf.d, c->stdin_buf.len);
                if (w > 0) buf_consume(&c->stdin_buf, (size_t)w);
                else if (w < 0 && errno != EAGAIN && errno != EINTR) { close_fd(&c->in_fd); c->stdin_buf.len = 0; }
                break;
            }
            case 6: bg_read((struct bg *)owner[k]); break;
            }
        }
    }
    return 0;
}

/* ---------- launch (host side, root) ---------- */

static void write_file(const char *path, const char *text) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) die("launch: cannot open %s: %s", path, strerror(errno));
    ssize_t n = write(fd, text, strlen(text));
    if (n != (ssize_t)strlen(text)) die("launch: cannot write %s: %s", path, strerror(errno));
    close(fd);
}

static long parse_id(const char *s, const char *what) {
    char *end; errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v <= 0 || v > 0x7fffffff) die("launch: %s must be a positive number, got '%s'", what, s);
    return v;
}

/* The filter as an fd bwrap can read to its end: a memfd holding the program, open across exec. -1 on failure. */
static int seccomp_fd(void) {
    static struct seccomp_prog prog;
    if (seccomp_program(&prog)) { errno = E2BIG; return -1; }
    int fd = memfd_create("paddock-seccomp", 0);
    if (fd < 0) return -1;
    size_t n = prog.len * sizeof prog.insn[0];
    if (write(fd, prog.insn, n) != (ssize_t)n || lseek(fd, 0, SEEK_SET) != 0) { close(fd); return -1; }
    return fd;
}

static int seccomp_dump(void) {
    static struct seccomp_prog prog;
    if (seccomp_program(&prog)) die("seccomp: the filter does not fit");
    size_t n = prog.len * sizeof prog.insn[0];
    return fwrite(prog.insn, 1, n, stdout) == n && fflush(stdout) == 0 ? 0 : 1;
}

#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef OPEN_TREE_CLOEXEC
#define OPEN_TREE_CLOEXEC O_CLOEXEC
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#endif

#ifndef NS_GET_USERNS
#define NS_GET_USERNS _IO(0xb7, 0x1)
#endif

/* Says the namespace is ready, then holds it until stdin closes (the server closed the driver or died). */
static int mountns_wait(void) {
    if (chdir("/")) die("mountns: chdir: %s", strerror(errno));
    if (printf("ready\n") < 0 || fflush(stdout)) return 1;
    char b[64];
    for (ssize_t n; (n = read(0, b, sizeof b)) != 0; ) {
        if (n < 0 && errno != EINTR) break;
    }
    return 0;
}

/*
 * The launch mount namespace (paddock-init mountns ALL): what a sandbox's launcher copies instead of the host's
 * namespace, which holds one disk image mount per sandbox. bwrap copies the namespace it starts in and reads its whole
 * mount table again for every bind it makes, so a start in a copy of the host's cost (binds x sandboxes) lines of
 * /proc/self/mountinfo; a copy of this one costs the same for the first sandbox as for the ten-thousandth. Everything
 * is made a slave of the host's: nothing done here or in a copy reaches the host, and what the host unmounts (the
 * disks of other data directories, whose directory of sandboxes is a shared mount, see SandboxesMount.java) goes from
 * here and from every copy too, so no copy keeps a disk image mounted that its owner released. This data directory's
 * sandboxes are taken out once, here: ALL (a mount of its own while a disk is under it) with everything under it,
 * else each disk mounted straight on a directory under it (by an older version); the host mounts later disks on its own
 * ALL, which this namespace no longer holds, so they never reach it. Then it waits, doing nothing, until its stdin
 * closes (the server is gone): a namespace is released with its last process, and its copies are independent of it.
 */
static int mountns_main(const char *all) {
    if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL)) die("mountns: cannot make a mount namespace: %s", strerror(errno));
    if (!umount2(all, MNT_DETACH | UMOUNT_NOFOLLOW)) return mountns_wait();
    if (errno != EINVAL) die("mountns: cannot detach %s: %s", all, strerror(errno));
    DIR *d = opendir(all);
    if (!d) die("mountns: cannot read %s: %s", all, strerror(errno));
    for (struct dirent *e; (e = readdir(d)) != NULL; ) {
        char path[4096];
        if (e->d_name[0] == '.' || snprintf(path, sizeof path, "%s/%s", all, e->d_name) >= (int)sizeof path) continue;
        while (!umount2(path, MNT_DETACH | UMOUNT_NOFOLLOW)) {}
    }
    closedir(d);
    return mountns_wait();
}

/*
 * The launch namespace at NSFILE, opened and checked to be the one the driver saw "mountns" make: its inode DEV:INO,
 * owned by this process's user namespace. A pid the kernel gave to another process (the namespace maker died) must
 * never put a launcher in that process's namespace (a sandbox's, say): the fd is checked, then used, so what is
 * checked is what is joined. Exits with the reason otherwise.
 */
static int open_launch_ns(const char *nsfile, const char *id) {
    unsigned long long dev, ino;
    char tail;
    if (sscanf(id, "%llu:%llu%c", &dev, &ino, &tail) != 2) die("launch: the launch namespace identity must be DEV:INO, got '%s'", id);
    int fd = open(nsfile, O_RDONLY | O_CLOEXEC);
    if (fd < 0) die("launch: cannot open the launch mount namespace %s: %s", nsfile, strerror(errno));
    struct stat st, owner, mine;
    int user = ioctl(fd, NS_GET_USERNS);
    if (fstat(fd, &st) || user < 0 || fstat(user, &owner) || stat("/proc/self/ns/user", &mine))
        die("launch: cannot check the launch mount namespace %s: %s", nsfile, strerror(errno));
    close(user);
    if (st.st_dev != dev || st.st_ino != ino || owner.st_dev != mine.st_dev || owner.st_ino != mine.st_ino)
        die("launch: %s is not the launch mount namespace (expected %s, found %llu:%llu); refusing to start the sandbox there",
            nsfile, id, (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
    return fd;
}

/*
 * Moves this process to a copy of the launch namespace NSFD with OWN (this sandbox's directory: its disk image, when
 * it has one) attached where it is on the host: a clone of that one mount, taken here in the host's namespace, since a
 * mount of another namespace cannot be bound. setns needs this process alone on its filesystem information (a clone
 * without CLONE_FS, as clone_vfork makes) and sets its root and working directory to the namespace's: every path
 * used after this is absolute. The clone is held by the copy (bwrap's outer process, until the sandbox serves) and
 * goes with it. None of this grows with the number of sandboxes. Before Linux 5.2 (no open_tree) the sandbox
 * starts in the host's namespace, as it did before. 0, or -1 with errno set.
 */
static int own_mounts(const char *own, int nsfd) {
    int tree = (int)syscall(SYS_open_tree, AT_FDCWD, own, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
    if (tree < 0) return errno == ENOSYS ? 0 : -1;
    int r = setns(nsfd, CLONE_NEWNS) || unshare(CLONE_NEWNS)
            || syscall(SYS_move_mount, tree, "", AT_FDCWD, own, MOVE_MOUNT_F_EMPTY_PATH) ? -1 : 0;
    int e = errno;
    close(tree);
    errno = e;
    return r;
}

/*
 * The two processes between the launcher and bwrap: a detaching one (setsid, so the sandbox is in a session of its
 * own and no child of the host) and the one that becomes bwrap. Both are clones that share the launcher's memory
 * and make their parent wait until they exec or exit (as posix_spawn does) instead of forks: no page tables copied,
 * no copy-on-write faults, which on a virtual machine are most of what a fork costs. Each runs on a stack of its own;
 * what they write to memory (a FILE for the pid file, the seccomp program) is theirs alone until they exec.
 */
struct launch_req { int report, report_read, lfd, logfd, devnull; int seccomp; uid_t uid; gid_t gid; char **cmd; const char *own; int nsfd; int bwrap_pidfd; pid_t bwrap_pid; };

#define CLONE_STACK (256u * 1024)

/*
 * A child sharing this memory on its own stack (with a guard page); returns once it exec'd or exited. EXTRA adds
 * clone flags: CLONE_FILES (the child's new descriptors are the parent's too), CLONE_PIDFD (a pidfd of the child
 * is stored in *PIDFD).
 */
static pid_t clone_vfork(int (*fn)(void *), void *arg, int extra, int *pidfd) {
    unsigned char *m = mmap(NULL, CLONE_STACK + 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (m == MAP_FAILED) return -1;
    if (mprotect(m, 4096, PROT_NONE)) { munmap(m, CLONE_STACK + 4096); return -1; }
    pid_t pid = clone(fn, m + 4096 + CLONE_STACK, CLONE_VM | CLONE_VFORK | SIGCHLD | extra, arg, pidfd);
    int e = errno;
    munmap(m, CLONE_STACK + 4096);
    errno = e;
    return pid;
}

static int launch_sandbox(void *arg) {
    struct launch_req *r = arg;
    close(r->report_read);
    if (r->own && own_mounts(r->own, r->nsfd)) {
        dprintf(r->report, "cannot prepare the mount namespace (%s): %s", r->own, strerror(errno)); _exit(1);
    }
    /* Park the two fds we keep above the range we are about to fill, then place them at 3 and 4. */
    int rep = fcntl(r->report, F_DUPFD_CLOEXEC, 10), lis = fcntl(r->lfd, F_DUPFD_CLOEXEC, 10);
    if (rep < 0 || lis < 0) _exit(1);
    if (dup2(r->devnull, 0) < 0 || dup2(r->devnull, 1) < 0 || dup2(r->logfd, 2) < 0) _exit(1);
    /* dup2 clears close-on-exec: both go through bwrap to init */
    if (dup2(lis, LISTEN_FD) < 0 || dup2(rep, READY_FD) < 0) _exit(1);
    int report = READY_FD;
    close_range(READY_FD + 1, ~0u, 0);
    if (r->seccomp) {
        /* bwrap reads the filter from fd 5, closes it and applies it right before it execs init */
        int sfd = seccomp_fd();
        if (sfd < 0 || dup2(sfd, SECCOMP_FD) < 0) {
            dprintf(report, "cannot prepare the seccomp filter: %s", strerror(errno)); _exit(1);
        }
        if (sfd != SECCOMP_FD) close(sfd);
    }
    if (setgroups(0, NULL) || setresgid(r->gid, r->gid, r->gid) || setresuid(r->uid, r->uid, r->uid)
            || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || getuid() == 0 || geteuid() == 0) {
        dprintf(report, "cannot drop privileges to %d:%d: %s", (int)r->uid, (int)r->gid, strerror(errno)); _exit(1);
    }
    sigset_t none; sigemptyset(&none); sigprocmask(SIG_SETMASK, &none, NULL);
    execv(r->cmd[0], r->cmd);
    dprintf(report, "cannot run %s: %s", r->cmd[0], strerror(errno));
    _exit(1);
}

/* Shares the launcher's descriptors, so the pidfd of the process that becomes bwrap is the launcher's. */
static int launch_detach(void *arg) {
    struct launch_req *r = arg;
    setsid();
    r->bwrap_pid = clone_vfork(launch_sandbox, arg, CLONE_PIDFD, &r->bwrap_pidfd);
    _exit(r->bwrap_pid < 0 ? 1 : 0);
}

/*
 * Once init serves, bwrap's outer process has nothing left to do but wait for it: it holds memory, page tables and
 * a copy of the launch namespace per sandbox, and is one more task for every pivot_root on the host to visit. It is
 * killed here (init, started without --die-with-parent, goes on; the host's init reaps it when it ends), after init's
 * host pid was read from its children and found while bwrap still lived: the pidfd names bwrap and nothing else.
 * Init's pid goes to PIDFILE, written whole under a temporary name. 0, or -1 with a message in MSG.
 */
static int drop_bwrap(struct launch_req *r, const char *pidfile, char *msg, size_t len) {
    char path[64], kids[64] = "";
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)r->bwrap_pid, (int)r->bwrap_pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd < 0 ? -1 : read(fd, kids, sizeof kids - 1);
    if (fd >= 0) close(fd);
    long init = n > 0 ? strtol(kids, NULL, 10) : 0;
    int alive = r->bwrap_pidfd >= 0 ? !syscall(SYS_pidfd_send_signal, r->bwrap_pidfd, 0, NULL, 0) : !kill(r->bwrap_pid, 0);
    if (alive && fd < 0) return 0; /* a kernel without the children file (CONFIG_PROC_CHILDREN): bwrap stays, no pid file */
    if (init <= 0 || !alive) {
        snprintf(msg, len, "the sandbox's bwrap ended before its init could be found");
        return -1;
    }
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", pidfile) >= (int)sizeof tmp) { snprintf(msg, len, "pid file path too long"); return -1; }
    FILE *pf = fopen(tmp, "we");
    if (!pf || fprintf(pf, "%ld\n", init) < 0 || fclose(pf) || rename(tmp, pidfile)) {
        snprintf(msg, len, "cannot write %s: %s", pidfile, strerror(errno));
        return -1;
    }
    if (r->bwrap_pidfd < 0) return 0; /* before Linux 5.2 (no CLONE_PIDFD) bwrap stays: a pid alone could name another process */
    if (syscall(SYS_pidfd_send_signal, r->bwrap_pidfd, SIGKILL, NULL, 0) && errno != ESRCH) {
        snprintf(msg, len, "cannot end the sandbox's bwrap: %s", strerror(errno));
        return -1;
    }
    return 0;
}

static int launch(int argc, char **argv) {
    if (argc < 8) die("usage: paddock-init launch SOCKET UID GID LOGFILE PIDFILE [--join FILE]... [--seccomp] [--own-mounts OWN NSFILE DEV:INO] -- BWRAP ARGS...");
    const char *sock = argv[2], *log = argv[5], *pidfile = argv[6];
    uid_t uid = (uid_t)parse_id(argv[3], "UID");
    gid_t gid = (gid_t)parse_id(argv[4], "GID");
    int i = 7;
    const char *joins[16]; int njoin = 0, seccomp = 0;
    const char *own = NULL;
    int nsfd = -1;
    for (; i < argc && strcmp(argv[i], "--"); i++) {
        if (!strcmp(argv[i], "--seccomp")) { seccomp = 1; continue; }
        if (!strcmp(argv[i], "--own-mounts") && i + 3 < argc && nsfd < 0) {
            own = argv[++i];
            nsfd = open_launch_ns(argv[i + 1], argv[i + 2]);
            i += 2;
            continue;
        }
        if (strcmp(argv[i], "--join") || i + 1 >= argc || njoin == 16) die("launch: unexpected argument '%s'", argv[i]);
        joins[njoin++] = argv[++i];
    }
    if (i >= argc - 1) die("launch: missing '-- BWRAP ARGS'");
    char **cmd = argv + i + 1;
    if (own && (own[0] != '/' || cmd[0][0] != '/')) die("launch: with --own-mounts, OWN and BWRAP must be absolute paths");

    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    if (strlen(sock) >= sizeof addr.sun_path) die("launch: socket path too long: %s", sock);
    strcpy(addr.sun_path, sock);
    unlink(sock);
    int lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&addr, sizeof addr) || chmod(sock, 0600) || listen(lfd, 128))
        die("launch: cannot listen on %s: %s", sock, strerror(errno));

    /* The host makes the disk, the cgroups and the workspace while this process starts; one byte on stdin says they are ready. */
    char ok = 0;
    ssize_t got;
    while ((got = read(0, &ok, 1)) < 0 && errno == EINTR) {}
    if (got != 1 || ok != 'g') die("launch: the host gave up before the sandbox's directories were ready");

    /*
     * Join the cgroups while still root, so bwrap and everything below is counted and limited from its first
     * instruction. Each FILE is a v1 "tasks" file (or a v2 cgroup.procs): "0" moves the calling thread, and this
     * process has exactly one. Moving the current thread alone skips the kernel's global threadgroup lock, whose
     * RCU grace period costs milliseconds (10-20 ms on a busy host) for every cgroup.procs write of a pid.
     */
    for (int k = 0; k < njoin; k++) write_file(joins[k], "0");

    int logfd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (logfd < 0 || devnull < 0) die("launch: cannot open %s: %s", log, strerror(errno));
    /* init writes '+' once it serves; the process before bwrap writes why it failed */
    int report[2];
    if (pipe2(report, O_CLOEXEC)) die("launch: pipe: %s", strerror(errno));

    struct launch_req req = { report[1], report[0], lfd, logfd, devnull, seccomp, uid, gid, cmd, own, nsfd, -1, -1 };
    pid_t first = clone_vfork(launch_detach, &req, CLONE_FILES, NULL);
    if (first < 0) die("launch: fork: %s", strerror(errno));
    close(report[1]); close(lfd);
    int st;
    waitpid(first, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st)) die("launch: could not detach the sandbox process");
    /*
     * Either init writes '+' (it serves), or the process before bwrap writes why it failed, or bwrap fails
     * during setup and every copy of the pipe closes (EOF; bwrap's own message is in LOGFILE).
     */
    char msg[512]; ssize_t n, len = 0;
    while (len < (ssize_t)sizeof msg - 1 && (n = read(report[0], msg + len, sizeof msg - 1 - len)) != 0) {
        if (n < 0) { if (errno == EINTR) continue; die("launch: reading the readiness pipe: %s", strerror(errno)); }
        len += n;
        if (msg[0] == '+') {
            if (!drop_bwrap(&req, pidfile, msg, sizeof msg)) return 0;
            die("launch: %s", msg);
        }
    }
    msg[len] = 0;
    if (len > 0) die("launch: %s", msg);
    die("launch: the sandbox exited while starting (see %s)", log);
    return 1;
}

/* Binds and listens on PATH as fd 3, for drivers whose runtime cannot hand over a bound socket (Docker, gVisor). */
static int listen_at(const char *path) {
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    strcpy(a.sun_path, path); /* length checked by serve_main */
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    unlink(path); /* left by an earlier run of this sandbox, or before a quiesce */
    mode_t old = umask(077);
    int bound = bind(fd, (struct sockaddr *)&a, sizeof a);
    umask(old);
    if (bound || listen(fd, 64) || (fd != LISTEN_FD && dup2(fd, LISTEN_FD) < 0)) { int e = errno; close(fd); errno = e; return -1; }
    if (fd != LISTEN_FD) close(fd);
    return 0;
}

static int serve_main(int argc, char **argv) {
    const char *egress = NULL;
    int ready = -1;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "4") && ready < 0) { ready = READY_FD; continue; }
        if (i + 1 < argc && !strcmp(argv[i], "--egress")) { egress = argv[++i]; continue; }
        if (i + 1 < argc && !strcmp(argv[i], "--listen")) { listen_path = argv[++i]; continue; }
        if (argv[i][0] >= '0' && argv[i][0] <= '9') die("serve: init reports on its readiness pipe at fd 4 only, got '%s'", argv[i]);
        die("serve: unexpected argument '%s'", argv[i]);
    }
    if (egress && (egress[0] != '/' || strlen(egress) >= sizeof(((struct sockaddr_un *)0)->sun_path))) die("serve: --egress needs an absolute socket path");
    if (ready >= 0 && fcntl(READY_FD, F_SETFD, FD_CLOEXEC)) die("serve: fd 4 must be open");
    if (listen_path && (listen_path[0] != '/' || strlen(listen_path) >= sizeof(((struct sockaddr_un *)0)->sun_path))) die("serve: --listen needs an absolute socket path");
    if (listen_path && listen_at(listen_path)) die("serve: cannot listen on %s: %s", listen_path, strerror(errno));
    return serve(ready, egress);
}

int main(int argc, char **argv) {
    if (argc >= 2 && !strcmp(argv[1], "serve")) return serve_main(argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "launch")) return launch(argc, argv);
    if (argc == 3 && !strcmp(argv[1], "mountns")) return mountns_main(argv[2]);
    if (argc == 4 && !strcmp(argv[1], "connect")) return connect_relay(argv[2], argv[3]);
    if (argc == 2 && !strcmp(argv[1], "seccomp")) return seccomp_dump();
    fprintf(stderr, "usage: paddock-init serve [4] [--listen SOCKET] [--egress SOCKET] | paddock-init launch ... | paddock-init mountns ALL | paddock-init connect SOCKET WAIT_MS | paddock-init seccomp\n");
    return 2;
}
