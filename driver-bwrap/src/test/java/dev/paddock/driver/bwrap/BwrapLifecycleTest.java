package dev.paddock.driver.bwrap;

import static dev.paddock.driver.bwrap.TestSandboxes.sh;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.TerminalRequest;
import dev.paddock.core.spi.TerminationReason;
import dev.paddock.core.spi.UnsupportedCapabilityException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("bwrap")
class BwrapLifecycleTest {
    TestSandboxes env;

    @BeforeEach
    void start() throws Exception {
        env = new TestSandboxes();
    }

    @AfterEach
    void stop() throws Exception {
        env.close();
    }

    private static long counter(Sandbox s) {
        return Long.parseLong(sh(s, "cat /tmp/counter").out().trim());
    }

    @Test
    void moreCpusThanTheHostHasAreRefusedAndAllOfThemAreGiven() {
        int host = Runtime.getRuntime().availableProcessors();
        assertThatThrownBy(() -> env.driver.limits(new Limits(256L << 20, 64, host + 0.5)))
                .isInstanceOf(PaddockException.class).hasMessageContaining(host + " CPUs of this host")
                .satisfies(e -> assertThat(((PaddockException) e).code()).isEqualTo("cpus_limit_unavailable"));
        assertThat(env.driver.limits(new Limits(256L << 20, 64, host)).cpus()).isEqualTo(host);
        assertThat(env.driver.limits(null)).isEqualTo(Limits.DEFAULT);
    }

    @Test
    void suspendFreezesAndResumeContinues() throws Exception {
        Sandbox s = env.create();
        s.startProcess(ExecRequest.shell("i=0; while :; do i=$((i+1)); echo $i > /tmp/counter.new; mv /tmp/counter.new /tmp/counter; done"));
        org.awaitility.Awaitility.await().until(() -> Files.exists(Path.of("/proc")) && sh(s, "test -s /tmp/counter && echo y").out().equals("y\n"));
        s.suspend();
        assertThat(s.inspect().frozen()).isTrue();
        assertThatThrownBy(() -> s.exec(ExecRequest.of("true"), null)).isInstanceOf(PaddockException.class)
                .extracting(e -> ((PaddockException) e).code()).isEqualTo("sandbox_not_running");
        Path counterFile = Path.of("/proc").resolve(Long.toString(initPid(s)));
        assertThat(counterFile).exists();
        s.resume();
        long a = counter(s);
        s.suspend();
        long frozenAt = counter(s, true);
        Thread.sleep(300);
        assertThat(counter(s, true)).as("a frozen counter does not advance").isEqualTo(frozenAt);
        s.resume();
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> counter(s) > frozenAt);
        assertThat(frozenAt).isGreaterThanOrEqualTo(a);
    }

    /** Reads the counter through the host's view of the workspace-less /tmp: via /proc/<pid>/root while frozen. */
    private long counter(Sandbox s, boolean fromHost) throws Exception {
        return Long.parseLong(Files.readString(Path.of("/proc/" + initPid(s) + "/root/tmp/counter")).trim());
    }

    private long initPid(Sandbox s) throws Exception {
        return Long.parseLong(Files.readString(env.dataDir.resolve("run").resolve(s.ref().sandboxId()).resolve("init.pid")).trim());
    }

    @Test
    void terminateKillsEverythingRemovesCgroupsAndKeepsTheWorkspace() throws Exception {
        Sandbox s = env.create();
        String id = s.ref().sandboxId();
        sh(s, "echo kept > /workspace/file.txt");
        s.startProcess(ExecRequest.of("sleep", "1000"));
        long init = initPid(s);
        List<Path> cgroupDirs = cgroupDirs(id);
        assertThat(cgroupDirs).isNotEmpty().allMatch(Files::isDirectory);
        s.terminate(TerminationReason.USER_REQUEST);
        assertThat(gone(init)).isTrue();
        assertThat(cgroupDirs).noneMatch(Files::exists);
        assertThat(env.dataDir.resolve("run").resolve(id)).doesNotExist();
        assertThat(Files.readString(env.dataDir.resolve("sandboxes").resolve(id).resolve("workspace/file.txt"))).isEqualTo("kept\n");
        assertThat(env.driver.list()).noneMatch(r -> r.sandboxId().equals(id));
        assertThat(env.driver.attach(s.ref())).isEmpty();
        assertThat(env.driver.workspace(s.ref())).isPresent();
        assertThatThrownBy(() -> s.exec(ExecRequest.of("true"), null)).isInstanceOf(PaddockException.class)
                .extracting(e -> ((PaddockException) e).code()).isEqualTo("sandbox_not_running");
    }

    @Test
    void livenessComesFromTheCgroupSoASlowInitIsNotTakenForADeadOne() throws Exception {
        Sandbox s = env.create();
        assertThat(s.liveness().alive()).isTrue();
        assertThat(s.liveness().frozen()).isFalse();
        s.suspend();
        assertThat(s.liveness().alive()).isTrue();
        assertThat(s.liveness().frozen()).isTrue();
        s.resume();

        // init stopped from the host cannot answer a ping: inspect() says not alive, liveness() still alive
        long init = initPid(s);
        new ProcessBuilder("kill", "-STOP", Long.toString(init)).start().waitFor();
        try {
            assertThat(s.inspect().alive()).as("a ping to a stopped init").isFalse();
            assertThat(s.liveness().alive()).as("its processes are there").isTrue();
        } finally {
            new ProcessBuilder("kill", "-CONT", Long.toString(init)).start().waitFor();
        }
        assertThat(sh(s, "echo back").out()).isEqualTo("back\n");

        // init killed: the kernel ends its pid namespace, the cgroup empties
        new ProcessBuilder("kill", "-KILL", Long.toString(init)).start().waitFor();
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !s.liveness().alive());
        s.terminate(TerminationReason.USER_REQUEST);
        assertThat(s.liveness().alive()).isFalse();
    }

    @Test
    void aStoppedInitIsATimeoutAndWhatTimedOutDoesNotRunWhenItWakes() throws Exception {
        Sandbox s = env.create();
        long init = initPid(s);
        new ProcessBuilder("kill", "-STOP", Long.toString(init)).start().waitFor();
        try {
            ExecRequest late = new ExecRequest(List.of("touch", "/workspace/late-run"), null, null, Duration.ofSeconds(1), null);
            assertThatThrownBy(() -> s.exec(late, null).await()).isInstanceOf(PaddockException.class)
                    .satisfies(e -> assertThat(((PaddockException) e).errorCode()).isEqualTo(ErrorCode.OPERATION_TIMEOUT))
                    .hasMessageContaining("did not start the command").hasMessageContaining("will not start");
            assertThatThrownBy(s::processes).as("a request that init takes but does not answer").isInstanceOf(PaddockException.class)
                    .satisfies(e -> assertThat(((PaddockException) e).errorCode()).isEqualTo(ErrorCode.OPERATION_TIMEOUT))
                    .hasMessageContaining("did not answer within").hasMessageNotContaining("null");
            assertThatThrownBy(() -> s.openTerminal(new TerminalRequest(List.of("touch", "/workspace/late-terminal"), Map.of(), null, 24, 80), null))
                    .as("a terminal is answered once it runs").isInstanceOf(PaddockException.class)
                    .satisfies(e -> assertThat(((PaddockException) e).errorCode()).isEqualTo(ErrorCode.OPERATION_TIMEOUT))
                    .hasMessageContaining("did not start the terminal").hasMessageContaining("will not start");
        } finally {
            new ProcessBuilder("kill", "-CONT", Long.toString(init)).start().waitFor();
        }
        // init, awake, finds the command's caller gone (or its kill queued) and does not start it late
        assertThat(sh(s, "sleep 0.5; ls /workspace | grep late; echo back").out()).isEqualTo("back\n");
    }

    /** Gone, or a zombie waiting for the host's reaper: either way nothing runs any more. */
    private static boolean gone(long pid) throws Exception {
        Path stat = Path.of("/proc/" + pid + "/stat");
        try {
            String s = Files.readString(stat);
            return s.substring(s.lastIndexOf(')') + 2).startsWith("Z");
        } catch (java.nio.file.NoSuchFileException e) {
            return true;
        }
    }

    private static List<Path> cgroupDirs(String id) throws Exception {
        for (int attempt = 1; ; attempt++) {
            try (var found = Files.find(Path.of("/sys/fs/cgroup"), 8, (p, a) -> a.isDirectory() && p.getFileName().toString().equals(id))) {
                return found.toList();
            } catch (java.io.UncheckedIOException e) {
                if (attempt == 20) throw e; // another sandbox's cgroup (of another test or server) went while walking
            }
        }
    }

    @Test
    void reattachAfterTheHostProcessGoesAway() throws Exception {
        Sandbox s = env.create();
        long sleeper = s.startProcess(ExecRequest.of("sleep", "1000")).pid();
        sh(s, "echo before > /workspace/a");
        // the old driver object is simply dropped, as when the JVM dies; nothing is terminated
        env.driver = new BwrapDriver(BwrapConfig.defaults(env.dataDir));
        assertThat(env.driver.list()).anyMatch(r -> r.sandboxId().equals(s.ref().sandboxId()));
        Sandbox again = env.driver.attach(s.ref()).orElseThrow();
        assertThat(sh(again, "cat /workspace/a").out()).isEqualTo("before\n");
        assertThat(again.processes()).anyMatch(p -> p.pid() == sleeper && p.running());
        assertThat(sh(again, "ps -eo pid,comm | grep sleep").out()).contains(Long.toString(sleeper));
    }

    @Test
    void destroyCleansUpASandboxFoundByList() throws Exception {
        Sandbox s = env.create();
        long init = initPid(s);
        env.driver.destroy(s.ref());
        assertThat(gone(init)).isTrue();
        assertThat(env.driver.list()).isEmpty();
        assertThat(cgroupDirs(s.ref().sandboxId())).isEmpty();
    }

    @Test
    void refusesWhatItCannotEnforce() {
        var limited = new SandboxSpec(TestSandboxes.newId(), "t", null, false, null, Map.of(), new NetworkPolicy(NetworkPolicy.Mode.LIMITED, List.of("example.com"), false));
        assertThatThrownBy(() -> env.create(limited)).isInstanceOf(UnsupportedCapabilityException.class).hasMessageContaining("network");
        var missingImage = new SandboxSpec(TestSandboxes.newId(), "t", "no-such-image", false, null, Map.of(), null);
        assertThatThrownBy(() -> env.create(missingImage)).isInstanceOf(PaddockException.class)
                .extracting(e -> ((PaddockException) e).code()).isEqualTo("not_found");
        var badImageName = new SandboxSpec(TestSandboxes.newId(), "t", "../etc", false, null, Map.of(), null);
        assertThatThrownBy(() -> env.create(badImageName)).isInstanceOf(PaddockException.class)
                .extracting(e -> ((PaddockException) e).code()).isEqualTo("invalid_image_name");
        assertThatThrownBy(() -> env.create(SandboxSpec.defaults("../escape", "t"))).isInstanceOf(PaddockException.class)
                .extracting(e -> ((PaddockException) e).code()).isEqualTo("invalid_sandbox_id");
        assertThat(env.driver.list()).isEmpty();
    }

    @Test
    void duplicateIdsAreRefusedWithoutHarmingTheFirst() {
        Sandbox s = env.create();
        assertThatThrownBy(() -> env.create(SandboxSpec.defaults(s.ref().sandboxId(), "t"))).isInstanceOf(PaddockException.class)
                .extracting(e -> ((PaddockException) e).code()).isEqualTo("sandbox_exists");
        assertThat(sh(s, "echo ok").out()).isEqualTo("ok\n");
    }

    @Test
    void eachSandboxGetsItsOwnUid() {
        Sandbox a = env.create(), b = env.create();
        assertThat(sh(a, "id -u").out()).isNotEqualTo(sh(b, "id -u").out());
    }

    @Test
    void imageRootfsIsUsedReadOnly() throws Exception {
        Path rootfs = env.dataDir.resolve("images/mini/rootfs");
        for (String d : List.of("workspace", "proc", "dev", "tmp", "usr", "etc")) Files.createDirectories(rootfs.resolve(d));
        Files.writeString(rootfs.resolve("etc/marker"), "from-image\n");
        // a minimal image: dash and the C library it links against
        for (String f : List.of("/usr/bin/dash", "/lib/x86_64-linux-gnu/libc.so.6", "/lib64/ld-linux-x86-64.so.2")) {
            Path target = rootfs.resolve(f.equals("/usr/bin/dash") ? "bin/sh" : f.substring(1));
            Files.createDirectories(target.getParent());
            Files.copy(Path.of(f), target);
        }
        Runtime.getRuntime().exec(new String[] {"chmod", "-R", "a+rX", env.dataDir.resolve("images").toString()}).waitFor();
        Sandbox s = env.create(new SandboxSpec(TestSandboxes.newId(), "t", "mini", false, null, Map.of(), null));
        var r = TestSandboxes.run(s, ExecRequest.of("/bin/sh", "-c", "read x < /etc/marker; echo $x; echo > /etc/new || echo refused"));
        assertThat(r.out()).as(r.err()).startsWith("from-image\n").contains("refused");
        assertThat(r.err()).contains("Read-only file system");
    }
}
