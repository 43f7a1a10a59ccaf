package dev.paddock.driver.bwrap;

import static dev.paddock.driver.bwrap.TestSandboxes.sh;
import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.init.SandboxLayout;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("bwrap")
class BwrapIsolationTest extends OneSandboxTest {

    @Test
    void hostProcessesAreInvisible() {
        String pids = sh(sandbox, "ls /proc | grep -E '^[0-9]+$' | sort -n | tr '\\n' ' '").out().trim();
        // init (1), the shell and ls: nothing of the host, whose pids are in the thousands
        for (String pid : pids.split(" ")) assertThat(Integer.parseInt(pid)).isLessThan(100);
        assertThat(sh(sandbox, "cat /proc/1/cmdline | tr '\\0' ' '").out()).startsWith(SandboxLayout.INIT_PATH + " serve");
    }

    @Test
    void systemDirectoriesAreReadOnly() {
        assertThat(sh(sandbox, "touch /usr/x 2>&1; echo rc=$?").out()).contains("Read-only file system").contains("rc=1");
        assertThat(sh(sandbox, "touch /etc/x 2>&1; echo rc=$?").out()).contains("Read-only file system").contains("rc=1");
        assertThat(sh(sandbox, "echo hi > /workspace/ok && cat /workspace/ok").out()).isEqualTo("hi\n");
        assertThat(sh(sandbox, "echo hi > /tmp/ok && cat /tmp/ok").out()).isEqualTo("hi\n");
    }

    @Test
    void tmpIsAStickyDirectoryOnTheRootTmpfsOfEachSandboxNotAFilesystemOfItsOwn() {
        // a filesystem of its own would cost every memory cgroup on the host one more shrinker slot (BwrapArgs)
        assertThat(sh(sandbox, "stat -c '%a %d' /tmp; stat -c %d /; stat -f -c %T /tmp; grep -c ' /tmp ' /proc/self/mountinfo").out())
                .matches("1777 (\\d+)\n\\1\ntmpfs\n0\n");
        Sandbox other = env.create();
        sh(other, "echo theirs > /tmp/other.txt");
        assertThat(sh(sandbox, "cat /tmp/other.txt 2>&1").out()).contains("No such file");
    }

    @Test
    void anotherSandboxsWorkspaceIsInvisible() {
        Sandbox other = env.create();
        sh(other, "echo secret > /workspace/secret.txt");
        String id = other.ref().sandboxId();
        assertThat(sh(sandbox, "cat /workspace/secret.txt 2>&1").out()).contains("No such file");
        assertThat(sh(sandbox, "find / -xdev -name secret.txt 2>/dev/null; find /workspace /tmp -name secret.txt").out()).isEmpty();
        assertThat(sh(sandbox, "ls " + env.dataDir + "/sandboxes/" + id + " 2>&1; echo rc=$?").out()).contains("rc=2");
    }

    @Test
    void onlyLoopbackNetwork() {
        String dev = sh(sandbox, "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '").out().trim();
        assertThat(dev).isEqualTo("lo");
    }

    @Test
    void runsAsAnUnprivilegedUidWithoutCapabilities() {
        int uid = Integer.parseInt(sh(sandbox, "id -u").out().trim());
        assertThat(uid).isGreaterThanOrEqualTo(BwrapConfig.DEFAULT_UID_BASE);
        assertThat(sh(sandbox, "grep -E '^Cap(Eff|Prm|Bnd|Amb):' /proc/self/status").out())
                .contains("CapEff:\t0000000000000000").contains("CapPrm:\t0000000000000000").contains("CapBnd:\t0000000000000000");
        assertThat(sh(sandbox, "grep NoNewPrivs /proc/self/status").out()).contains("1");
        assertThat(sh(sandbox, "unshare -U true 2>&1; echo rc=$?").out()).doesNotContain("rc=0");
    }

    @Test
    void sandboxProcessesCannotReachInit() {
        // the socket lives outside the sandbox; init's fds and memory are off limits; no fd is inherited
        assertThat(sh(sandbox, "find / -type s 2>/dev/null | grep -v '^/proc' | head -5").out()).isEmpty();
        assertThat(sh(sandbox, "ls /proc/1/fd 2>&1; echo rc=$?").out()).contains("rc=2").contains("Permission denied");
        assertThat(sh(sandbox, "ls /proc/self/fd | tr '\\n' ' '").out().trim()).isEqualTo("0 1 2 3");
        assertThat(sh(sandbox, "kill -9 1; echo rc=$?").out()).isNotEmpty();
        assertThat(sh(sandbox, "echo still-here").out()).isEqualTo("still-here\n");
    }

    @Test
    void forkBombStopsAtThePidsLimit() {
        Sandbox bomb = env.create(new SandboxSpec(TestSandboxes.newId(), "t", null, false, new Limits(256L << 20, 64, 1.0), Map.of(), NetworkPolicy.NONE));
        var r = TestSandboxes.run(bomb, ExecRequest.shell("for i in $(seq 200); do sleep 30 & done").withTimeout(Duration.ofSeconds(10)));
        assertThat(r.err()).contains("fork");
        assertThat(bomb.inspect().pids()).isBetween(1, 64);
        assertThat(sh(sandbox, "echo fine").out()).isEqualTo("fine\n");
    }

    @Test
    void memoryHogIsOomKilledWhileOthersKeepWorking() {
        Sandbox hog = env.create(new SandboxSpec(TestSandboxes.newId(), "t", null, false, new Limits(32L << 20, 64, 1.0), Map.of(), NetworkPolicy.NONE));
        var r = TestSandboxes.run(hog, ExecRequest.of("python3", "-c", "b=[]\nwhile True: b.append(bytearray(1<<20))").withTimeout(Duration.ofSeconds(30)));
        if (r.err().contains("cannot run python3")) {
            r = TestSandboxes.run(hog, ExecRequest.shell("x=a; while :; do x=$x$x; done").withTimeout(Duration.ofSeconds(30)));
        }
        assertThat(r.result().oomKilled()).isTrue();
        assertThat(r.result().signal()).isEqualTo(9);
        assertThat(hog.inspect().oomKills()).isPositive();
        assertThat(sh(hog, "echo survived").out()).isEqualTo("survived\n");
        assertThat(sh(sandbox, "echo fine").out()).isEqualTo("fine\n");
    }

    @Test
    void etcHoldsTheSandboxUserAndWhatCommonToolsNeedButNoHostSecrets() {
        var r = sh(sandbox, "id -un; whoami; ls /workspace >/dev/null && echo ls-ok; python3 -c 'print(6*7)';"
                + " perl -e 'print \"perl-ok\\n\"'; awk 'BEGIN{print \"awk-ok\"}'; getent hosts localhost | head -1;"
                + " test -e /etc/shadow || echo no-shadow; test -e /etc/ssh || echo no-ssh; test -r /etc/ssl/certs/ca-certificates.crt && echo certs;"
                + " grep -c . /etc/passwd");
        assertThat(r.out()).as(r.err()).startsWith("sandbox\nsandbox\nls-ok\n42\nperl-ok\nawk-ok\n")
                .contains("localhost").contains("no-shadow\nno-ssh\ncerts\n").endsWith("3\n");
    }
}
