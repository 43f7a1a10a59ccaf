package dev.paddock.driver.bwrap;

import static dev.paddock.driver.bwrap.TestSandboxes.sh;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.CapacityExhaustedException;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.init.InitBinary;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The start handshake: launcher, bwrap and init agree on when a sandbox serves, without a ping or polling. */
@Tag("bwrap")
class BwrapStartupTest {
    TestSandboxes env;

    @BeforeEach
    void start() throws Exception {
        env = new TestSandboxes();
    }

    @AfterEach
    void stop() throws Exception {
        env.close();
    }

    @Test
    void initIsTheOnlyMemberOfTheSandboxCgroupsOnceCreateReturns() throws Exception {
        Sandbox s = env.create();
        String id = s.ref().sandboxId();
        long init = Long.parseLong(Files.readString(env.dataDir.resolve("run/" + id + "/init.pid")).trim());
        assertThat(new String(Files.readAllBytes(Path.of("/proc/" + init + "/cmdline")))).as("the pid file names init").startsWith("/dev/.paddock/init\0serve");
        List<String> lines = Files.readAllLines(Path.of("/proc/" + init + "/cgroup"));
        for (String controller : List.of("memory", "pids", "cpu", "freezer")) {
            assertThat(lines).as("init in %s", controller)
                    .anyMatch(l -> List.of(l.split(":", 3)[1].split(",")).contains(controller) && l.endsWith("/paddock/" + id));
        }
        Path freezer = cgroupDir("freezer", id);
        // bwrap's outer process (in these cgroups too) was killed once init served; the launcher and its helpers are gone
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(pids(freezer)).as("nothing but init is left in the sandbox's cgroups").containsExactly(init));
        assertThat(sh(s, "echo served").out()).isEqualTo("served\n");
    }

    @Test
    void aBwrapThatFailsIsReportedWithItsOwnWordsAndLeavesNothingBehind() throws Exception {
        Path fake = env.dataDir.resolve("fake-bwrap");
        Files.writeString(fake, "#!/bin/sh\n[ \"$1\" = --help ] && exit 0\necho 'bwrap: cannot do that here' >&2\nexit 1\n");
        Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwxr-xr-x"));
        BwrapConfig defaults = BwrapConfig.defaults(env.dataDir);
        BwrapDriver broken = new BwrapDriver(new BwrapConfig(env.dataDir, defaults.uidBase(), defaults.uidCount(), fake, null, null));
        String id = TestSandboxes.newId();

        assertThatThrownBy(() -> broken.create(SandboxSpec.defaults(id, "t"), TestSandboxes.FENCE))
                .isInstanceOf(PaddockException.class)
                .hasMessageContaining("cannot do that here")
                .extracting(e -> ((PaddockException) e).code()).isEqualTo("sandbox_start_failed");
        assertThat(env.dataDir.resolve("run/" + id)).doesNotExist();
        assertThat(cgroupDir("freezer", id)).doesNotExist();
        try (Stream<Path> claims = Files.list(env.dataDir.resolve("uids"))) {
            assertThat(claims).as("the uid was given back").isEmpty();
        }
    }

    @Test
    void aForkRefusedForLackOfRoomIsTheHostAtCapacityNotAFailedStart() throws Exception {
        BwrapDriver full = driverWithBwrap("echo 'bwrap: Creating new namespace failed: Resource temporarily unavailable' >&2\nexit 1", null);
        String id = TestSandboxes.newId();

        assertThatThrownBy(() -> full.create(SandboxSpec.defaults(id, "t"), TestSandboxes.FENCE))
                .isInstanceOf(CapacityExhaustedException.class)
                .hasMessageContaining("Resource temporarily unavailable").hasMessageContaining("kernel.pid_max")
                .extracting(e -> ((PaddockException) e).code()).isEqualTo("host_at_capacity");
        assertThat(env.dataDir.resolve("run/" + id)).doesNotExist();
        assertThat(cgroupDir("freezer", id)).doesNotExist();
    }

    @Test
    void aSandboxThatDoesNotComeUpInTimeAnswersATimeoutToRetryAndLeavesNothingBehind() throws Exception {
        BwrapDriver slow = driverWithBwrap("exec sleep 30", Duration.ofMillis(300));
        String id = TestSandboxes.newId();

        assertThatThrownBy(() -> slow.create(SandboxSpec.defaults(id, "t"), TestSandboxes.FENCE))
                .isInstanceOf(PaddockException.class)
                .hasMessageContaining("did not come up within 300 ms")
                .extracting(e -> ((PaddockException) e).code()).isEqualTo("sandbox_start_timeout");
        assertThat(ErrorCode.SANDBOX_START_TIMEOUT.httpStatus()).as("a client retries it").isEqualTo(503);
        assertThat(env.dataDir.resolve("run/" + id)).doesNotExist();
        assertThat(cgroupDir("freezer", id)).doesNotExist();
    }

    /** A driver whose bwrap is a shell script running {@code body} (it answers --help, which the driver asks at start). */
    private BwrapDriver driverWithBwrap(String body, Duration startTimeout) throws Exception {
        Path fake = env.dataDir.resolve("fake-bwrap");
        Files.writeString(fake, "#!/bin/sh\n[ \"$1\" = --help ] && exit 0\n" + body + "\n");
        Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwxr-xr-x"));
        BwrapConfig defaults = BwrapConfig.defaults(env.dataDir);
        return new BwrapDriver(new BwrapConfig(env.dataDir, defaults.uidBase(), defaults.uidCount(), fake, null, startTimeout));
    }

    @Test
    void initReportsOnItsReadinessPipeOnlyOnceItIsSetUp() throws Exception {
        Path init = InitBinary.install(env.dataDir.resolve("bin"));
        // fd 4 is the pipe the launcher waits on; init closes it after the one byte, so the reader sees '+' then EOF
        Process p = new ProcessBuilder("/bin/sh", "-c", "exec \"$0\" serve 4 3</dev/null 4>&1 >/dev/null", init.toString()).start();
        try {
            assertThat(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("+");
            assertThat(p.isAlive()).as("init keeps serving after it reported").isTrue();
        } finally {
            p.destroyForcibly().waitFor();
        }
        Process refused = new ProcessBuilder(init.toString(), "serve", "5").start();
        assertThat(refused.waitFor()).isEqualTo(1);
        assertThat(new String(refused.getErrorStream().readAllBytes(), StandardCharsets.UTF_8)).contains("readiness pipe at fd 4");
    }

    private static Path cgroupDir(String controller, String id) throws Exception {
        for (int attempt = 1; ; attempt++) {
            try (Stream<Path> found = Files.find(Path.of("/sys/fs/cgroup/" + controller), 8, (p, a) -> a.isDirectory() && p.getFileName().toString().equals(id))) {
                return found.findFirst().orElse(Path.of("/sys/fs/cgroup/" + controller + "/paddock/" + id));
            } catch (UncheckedIOException e) {
                // another sandbox's cgroup went away in the middle of the walk (other sandboxes on this host): walk again
                if (!(e.getCause() instanceof NoSuchFileException) || attempt == 5) throw e;
            }
        }
    }

    private static Set<Long> pids(Path cgroup) throws Exception {
        return Files.readAllLines(cgroup.resolve("cgroup.procs")).stream().filter(l -> !l.isBlank()).map(Long::parseLong).collect(Collectors.toSet());
    }
}
