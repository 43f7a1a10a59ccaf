/*
 * Compiled and run inside a sandbox by BwrapSeccompTest: makes each system call the seccomp filter refuses
 * (through syscall(2), so no libc wrapper hides one) and prints "name errno-name", or "name allowed".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/userfaultfd.h>

#define AF_VSOCK_ 40
#define AF_PACKET_ 17
#define AF_ALG_ 38
#define AF_BLUETOOTH_ 31

static void report(const char *name, long rc) {
    printf("%s %s\n", name, rc >= 0 ? "allowed" : strerrorname_np(errno));
}
#define TRY(name, ...) report(name, syscall(__VA_ARGS__))

/* How a child that makes one call ends: "exited" when the call returned, else the signal that ended it. */
static void in_child(const char *name, void (*call)(void)) {
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) { call(); _exit(0); }
    int st;
    waitpid(c, &st, 0);
    printf("%s %s\n", name, WIFSIGNALED(st) ? sigabbrev_np(WTERMSIG(st)) : "exited");
}

static void x32_getpid(void) { syscall(0x40000000 | SYS_getpid); }
static void int80_getpid(void) {
#if defined(__x86_64__)
    long r;
    __asm__ volatile ("int $0x80" : "=a"(r) : "a"(20) : "memory", "r8", "r9", "r10", "r11");
#endif
}

int main(void) {
    static char buf[4096];
    unsigned long params[16] = {0};
    setvbuf(stdout, NULL, _IOLBF, 0);
    /* the calls the filter exists for */
    TRY("io_uring_setup", SYS_io_uring_setup, 4, params);
    TRY("io_uring_enter", SYS_io_uring_enter, 0, 0, 0, 0, NULL, 0);
    TRY("io_uring_register", SYS_io_uring_register, 0, 0, NULL, 0);
    TRY("userfaultfd", SYS_userfaultfd, UFFD_USER_MODE_ONLY);
    TRY("add_key", SYS_add_key, "user", "k", "v", 1, -2 /* KEY_SPEC_PROCESS_KEYRING */);
    TRY("keyctl", SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -3 /* KEY_SPEC_SESSION_KEYRING */, 1);
    TRY("request_key", SYS_request_key, "user", "k", NULL, 0);
    memset(buf, 0, sizeof buf);
    *(unsigned *)(buf + 4) = 128;                 /* perf_event_attr.size, type 0 = hardware, exclude kernel */
    buf[40] = 0x60;
    TRY("perf_event_open", SYS_perf_event_open, buf, 0, -1, -1, 0);
    *(unsigned *)buf = 128;                       /* file_handle.handle_bytes */
    TRY("name_to_handle_at", SYS_name_to_handle_at, AT_FDCWD, "/workspace", buf, buf + 2048, 0);
    TRY("open_by_handle_at", SYS_open_by_handle_at, AT_FDCWD, buf, O_RDONLY);
    TRY("socket_vsock", SYS_socket, AF_VSOCK_, SOCK_STREAM, 0);
    TRY("socket_vsock_dgram", SYS_socket, AF_VSOCK_, SOCK_DGRAM, 0);
    TRY("socket_vsock_upper_bits", SYS_socket, (1L << 32) | AF_VSOCK_, SOCK_STREAM, 0);
    TRY("socketpair_vsock", SYS_socketpair, AF_VSOCK_, SOCK_STREAM, 0, buf);
    TRY("socket_packet", SYS_socket, AF_PACKET_, SOCK_RAW, 0);
    TRY("socket_alg", SYS_socket, AF_ALG_, SOCK_SEQPACKET, 0);
    TRY("socket_bluetooth", SYS_socket, AF_BLUETOOTH_, SOCK_STREAM, 0);
    /* the rest of the denylist, a sample of each kind */
    TRY("bpf", SYS_bpf, 0, buf, 64);
    TRY("syslog", SYS_syslog, 10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
    TRY("process_vm_readv", SYS_process_vm_readv, getpid(), NULL, 0, NULL, 0, 0);
    TRY("kcmp", SYS_kcmp, getpid(), getpid(), 0 /* KCMP_FILE */, 0, 0);
    TRY("get_mempolicy", SYS_get_mempolicy, NULL, NULL, 0, NULL, 0);
    TRY("unshare", SYS_unshare, CLONE_NEWUSER);
    TRY("setns", SYS_setns, 0, 0);
    TRY("mount", SYS_mount, "none", "/tmp", "tmpfs", 0, NULL);
    TRY("fsopen", SYS_fsopen, "tmpfs", 0);
    TRY("init_module", SYS_init_module, buf, 0, "");
    TRY("kexec_load", SYS_kexec_load, 0, 0, NULL, 0);
    TRY("clock_settime", SYS_clock_settime, 0, buf);
    TRY("personality_addr_no_randomize", SYS_personality, ADDR_NO_RANDOMIZE);
    TRY("personality_read_implies_exec", SYS_personality, READ_IMPLIES_EXEC);
    TRY("clone3", SYS_clone3, buf, 88);
    long r = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);
    if (r == 0) _exit(0);
    if (r > 0) waitpid((pid_t)r, NULL, 0);
    report("clone_newuser", r);
    /* what must keep working */
    TRY("socket_unix", SYS_socket, AF_UNIX, SOCK_STREAM, 0);
    TRY("socket_inet", SYS_socket, AF_INET, SOCK_STREAM, 0);
    TRY("socket_inet6", SYS_socket, AF_INET6, SOCK_DGRAM, 0);
    TRY("socket_netlink", SYS_socket, AF_NETLINK, SOCK_RAW, 0);
    TRY("socketpair_unix", SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, buf);
    TRY("personality_query", SYS_personality, 0xffffffffUL);
    /* ptrace stays (debuggers, confined by the pid namespace): a child asks to be traced by this process */
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) _exit(syscall(SYS_ptrace, 0 /* PTRACE_TRACEME */, 0, 0, 0) == 0 ? 0 : errno);
    int st;
    waitpid(c, &st, 0);
    errno = WIFEXITED(st) ? WEXITSTATUS(st) : EINTR;
    report("ptrace_traceme", errno ? -1 : 0);
    /* other ABIs: a call through them never returns */
    in_child("x32_getpid", x32_getpid);
#if defined(__x86_64__)
    in_child("int80_getpid", int80_getpid);
#endif
    return 0;
}
