package dev.paddock.driver.bwrap;

import static dev.paddock.driver.bwrap.TestSandboxes.sh;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The seccomp filter of init-agent/src/main/c/paddock-seccomp.h, seen from inside a real sandbox: a probe compiled there with the
 * host's gcc makes each refused call through syscall(2), and real workloads still run.
 */
@Tag("bwrap")
class BwrapSeccompTest extends OneSandboxTest {
    static Map<String, String> probe;

    @BeforeAll
    static void compileAndRunTheProbe() throws Exception {
        try (InputStream src = BwrapSeccompTest.class.getResourceAsStream("/seccomp-probe.c")) {
            sandbox.workspace().write("seccomp-probe.c", src);
        }
        TestSandboxes.Run run = sh(sandbox, "gcc -O2 -o /tmp/probe seccomp-probe.c && /tmp/probe");
        assertThat(run.exit()).as(run.err()).isZero();
        probe = new LinkedHashMap<>();
        for (String line : run.out().split("\n")) {
            String[] kv = line.split(" ", 2);
            probe.put(kv[0], kv[1]);
        }
    }

    @Test
    void initAndEveryCommandRunUnderTheFilter() {
        assertThat(sh(sandbox, "grep -E '^Seccomp:' /proc/self/status /proc/1/status").out())
                .contains("/proc/self/status:Seccomp:\t2").contains("/proc/1/status:Seccomp:\t2");
    }

    @Test
    void refusesTheCallsThatReachTheKernelPastTheNamespaces() {
        assertThat(probe).containsEntry("io_uring_setup", "ENOSYS").containsEntry("io_uring_enter", "ENOSYS")
                .containsEntry("io_uring_register", "ENOSYS")
                .containsEntry("userfaultfd", "EPERM")
                .containsEntry("add_key", "EPERM").containsEntry("keyctl", "EPERM").containsEntry("request_key", "EPERM")
                .containsEntry("perf_event_open", "EPERM")
                .containsEntry("name_to_handle_at", "EPERM").containsEntry("open_by_handle_at", "EPERM");
    }

    @Test
    void refusesSocketFamiliesOtherThanUnixInetInet6AndNetlink() {
        assertThat(probe).containsEntry("socket_vsock", "EAFNOSUPPORT").containsEntry("socket_vsock_dgram", "EAFNOSUPPORT")
                .containsEntry("socket_vsock_upper_bits", "EAFNOSUPPORT").containsEntry("socketpair_vsock", "EAFNOSUPPORT")
                .containsEntry("socket_packet", "EAFNOSUPPORT").containsEntry("socket_alg", "EAFNOSUPPORT")
                .containsEntry("socket_bluetooth", "EAFNOSUPPORT");
        assertThat(probe).containsEntry("socket_unix", "allowed").containsEntry("socket_inet", "allowed")
                .containsEntry("socket_inet6", "allowed").containsEntry("socket_netlink", "allowed")
                .containsEntry("socketpair_unix", "allowed");
    }

    @Test
    void refusesTheRestOfTheDenylist() {
        for (String call : new String[] {"bpf", "syslog", "process_vm_readv", "kcmp", "get_mempolicy", "unshare", "setns", "mount",
                "fsopen", "init_module", "kexec_load", "clock_settime", "personality_addr_no_randomize",
                "personality_read_implies_exec", "clone_newuser"}) {
            assertThat(probe).as(call).containsEntry(call, "EPERM");
        }
        // clone3's flags are out of the filter's reach: ENOSYS, so glibc falls back to clone, whose flags are checked
        assertThat(probe).containsEntry("clone3", "ENOSYS");
        assertThat(probe).containsEntry("personality_query", "allowed").containsEntry("ptrace_traceme", "allowed");
    }

    @Test
    void aCallThroughAnotherAbiNeverReturns() {
        assertThat(probe).containsEntry("x32_getpid", "SYS");
        // i386 through int 0x80: SIGSYS from the filter, or SIGSEGV on a kernel built without that ABI
        if (probe.containsKey("int80_getpid")) assertThat(probe.get("int80_getpid")).isIn("SYS", "SEGV");
    }

    @Test
    void realWorkloadsStillRun() {
        // python: threads (clone3 falls back), a subprocess, sockets, asyncio
        TestSandboxes.Run py = sh(sandbox, """
                python3 -c '
                import asyncio, socket, subprocess, threading
                out = []
                ts = [threading.Thread(target=out.append, args=(i,)) for i in range(8)]
                [t.start() for t in ts]; [t.join() for t in ts]
                a, b = socket.socketpair(); a.send(b"x"); assert b.recv(1) == b"x"
                s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM); s.bind(("::1", 0)); s.listen()
                async def main(): await asyncio.sleep(0)
                asyncio.run(main())
                print(len(out), subprocess.run(["echo", "sub"], capture_output=True, text=True).stdout.strip())
                '""");
        assertThat(py.out()).as(py.err()).isEqualTo("8 sub\n");

        // node: libuv's thread pool and file system calls (io_uring falls back), a child process
        TestSandboxes.Run node = sh(sandbox, """
                node -e '
                const fs = require("fs"), cp = require("child_process");
                fs.writeFileSync("/tmp/n.txt", "node");
                fs.promises.readFile("/tmp/n.txt", "utf8").then(t => console.log(t, cp.execFileSync("echo", ["sub"]).toString().trim()));
                '""");
        assertThat(node.out()).as(node.err()).isEqualTo("node sub\n");

        TestSandboxes.Run git = sh(sandbox, "cd /tmp && git init -q repo && cd repo && echo a > a && git add a"
                + " && git -c user.name=t -c user.email=t@example.com commit -q -m first && git log --oneline | wc -l");
        assertThat(git.out()).as(git.err()).isEqualTo("1\n");

        TestSandboxes.Run gcc = sh(sandbox, """
                cat > /tmp/t.c <<'EOF'
                #include <pthread.h>
                #include <stdio.h>
                static void *run(void *a) { return a; }
                int main(void) { pthread_t t; void *r; pthread_create(&t, 0, run, "threads"); pthread_join(t, &r); puts(r); return 0; }
                EOF
                gcc -O2 -pthread -o /tmp/t /tmp/t.c && /tmp/t""");
        assertThat(gcc.out()).as(gcc.err()).isEqualTo("threads\n");
    }
}
