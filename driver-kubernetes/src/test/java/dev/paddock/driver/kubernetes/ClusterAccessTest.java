package dev.paddock.driver.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClusterAccessTest {
    @TempDir Path home;

    @Test
    void noKubeconfigAndNoServiceAccountSaysWhatToConfigure() {
        assertThat(ClusterAccess.missing(Map.of(), home)).contains("KUBECONFIG", "~/.kube/config");
    }

    @Test
    void aKubeconfigInTheHomeDirectoryIsEnough() throws Exception {
        Files.createDirectories(home.resolve(".kube"));
        Files.writeString(home.resolve(".kube/config"), "apiVersion: v1\nkind: Config\n");

        assertThat(ClusterAccess.missing(Map.of(), home)).isNull();
    }

    @Test
    void aKubeconfigVariableNamingNoFileIsReported() {
        assertThat(ClusterAccess.missing(Map.of("KUBECONFIG", home.resolve("absent").toString()), home)).contains("names no readable file");
    }
}
