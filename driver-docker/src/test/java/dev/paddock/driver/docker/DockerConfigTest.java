package dev.paddock.driver.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.PaddockException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class DockerConfigTest {
    @Test
    void defaultsFollowDockerHostAndRunc() {
        DockerConfig c = DockerConfig.defaults(Path.of("/var/lib/paddock"));
        String env = System.getenv("DOCKER_HOST");

        assertThat(c.dockerHost()).isEqualTo(env == null || env.isBlank() ? "unix:///var/run/docker.sock" : env);
        assertThat(c.runtime()).isEqualTo("runc");
        assertThat(c.uid()).isEqualTo(DockerConfig.DEFAULT_UID);
        assertThat(c.withRuntime("runsc").runtime()).isEqualTo("runsc");
    }

    @Test
    void onlyUnixSocketsAndPlainRuntimeNamesAreAccepted() {
        assertThatThrownBy(() -> new DockerConfig(Path.of("/d"), "tcp://10.0.0.1:2375", "runc", DockerConfig.DEFAULT_UID, null))
                .isInstanceOf(PaddockException.class).hasMessageContaining("must be a unix socket");
        assertThatThrownBy(() -> new DockerConfig(Path.of("/d"), null, "runc --debug", DockerConfig.DEFAULT_UID, null))
                .isInstanceOf(PaddockException.class).hasMessageContaining("runtime");
        assertThatThrownBy(() -> new DockerConfig(Path.of("/d"), null, "runc", 0, null))
                .isInstanceOf(PaddockException.class).hasMessageContaining("unprivileged");
    }

    @Test
    void theRecordIsReadableWithoutAnEngine() {
        assertThat(DockerDriver.conformanceRecord().driver()).isEqualTo(DockerDriver.ID);
    }
}
