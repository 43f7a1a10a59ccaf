package dev.paddock.driver.kubernetes;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/** A mock cluster of the shape a test asks for, with one driver and an API client to look at what it made; all closed after each test. */
abstract class DriverOnMockCluster {
    @TempDir
    Path dir;
    MockCluster cluster;
    KubernetesDriver driver;
    KubernetesClient api;

    /** A cluster that serves agent-sandbox's Sandbox or not, and a driver that makes sandboxes as {@code mode} says. */
    void start(boolean agentSandboxServed, AgentSandboxMode mode) {
        cluster = new MockCluster(dir, agentSandboxServed);
        api = cluster.client();
        driver = cluster.driver("install-a", mode);
    }

    @AfterEach
    void stop() {
        if (driver != null) driver.close();
        if (api != null) api.close();
        if (cluster != null) cluster.close();
    }
}
