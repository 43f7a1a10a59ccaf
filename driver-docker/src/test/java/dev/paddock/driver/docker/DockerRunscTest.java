package dev.paddock.driver.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.TerminationReason;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The docker driver with gVisor's runsc as the OCI runtime: the same sandbox, a user-space kernel under it. */
@Tag("docker")
class DockerRunscTest {
    DockerTestSandboxes t;

    @BeforeEach
    void setUp() throws Exception {
        t = new DockerTestSandboxes("runsc");
    }

    @AfterEach
    void tearDown() throws Exception {
        if (t != null) t.close();
    }

    @Test
    void commandsRunUnderGvisorAsTheSandboxUid() throws Exception {
        Sandbox s = t.create();

        DockerTestSandboxes.Run run = DockerTestSandboxes.sh(s, "id -u; dmesg 2>/dev/null | head -1 | grep -c gVisor; echo hi > made.txt");

        assertThat(run.out()).as(run.err()).isEqualTo(DockerConfig.DEFAULT_UID + "\n1\n");
        assertThat(new String(s.workspace().read("made.txt").readAllBytes())).isEqualTo("hi\n");
    }

    @Test
    void aSuspendedSandboxCanBeTerminated() throws Exception {
        Sandbox s = t.create();
        s.suspend();
        assertThat(s.inspect().frozen()).isTrue();

        s.terminate(TerminationReason.USER_REQUEST);

        assertThat(t.driver.engine().inspect(t.driver.containerName(s.ref().sandboxId()))).as("the container is removed").isEmpty();
    }

    /** gVisor's kernel is in the container's memory cgroup: an overrun ends the whole sandbox, not one process. */
    @Test
    void aMemoryOverrunEndsTheSandbox() throws Exception {
        Sandbox s = t.create(new SandboxSpec(DockerTestSandboxes.newId(), "tenant", null, false, new Limits(96L << 20, 64, 1.0), Map.of(), NetworkPolicy.NONE));

        try {
            DockerTestSandboxes.Run hog = DockerTestSandboxes.run(s, ExecRequest.of("python3", "-c",
                    "b = bytearray(512 << 20); b[::4096] = b'x' * len(b[::4096]); print('allocated')").withTimeout(Duration.ofSeconds(60)));
            assertThat(hog.out()).doesNotContain("allocated");
            assertThat(hog.exit()).isNotZero();
        } catch (PaddockException ended) {
            assertThat(ended.getMessage()).contains("ended");
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> !s.inspect().alive());
    }

    @Test
    void thePidsLimitStopsAForkFloodInsideGvisor() throws Exception {
        Sandbox s = t.create(new SandboxSpec(DockerTestSandboxes.newId(), "tenant", null, false, new Limits(256L << 20, 16, 1.0), Map.of(), NetworkPolicy.NONE));

        DockerTestSandboxes.Run flood = DockerTestSandboxes.sh(s, "for i in $(seq 40); do sleep 30 & done; echo started");

        assertThat(flood.err()).as("forks beyond the limit fail").containsIgnoringCase("fork");
        assertThat(s.inspect().alive()).as("the sandbox itself lives on").isTrue();
    }
}
