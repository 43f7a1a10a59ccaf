package dev.paddock.driver.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.PaddockException;
import dev.paddock.core.images.ImageLayout;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxRef;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.TerminationReason;
import dev.paddock.core.spi.ExecOutput;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The docker driver against the real engine at $DOCKER_HOST (runc). */
@Tag("docker")
class DockerDriverTest {
    DockerTestSandboxes t;

    @BeforeEach
    void setUp() throws Exception {
        t = new DockerTestSandboxes();
    }

    @AfterEach
    void tearDown() throws Exception {
        if (t != null) t.close();
    }

    @Test
    void aRestartedDriverListsAndReattachesTheRunningContainer() throws Exception {
        Sandbox s = t.create();
        DockerTestSandboxes.sh(s, "echo before > mark.txt");

        try (DockerDriver restarted = new DockerDriver(DockerConfig.defaults(t.dataDir))) {
            assertThat(restarted.list()).extracting(SandboxRef::sandboxId).contains(s.ref().sandboxId());
            Sandbox again = restarted.attach(s.ref()).orElseThrow();
            assertThat(DockerTestSandboxes.sh(again, "cat mark.txt; id -u").out()).isEqualTo("before\n" + DockerConfig.DEFAULT_UID + "\n");
        }
    }

    @Test
    void aSuspendedSandboxIsReattachedFrozenAndResumes() throws Exception {
        Sandbox s = t.create();
        s.suspend();
        assertThat(s.inspect().frozen()).isTrue();
        assertThatThrownBy(() -> s.exec(ExecRequest.of("true"), ExecOutput.DISCARD))
                .isInstanceOf(PaddockException.class).hasMessageContaining("suspended");

        try (DockerDriver restarted = new DockerDriver(DockerConfig.defaults(t.dataDir))) {
            Sandbox again = restarted.attach(s.ref()).orElseThrow();
            assertThat(again.inspect().frozen()).isTrue();
            again.resume();
            assertThat(DockerTestSandboxes.sh(again, "echo thawed").out()).isEqualTo("thawed\n");
        }
    }

    @Test
    void aSuspendedSandboxCanBeTerminated() throws Exception {
        Sandbox s = t.create();
        s.suspend();

        s.terminate(TerminationReason.USER_REQUEST);

        assertThat(t.driver.engine().inspect(t.driver.containerName(s.ref().sandboxId()))).as("the container is removed").isEmpty();
        assertThat(s.inspect().alive()).isFalse();
    }

    @Test
    void anOrphanIsListedAndDestroyedKeepingItsWorkspace() throws Exception {
        Sandbox s = t.create();
        DockerTestSandboxes.sh(s, "echo kept > kept.txt");
        String container = t.driver.containerName(s.ref().sandboxId());

        try (DockerDriver restarted = new DockerDriver(DockerConfig.defaults(t.dataDir))) {
            SandboxRef orphan = restarted.list().stream().filter(r -> r.sandboxId().equals(s.ref().sandboxId())).findFirst().orElseThrow();
            restarted.destroy(orphan);

            assertThat(t.driver.engine().inspect(container)).as("the container is gone").isEmpty();
            assertThat(restarted.list()).extracting(SandboxRef::sandboxId).doesNotContain(s.ref().sandboxId());
            assertThat(restarted.attach(orphan)).isEmpty();
            assertThat(new String(restarted.workspace(orphan).orElseThrow().read("kept.txt").readAllBytes())).isEqualTo("kept\n");
        }
    }

    @Test
    void driversOnOtherDataDirectoriesDoNotSeeEachOthersContainers() throws Exception {
        Sandbox s = t.create();
        try (DockerTestSandboxes other = new DockerTestSandboxes()) {
            assertThat(other.driver.list()).extracting(SandboxRef::sandboxId).doesNotContain(s.ref().sandboxId());
            assertThat(other.driver.attach(s.ref())).isEmpty();
        }
    }

    @Test
    void anotherDriversSandboxesOnTheSameDataDirectoryAreNotListed() throws Exception {
        Files.createDirectories(t.dataDir.resolve("run").resolve("bwrap-sandbox"));
        Sandbox s = t.create();

        assertThat(t.driver.list()).extracting(SandboxRef::sandboxId).containsExactly(s.ref().sandboxId());
    }

    @Test
    void anUnknownRuntimeIsRefusedUpFrontWithItsName() {
        DockerConfig config = DockerConfig.defaults(t.dataDir).withRuntime("no-such-runtime");

        assertThat(DockerDriver.checkHost(config)).anyMatch(p -> p.contains("no OCI runtime 'no-such-runtime'") && p.contains("runc"));
        assertThatThrownBy(() -> new DockerDriver(config)).isInstanceOf(PaddockException.class)
                .satisfies(e -> assertThat(((PaddockException) e).code()).isEqualTo("driver_unavailable"))
                .hasMessageContaining("no-such-runtime");
    }

    @Test
    void noEngineAtTheSocketIsAClearReason() {
        DockerConfig config = new DockerConfig(t.dataDir, "unix://" + t.dataDir.resolve("no-engine.sock"), "runc", DockerConfig.DEFAULT_UID, null);

        assertThat(DockerDriver.checkHost(config)).anyMatch(p -> p.startsWith("no Docker engine answers at unix://" + t.dataDir.resolve("no-engine.sock")));
    }

    @Test
    void theSandboxRunsUnprivilegedOnAReadOnlyRootWithoutNetwork() throws Exception {
        Sandbox s = t.create();
        DockerTestSandboxes.Run status = DockerTestSandboxes.sh(s, "grep -E '^(CapEff|CapBnd|NoNewPrivs|Seccomp):' /proc/self/status");
        assertThat(status.out()).contains("CapEff:\t0000000000000000", "CapBnd:\t0000000000000000").containsPattern("NoNewPrivs:\\s+1")
                .containsPattern("Seccomp:\\s+2");

        assertThat(DockerTestSandboxes.sh(s, "touch /usr/x").exit()).as("host /usr is read-only").isNotZero();
        assertThat(DockerTestSandboxes.sh(s, "touch /root-file").exit()).as("the root is read-only").isNotZero();
        assertThat(DockerTestSandboxes.sh(s, "touch /tmp/ok").exit()).as("/tmp is writable").isZero();

        DockerTestSandboxes.Run direct = DockerTestSandboxes.run(s, ExecRequest.of("python3", "-c",
                "import socket\ntry:\n socket.create_connection(('1.1.1.1', 80), 5)\n print('CONNECTED')\nexcept OSError as e:\n print('refused', e)"));
        assertThat(direct.out()).startsWith("refused");
        assertThat(DockerTestSandboxes.sh(s, "cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' '").out().trim()).isEqualTo("lo");
    }

    @Test
    void theMemoryLimitKillsAnOverrun() throws Exception {
        Sandbox s = t.create(new SandboxSpec(DockerTestSandboxes.newId(), "tenant", null, false, new Limits(64L << 20, 64, 1.0), Map.of(), NetworkPolicy.NONE));

        DockerTestSandboxes.Run hog = DockerTestSandboxes.run(s, ExecRequest.of("python3", "-c", "b = bytearray(256 << 20); print('allocated')")
                .withTimeout(Duration.ofSeconds(60)));

        assertThat(hog.out()).doesNotContain("allocated");
        assertThat(hog.exit()).isNotZero();
        assertThat(hog.result().oomKilled()).as("reported as killed for memory").isTrue();
        assertThat(DockerTestSandboxes.sh(s, "echo alive").out()).as("init survives").isEqualTo("alive\n");
    }

    @Test
    void thePidsLimitStopsAForkFlood() throws Exception {
        Sandbox s = t.create(new SandboxSpec(DockerTestSandboxes.newId(), "tenant", null, false, new Limits(256L << 20, 16, 1.0), Map.of(), NetworkPolicy.NONE));

        DockerTestSandboxes.Run flood = DockerTestSandboxes.sh(s, "for i in $(seq 40); do sleep 30 & done; echo started");

        assertThat(flood.err()).as("forks beyond the limit fail").containsIgnoringCase("fork");
        assertThat(s.inspect().pids()).as("processes in the container").isBetween(1, 16);
    }

    @Test
    void limitsTheEngineCannotEnforceAreRefused() {
        assertThatThrownBy(() -> t.driver.limits(Limits.DEFAULT.withDisk(64L << 20))).isInstanceOf(PaddockException.class)
                .satisfies(e -> assertThat(((PaddockException) e).code()).isEqualTo("disk_quota_unavailable"));
        assertThatThrownBy(() -> t.driver.limits(new Limits(256L << 20, 64, 4096))).isInstanceOf(PaddockException.class)
                .satisfies(e -> assertThat(((PaddockException) e).code()).isEqualTo("cpus_limit_unavailable"));
    }

    @Test
    void aPaddockImageIsImportedOnceAndRunsAsTheRoot() throws Exception {
        Path rootfs = ImageLayout.inDataDir(t.dataDir).rootfs("busybox-test");
        BusyboxRootfs.write(rootfs);
        String tag = RootImages.ROOTFS_REPO + ":" + RootImages.fingerprint(rootfs);
        try {
            Sandbox s = t.create(new SandboxSpec(DockerTestSandboxes.newId(), "tenant", "busybox-test", false, null, Map.of(), NetworkPolicy.NONE));
            assertThat(DockerTestSandboxes.sh(s, "cat /etc/image-name; ls /usr/bin | wc -l").out()).isEqualTo("busybox-test\n0\n");
            assertThat(t.driver.engine().image(tag)).as("imported under its fingerprint").isPresent();

            // the imported image is also a local engine image: any such image runs, here with a writable root
            Sandbox local = t.create(new SandboxSpec(DockerTestSandboxes.newId(), "tenant", tag, true, null, Map.of(), NetworkPolicy.NONE));
            assertThat(DockerTestSandboxes.sh(local, "echo changed > /scratch/note && cat /scratch/note").out()).isEqualTo("changed\n");
            assertThat(DockerTestSandboxes.sh(s, "echo x > /scratch/note").exit()).as("a read-only root refuses the same write").isNotZero();
            assertThat(DockerTestSandboxes.sh(s, "ls /scratch").out()).as("other sandboxes keep the image as it was").isEmpty();
        } finally {
            t.close();
            t.driver.engine().removeImage(tag);
            t = null;
        }
    }

    @Test
    void anImageNobodyHasIsNotPulled() {
        assertThatThrownBy(() -> t.create(new SandboxSpec(DockerTestSandboxes.newId(), "tenant", "no-such-image-anywhere", false, null, Map.of(), NetworkPolicy.NONE)))
                .isInstanceOf(PaddockException.class)
                .satisfies(e -> assertThat(((PaddockException) e).code()).isEqualTo("image_not_found"))
                .hasMessageContaining("never pulls");
        assertThat(t.driver.list()).isEmpty();
        assertThat(t.driver.config().stateDir().resolve("run")).as("nothing is left claimed").isEmptyDirectory();
    }

}
