package dev.paddock.driver.kubernetes;

import dev.paddock.core.spi.Sandbox;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** A fresh mock cluster for each test, with one sandbox created on it through the driver. */
abstract class SandboxOnMockCluster {
    private final String sandboxId;
    @TempDir
    Path dir;
    MockCluster cluster;
    KubernetesDriver driver;
    Sandbox sandbox;

    SandboxOnMockCluster(String sandboxId) {
        this.sandboxId = sandboxId;
    }

    @BeforeEach
    void start() {
        cluster = new MockCluster(dir);
        driver = cluster.driver("install-a");
        sandbox = driver.create(KubernetesDriverAgainstMockApiServerTest.spec(sandboxId), KubernetesDriverAgainstMockApiServerTest.FENCE);
    }

    @AfterEach
    void stop() {
        driver.close();
        cluster.close();
    }
}
