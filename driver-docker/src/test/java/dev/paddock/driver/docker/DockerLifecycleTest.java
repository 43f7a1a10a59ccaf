package dev.paddock.driver.docker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxRef;
import dev.paddock.core.spi.TerminationReason;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("docker")
class DockerLifecycleTest {
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
    void createExecFilesDelete() throws Exception {
        Sandbox s = t.create();
        DockerTestSandboxes.Run id = DockerTestSandboxes.sh(s, "id -u; pwd; echo hi > made.txt");
        assertThat(id.exit()).as(id.err()).isZero();
        assertThat(id.out()).isEqualTo(DockerConfig.DEFAULT_UID + "\n/workspace\n");
        assertThat(new String(s.workspace().read("made.txt").readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("hi\n");
        s.workspace().write("from-host.txt", new ByteArrayInputStream("host".getBytes(StandardCharsets.UTF_8)));
        assertThat(DockerTestSandboxes.sh(s, "cat from-host.txt").out()).isEqualTo("host");

        s.terminate(TerminationReason.USER_REQUEST);

        assertThat(t.driver.engine().inspect(t.driver.containerName(s.ref().sandboxId()))).as("the container is removed").isEmpty();
        assertThat(t.driver.list()).extracting(SandboxRef::sandboxId).doesNotContain(s.ref().sandboxId());
        assertThat(t.driver.workspace(s.ref())).as("the workspace stays").isPresent();
    }
}
