package dev.paddock.driver.gvisor;

import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.ExecResult;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.MemoryCheckpoints;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.TerminationReason;
import dev.paddock.core.spi.Workspace;
import dev.paddock.core.testing.Prerequisites;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The gVisor driver against real runsc: a sandbox's shape inside, its limits, and process-memory checkpoints. */
@Tag("gvisor")
class GvisorDriverTest {
    private static final Fence FENCE = new Fence("host-test", 1);
    private Path dataDir;
    private GvisorDriver driver;
    private final List<Sandbox> started = new ArrayList<>();

    @BeforeEach
    void setUp() throws IOException {
        dataDir = Files.createTempDirectory(Path.of("/tmp"), "gvt");
        List<String> problems = GvisorDriver.checkHost(GvisorConfig.defaults(dataDir));
        Prerequisites.require(problems.isEmpty(), () -> "gVisor cannot run here: " + problems);
        driver = new GvisorDriver(GvisorConfig.defaults(dataDir));
    }

    @AfterEach
    void tearDown() throws IOException {
        for (Sandbox s : started) {
            try {
                s.terminate(TerminationReason.USER_REQUEST);
            } catch (RuntimeException ignored) {
                // ended by the test
            }
        }
        if (driver != null) driver.close();
        try (Stream<Path> tree = Files.walk(dataDir)) {
            for (Path p : tree.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
    }

    private Sandbox create(String id) {
        Sandbox s = driver.create(SandboxSpec.defaults(id, "tenant_test"), FENCE);
        started.add(s);
        return s;
    }

    @Test
    void commandsRunAsTheSandboxUserInsideGvisorWithTheWorkspaceOnTheHost() throws Exception {
        Sandbox s = create("shape");

        String out = shell(s, "id -u; pwd; echo made > made.txt; dmesg | head -1");

        assertThat(out.lines().toList()).startsWith(String.valueOf(OciBundle.SANDBOX_UID), "/workspace");
        assertThat(out).as("the kernel's log is gVisor's").contains("gVisor");
        assertThat(Files.readString(dataDir.resolve("gvisor/sandboxes/shape/workspace/made.txt"))).isEqualTo("made\n");
    }

    @Test
    void aMemoryLimitBelowWhatGvisorNeedsIsRefused() {
        assertThatThrownBy(() -> driver.limits(new Limits(64L << 20, 64, 1.0)))
                .isInstanceOf(PaddockException.class)
                .satisfies(e -> assertThat(((PaddockException) e).code()).isEqualTo("memory_limit_unavailable"));
    }

    @Test
    void anImageRootIsReadOnlyUnlessWritableAndThenTheImageItselfIsNotChanged() throws Exception {
        Path rootfs = dataDir.resolve("images/tiny/rootfs");
        for (String d : List.of("bin", "etc", "workspace", "proc", "dev", "tmp", "mnt")) Files.createDirectories(rootfs.resolve(d));
        Files.copy(Path.of("/bin/busybox"), rootfs.resolve("bin/busybox"));
        Files.createSymbolicLink(rootfs.resolve("bin/sh"), Path.of("busybox"));
        // open to every user, so only the root's own mode decides whether the sandbox user may write
        Files.createDirectories(rootfs.resolve("shared"));
        Files.setPosixFilePermissions(rootfs.resolve("shared"), PosixFilePermissions.fromString("rwxrwxrwx"));
        String write = "echo changed > /shared/mark 2>/dev/null && read v < /shared/mark && echo $v || echo refused";

        Sandbox readOnly = driver.create(new SandboxSpec("tinyro", "tenant_test", "tiny", false, Limits.DEFAULT, Map.of(), NetworkPolicy.NONE), FENCE);
        started.add(readOnly);
        assertThat(shell(readOnly, write)).isEqualTo("refused\n");

        Sandbox writable = driver.create(new SandboxSpec("tinyrw", "tenant_test", "tiny", true, Limits.DEFAULT, Map.of(), NetworkPolicy.NONE), FENCE);
        started.add(writable);
        assertThat(shell(writable, write)).isEqualTo("changed\n");
        assertThat(rootfs.resolve("shared/mark")).as("the image on the host").doesNotExist();
        assertThat(shell(writable, "echo kept > /workspace/f; read v < /workspace/f; echo $v")).isEqualTo("kept\n");
    }

    @Test
    void aSuspendedSandboxIsFoundSuspendedByARestartedHostAndResumes() throws Exception {
        Sandbox s = create("sleepy");
        s.suspend();

        Sandbox attached = new GvisorDriver(GvisorConfig.defaults(dataDir)).attach(s.ref()).orElseThrow();

        assertThat(attached.inspect().frozen()).isTrue();
        assertThatThrownBy(() -> attached.exec(ExecRequest.of("true"), ExecOutput.DISCARD)).isInstanceOf(PaddockException.class)
                .satisfies(e -> assertThat(((PaddockException) e).code()).isEqualTo("sandbox_not_running"));
        attached.resume();
        assertThat(shell(attached, "echo awake")).isEqualTo("awake\n");
        assertThat(attached.inspect().frozen()).isFalse();
    }

    @Test
    void whatRunscLeftRunningInTheContainersCgroupsIsKilledAndTheCgroupsGoAtItsEnd() throws Exception {
        // as a runsc run killed at the start timeout leaves them: processes in the container's cgroups, no container
        // (v1's pids and freezer hierarchies, or v2's: a new cpuset cgroup takes no process before its cpus are set)
        List<Path> dirs = new ArrayList<>();
        for (Path mount : ContainerCgroups.cgroupMounts()) {
            if (!List.of("pids", "freezer", "cgroup").contains(mount.getFileName().toString())) continue;
            dirs.add(Files.createDirectories(mount.resolve(OciBundle.cgroupsPath("leftover").substring(1))));
        }
        assertThat(dirs).as("cgroup mounts").isNotEmpty();
        Process stray = new ProcessBuilder("sleep", "1000").start();
        try {
            for (Path d : dirs) Files.writeString(d.resolve("cgroup.procs"), Long.toString(stray.pid()));

            driver.destroy(new dev.paddock.core.spi.SandboxRef("leftover", GvisorDriver.ID, null));

            assertThat(stray.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)).as("the stray process was killed").isTrue();
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(dirs).noneMatch(Files::exists));
        } finally {
            stray.destroyForcibly().waitFor(5, java.util.concurrent.TimeUnit.SECONDS);
            for (Path d : dirs) Files.deleteIfExists(d);
        }
    }

    @Test
    void kvmIsTheDefaultOnlyWhereTheCpuVirtualizes() throws IOException {
        Path cpuinfo = dataDir.resolve("cpuinfo");
        Files.writeString(cpuinfo, "processor\t: 0\nflags\t\t: fpu vme sse2 hypervisor\n");
        assertThat(GvisorConfig.cpuVirtualizes(cpuinfo)).isFalse();
        Files.writeString(cpuinfo, "processor\t: 0\nflags\t\t: fpu vme vmx sse2\n");
        assertThat(GvisorConfig.cpuVirtualizes(cpuinfo)).isTrue();
        Files.writeString(cpuinfo, "flags\t\t: fpu svm\n");
        assertThat(GvisorConfig.cpuVirtualizes(cpuinfo)).isTrue();
        assertThat(GvisorConfig.cpuVirtualizes(dataDir.resolve("missing"))).isFalse();
    }

    @Test
    void moreCpusThanTheHostHasAreRefusedAndAllOfThemAreGiven() {
        int host = Runtime.getRuntime().availableProcessors();
        assertThatThrownBy(() -> driver.limits(new Limits(256L << 20, 64, host + 0.5)))
                .isInstanceOf(PaddockException.class).hasMessageContaining(host + " CPUs of this host")
                .satisfies(e -> assertThat(((PaddockException) e).code()).isEqualTo("cpus_limit_unavailable"));
        assertThat(driver.limits(new Limits(256L << 20, 64, host)).cpus()).isEqualTo(host);
    }

    @Test
    void aDiskLimitIsRefusedBeforeAnythingIsMade() {
        assertThatThrownBy(() -> driver.limits(new Limits(256L << 20, 64, 1.0, 64L << 20)))
                .isInstanceOf(PaddockException.class)
                .satisfies(e -> assertThat(((PaddockException) e).code()).isEqualTo("disk_quota_unavailable"));
    }

    @Test
    void theMemoryLimitBoundsTheSandbox() throws Exception {
        Sandbox s = driver.create(new SandboxSpec("capped", "tenant_test", null, false, new Limits(192L << 20, 64, 1.0), Map.of(), NetworkPolicy.NONE), FENCE);
        started.add(s);
        // gVisor's kernel reports the limit as the machine's memory
        assertThat(Long.parseLong(shell(s, "awk '/MemTotal/ {print $2}' /proc/meminfo").trim()) * 1024).isLessThanOrEqualTo(192L << 20);
    }

    @Test
    void thePidsLimitBoundsTheProcessesOfTheSandbox() throws Exception {
        Sandbox s = driver.create(new SandboxSpec("fewpids", "tenant_test", null, false, new Limits(256L << 20, 32, 1.0), Map.of(), NetworkPolicy.NONE), FENCE);
        started.add(s);

        ByteArrayOutputStream err = new ByteArrayOutputStream();
        ExecResult bomb = s.exec(ExecRequest.shell("for i in $(seq 300); do sleep 2 & done; wait"), new ExecOutput() {
            @Override public void stdout(byte[] d, int o, int l) { }
            @Override public void stderr(byte[] d, int o, int l) { synchronized (err) { err.write(d, o, l); } }
        }).await();

        assertThat(bomb.exitCode()).as("the shell could not start 300 processes").isNotZero();
        synchronized (err) {
            assertThat(err.toString(StandardCharsets.UTF_8)).containsIgnoringCase("fork");
        }
        await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> shell(s, "echo alive").equals("alive\n"));
    }

    @Test
    void aCheckpointInPlaceBringsBackARunningCounterAtItsSavedValue() throws Exception {
        Sandbox s = create("mem1");
        MemoryCheckpoints memory = driver.memoryCheckpoints().orElseThrow();
        s.startProcess(ExecRequest.shell("i=0; while true; do i=$((i+1)); echo $i > counter; sleep 0.05; done"));
        await().atMost(Duration.ofSeconds(20)).until(() -> counter(s.workspace()) > 3);
        Path image = Files.createDirectories(dataDir.resolve("images-saved/mem1"));

        memory.checkpoint(s, image, false);
        long saved = counter(s.workspace());
        assertThat(s.inspect().alive()).isFalse();
        Thread.sleep(300);
        assertThat(counter(s.workspace())).as("nothing counts while saved").isEqualTo(saved);

        Sandbox back = memory.restore(SandboxSpec.defaults("mem1", "tenant_test"), FENCE, image);
        started.add(back);
        await().atMost(Duration.ofSeconds(20)).until(() -> counter(back.workspace()) > saved + 2);
        assertThat(shell(back, "echo served")).isEqualTo("served\n");
    }

    @Test
    void aCheckpointThatLeavesTheSandboxRunningKeepsItServingAndCountingOn() throws Exception {
        Sandbox s = create("mem2");
        MemoryCheckpoints memory = driver.memoryCheckpoints().orElseThrow();
        s.startProcess(ExecRequest.shell("i=0; while true; do i=$((i+1)); echo $i > counter; sleep 0.05; done"));
        await().atMost(Duration.ofSeconds(20)).until(() -> counter(s.workspace()) > 3);
        s.suspend();

        memory.checkpoint(s, Files.createDirectories(dataDir.resolve("images-saved/mem2")), true);

        assertThat(s.inspect().frozen()).as("a suspended sandbox stays suspended").isTrue();
        s.resume();
        long after = counter(s.workspace());
        await().atMost(Duration.ofSeconds(20)).until(() -> counter(s.workspace()) > after);
        assertThat(shell(s, "echo still")).isEqualTo("still\n");
        assertThat(dataDir.resolve("images-saved/mem2/checkpoint.img")).isNotEmptyFile();
    }

    private static long counter(Workspace ws) {
        try (InputStream in = ws.read("counter")) {
            String v = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
            return v.isEmpty() ? 0 : Long.parseLong(v);
        } catch (PaddockException | IOException | NumberFormatException e) {
            return 0;
        }
    }

    static String shell(Sandbox s, String line) throws InterruptedException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ExecOutput output = new ExecOutput() {
            @Override public void stdout(byte[] d, int o, int l) { synchronized (out) { out.write(d, o, l); } }
            @Override public void stderr(byte[] d, int o, int l) { }
        };
        ExecResult r = s.exec(ExecRequest.shell(line), output).await();
        assertThat(r.exitCode()).as(line).isZero();
        synchronized (out) {
            return out.toString(StandardCharsets.UTF_8);
        }
    }
}
