/*
 * The seccomp filter every bwrap sandbox runs under (bwrap --seccomp, applied right before it execs init, so
 * init and everything it starts are covered). Modelled on Docker's default profile, but a denylist: every
 * system call is allowed except the ones below, which reach kernel code a sandbox has no use for and which
 * neither the namespaces nor the dropped capabilities close (keys, io_uring, userfaultfd, perf, file handles,
 * vsock), or which capabilities close already and are denied again so a kernel bug there is out of reach too.
 *
 * The kernel caches the answer of a filter per system call while it does not depend on the arguments, so the
 * allowed calls (everything but socket, socketpair, clone and personality) cost nothing after the first.
 *
 * One place to read and change: DENY lists a call and its errno; the argument filters are in
 * seccomp_program. A call the kernel headers do not know is left out (it does not exist on this platform).
 */
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <sys/personality.h>
#include <sys/syscall.h>

#if defined(__x86_64__)
#define PADDOCK_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define PADDOCK_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#error "paddock-init: the seccomp filter knows x86_64 and aarch64 only"
#endif
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "paddock-init: the seccomp filter reads argument words little endian"
#endif

/* Socket families a sandbox may open: everything else (vsock, packet, bluetooth, alg, xdp, ...) is refused. */
static const unsigned seccomp_families[] = { AF_UNIX, AF_INET, AF_INET6, AF_NETLINK };

/* personality() values Docker allows: the default, UNAME26, PER_LINUX32 (and both), and the query. */
static const unsigned seccomp_personalities[] = { PER_LINUX, UNAME26, PER_LINUX32, PER_LINUX32 | UNAME26, 0xffffffffu };

/* clone() flags that create namespaces (not CLONE_NEWTIME: in clone() that bit is part of the exit signal). */
#define SECCOMP_CLONE_NS (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET)

struct seccomp_deny { int nr; int err; };

#define D(name, e) { __NR_##name, e },
static const struct seccomp_deny seccomp_denied[] = {
    /* reachable by an unprivileged uid, and the reason for this filter */
#ifdef __NR_io_uring_setup
    D(io_uring_setup, ENOSYS)     /* ENOSYS: programs (libuv, ...) fall back to ordinary calls */
    D(io_uring_enter, ENOSYS)
    D(io_uring_register, ENOSYS)
#endif
    D(userfaultfd, EPERM)
    D(perf_event_open, EPERM)
    D(add_key, EPERM)
    D(keyctl, EPERM)
    D(request_key, EPERM)
    D(name_to_handle_at, EPERM)
    D(open_by_handle_at, EPERM)
    D(bpf, EPERM)
    D(syslog, EPERM)              /* the kernel log, readable when kernel.dmesg_restrict is 0 */
    D(fanotify_init, EPERM)
    D(process_vm_readv, EPERM)
    D(process_vm_writev, EPERM)
    D(kcmp, EPERM)
    D(lookup_dcookie, EPERM)
    D(get_mempolicy, EPERM)
    D(set_mempolicy, EPERM)
    D(mbind, EPERM)
    D(move_pages, EPERM)
    D(migrate_pages, EPERM)
#ifdef __NR_set_mempolicy_home_node
    D(set_mempolicy_home_node, EPERM)
#endif
    D(clone3, ENOSYS)             /* its flags are out of a filter's reach; ENOSYS makes glibc use clone() */
    /* namespaces and mounts: closed by the dropped capabilities and --disable-userns; denied here as well */
    D(unshare, EPERM)
    D(setns, EPERM)
    D(mount, EPERM)
    D(umount2, EPERM)
    D(pivot_root, EPERM)
    D(chroot, EPERM)
#ifdef __NR_open_tree
    D(open_tree, EPERM)
    D(move_mount, EPERM)
    D(fsopen, EPERM)
    D(fsconfig, EPERM)
    D(fsmount, EPERM)
    D(fspick, EPERM)
#endif
#ifdef __NR_mount_setattr
    D(mount_setattr, EPERM)
#endif
    /* the machine: modules, kexec, time, swap, quotas, accounting, reboot */
    D(init_module, EPERM)
    D(finit_module, EPERM)
    D(delete_module, EPERM)
    D(kexec_load, EPERM)
#ifdef __NR_kexec_file_load
    D(kexec_file_load, EPERM)
#endif
    D(settimeofday, EPERM)
    D(clock_settime, EPERM)
    D(clock_adjtime, EPERM)
    D(swapon, EPERM)
    D(swapoff, EPERM)
    D(quotactl, EPERM)
#ifdef __NR_quotactl_fd
    D(quotactl_fd, EPERM)
#endif
    D(acct, EPERM)
    D(reboot, EPERM)
    D(vhangup, EPERM)
    D(nfsservctl, EPERM)
#if defined(__x86_64__)
    /* x86 only, or obsolete */
    D(iopl, EPERM)
    D(ioperm, EPERM)
    D(create_module, EPERM)
    D(get_kernel_syms, EPERM)
    D(query_module, EPERM)
    D(uselib, EPERM)
    D(ustat, EPERM)
    D(sysfs, EPERM)
    D(_sysctl, EPERM)
#endif
};
#undef D

#define SECCOMP_MAX_INSNS 256
struct seccomp_prog { struct sock_filter insn[SECCOMP_MAX_INSNS]; unsigned len; };

static void sc_emit(struct seccomp_prog *p, unsigned short code, unsigned char jt, unsigned char jf, unsigned k) {
    if (p->len < SECCOMP_MAX_INSNS) p->insn[p->len] = (struct sock_filter){ code, jt, jf, k };
    p->len++;
}
#define SC_LD(p, off) sc_emit(p, BPF_LD | BPF_W | BPF_ABS, 0, 0, off)
#define SC_RET(p, v) sc_emit(p, BPF_RET | BPF_K, 0, 0, v)
#define SC_ERRNO(e) (SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))
#define SC_ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))

/*
 * "if arg0 is one of values[], allow, else fail with err", for the call just matched. Only the lower half of
 * the 64-bit argument word is compared: these arguments are ints, and the kernel reads nothing else of them.
 */
static void sc_arg0_in(struct seccomp_prog *p, const unsigned *values, unsigned n, int err) {
    SC_LD(p, SC_ARG_LO(0));
    for (unsigned i = 0; i < n; i++)
        sc_emit(p, BPF_JMP | BPF_JEQ | BPF_K, (unsigned char)(n - i), 0, values[i]); /* to the allow */
    SC_RET(p, SC_ERRNO(err));
    SC_RET(p, SECCOMP_RET_ALLOW);
}

/* Builds the filter; 0 on success. Small and fixed: SECCOMP_MAX_INSNS is far above what it needs. */
static int seccomp_program(struct seccomp_prog *p) {
    p->len = 0;
    /* another ABI (i386 through int 0x80, x32) would see other numbers: such a call kills the process */
    SC_LD(p, offsetof(struct seccomp_data, arch));
    sc_emit(p, BPF_JMP | BPF_JEQ | BPF_K, 1, 0, PADDOCK_AUDIT_ARCH);
    SC_RET(p, SECCOMP_RET_KILL_PROCESS);
    SC_LD(p, offsetof(struct seccomp_data, nr));
#if defined(__x86_64__)
    sc_emit(p, BPF_JMP | BPF_JGE | BPF_K, 0, 1, 0x40000000u);   /* __X32_SYSCALL_BIT */
    SC_RET(p, SECCOMP_RET_KILL_PROCESS);
#endif
    for (size_t i = 0; i < sizeof seccomp_denied / sizeof seccomp_denied[0]; i++) {
        sc_emit(p, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, (unsigned)seccomp_denied[i].nr);
        SC_RET(p, SC_ERRNO(seccomp_denied[i].err));
    }
    /* the argument filters; each block ends in a return, since loading an argument replaces the number */
    unsigned nf = sizeof seccomp_families / sizeof seccomp_families[0];
    unsigned np = sizeof seccomp_personalities / sizeof seccomp_personalities[0];
    sc_emit(p, BPF_JMP | BPF_JEQ | BPF_K, 1, 0, __NR_socket);
    sc_emit(p, BPF_JMP | BPF_JEQ | BPF_K, 0, (unsigned char)(nf + 3), __NR_socketpair);
    sc_arg0_in(p, seccomp_families, nf, EAFNOSUPPORT);              /* nf + 3 instructions */
    sc_emit(p, BPF_JMP | BPF_JEQ | BPF_K, 0, (unsigned char)(np + 3), __NR_personality);
    sc_arg0_in(p, seccomp_personalities, np, EPERM);                /* np + 3 instructions */
    sc_emit(p, BPF_JMP | BPF_JEQ | BPF_K, 0, 4, __NR_clone);
    SC_LD(p, SC_ARG_LO(0));
    sc_emit(p, BPF_JMP | BPF_JSET | BPF_K, 0, 1, SECCOMP_CLONE_NS);
    SC_RET(p, SC_ERRNO(EPERM));
    SC_RET(p, SECCOMP_RET_ALLOW);
    SC_RET(p, SECCOMP_RET_ALLOW);
    return p->len <= SECCOMP_MAX_INSNS ? 0 : -1;
}
