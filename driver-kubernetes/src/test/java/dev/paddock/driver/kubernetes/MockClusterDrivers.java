package dev.paddock.driver.kubernetes;

import dev.paddock.core.conformance.Conformance;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.RuntimeListener;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxDriver;
import dev.paddock.core.spi.SandboxRef;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.Workspace;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Kubernetes drivers on a mock cluster (fabric8's mock API server and the fake kubelet), for suites outside this
 * module such as the conformance kit: one cluster per data directory, so a second driver on the same directory is
 * a restarted server on the same cluster; the cluster ends when its last driver closes. Each driver has its egress
 * gateway, so sandboxes with a network reach the egress proxy the suite runs.
 */
public final class MockClusterDrivers {
    private static final Map<Path, MockCluster> CLUSTERS = new HashMap<>();
    private static final Map<Path, Integer> USERS = new HashMap<>();

    private MockClusterDrivers() {}

    public static SandboxDriver on(Path dataDir) {
        return on(dataDir, false);
    }

    /**
     * As {@link #on}, on a cluster that serves agent-sandbox (run by {@link FakeAgentSandboxController}), with drivers
     * that make each sandbox a {@code Sandbox} object ({@code kubernetes_agent_sandbox=true}).
     */
    public static SandboxDriver onAgentSandbox(Path dataDir) {
        return on(dataDir, true);
    }

    private static SandboxDriver on(Path dataDir, boolean agentSandbox) {
        MockCluster cluster;
        synchronized (CLUSTERS) {
            cluster = CLUSTERS.computeIfAbsent(dataDir, d -> new MockCluster(d.resolve("cluster"), agentSandbox));
            USERS.merge(dataDir, 1, Integer::sum);
        }
        try {
            return new Delegate(cluster.driverWithEgress("conformance", agentSandbox ? AgentSandboxMode.ON : AgentSandboxMode.OFF), dataDir);
        } catch (RuntimeException e) {
            release(dataDir);
            throw e;
        }
    }

    private static void release(Path dataDir) {
        MockCluster done = null;
        synchronized (CLUSTERS) {
            if (USERS.merge(dataDir, -1, Integer::sum) == 0) {
                USERS.remove(dataDir);
                done = CLUSTERS.remove(dataDir);
            }
        }
        if (done != null) done.close();
    }

    /** The driver as it is, plus the end of its cluster. */
    private record Delegate(KubernetesDriver driver, Path dataDir) implements SandboxDriver {
        @Override public String id() { return driver.id(); }
        @Override public Conformance conformance() { return driver.conformance(); }
        @Override public Optional<String> unavailableReason() { return driver.unavailableReason(); }
        @Override public Limits limits(Limits requested) { return driver.limits(requested); }
        @Override public void watchRuntimes(RuntimeListener listener) { driver.watchRuntimes(listener); }
        @Override public Sandbox create(SandboxSpec spec, Fence fence) { return driver.create(spec, fence); }
        @Override public Optional<Sandbox> attach(SandboxRef ref) { return driver.attach(ref); }
        @Override public List<SandboxRef> list() { return driver.list(); }
        @Override public void destroy(SandboxRef ref) { driver.destroy(ref); }
        @Override public Optional<Workspace> workspace(SandboxRef ref) { return driver.workspace(ref); }
        @Override public Optional<Workspace> outputs(SandboxRef ref) { return driver.outputs(ref); }
        @Override public void purge(SandboxRef ref) { driver.purge(ref); }

        @Override
        public void close() {
            try {
                driver.close();
            } finally {
                release(dataDir);
            }
        }
    }
}
