package dev.paddock.driver.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.core.conformance.Conformance;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.RuntimeListener;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxDriver;
import dev.paddock.core.spi.SandboxRef;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.TerminationReason;
import dev.paddock.core.spi.Workspace;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
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

    /**
     * Proves the port fact {@code agent_sandbox_crds} whichever fixture runs the kit (on a cluster of its own in
     * {@code dir}, serving agent-sandbox through {@link FakeAgentSandboxController}): a driver with
     * {@code kubernetes_agent_sandbox=true} makes the sandbox a {@code Sandbox} object whose controller makes the pod
     * that runs it and the workspace claim, both owned by the Sandbox and no claim of the driver's own; suspend is
     * {@code replicas: 0} (the pod goes, the claim stays), resume makes a new pod on the same claim with the files
     * still there, and a purge removes the Sandbox and its claim.
     */
    public static void proveAgentSandboxObjects(Path dir) throws Exception {
        try (MockCluster cluster = new MockCluster(dir.resolve("agent-sandbox-proof"), true);
             KubernetesDriver driver = cluster.driver("agent-sandbox-proof", AgentSandboxMode.ON);
             KubernetesClient api = cluster.client()) {
            assertThat(driver.agentSandboxServed()).as("the driver makes Sandbox objects on a cluster serving them").isTrue();
            String id = "sbx_agent_sandbox_proof";
            String name = ObjectNames.pod(id);
            Sandbox sandbox = driver.create(SandboxSpec.defaults(id, "tenant_conformance"), new Fence("host-conformance", 1));
            AgentSandbox object = api.resources(AgentSandbox.class).inNamespace(MockCluster.NAMESPACE).withName(name).get();
            assertThat(object).as("the sandbox's Sandbox object").isNotNull();
            assertThat(object.getSpec().replicas).isEqualTo(1);
            Pod pod = api.pods().inNamespace(MockCluster.NAMESPACE).withName(name).get();
            assertThat(pod.getMetadata().getOwnerReferences()).as("the pod is the Sandbox's").anySatisfy(r -> {
                assertThat(r.getKind()).isEqualTo("Sandbox");
                assertThat(r.getUid()).isEqualTo(object.getMetadata().getUid());
            });
            assertThat(api.persistentVolumeClaims().inNamespace(MockCluster.NAMESPACE).withName(AgentSandboxes.claim(id)).get())
                    .as("the controller's workspace claim").isNotNull();
            assertThat(api.persistentVolumeClaims().inNamespace(MockCluster.NAMESPACE).withName(ObjectNames.claim(id)).get())
                    .as("a claim of the driver's own, as for plain Pods").isNull();
            sandbox.workspace().write("kept", new ByteArrayInputStream("kept".getBytes(StandardCharsets.UTF_8)));

            sandbox.suspend();
            assertThat(api.resources(AgentSandbox.class).inNamespace(MockCluster.NAMESPACE).withName(name).get().getSpec().replicas).isZero();
            assertThat(api.pods().inNamespace(MockCluster.NAMESPACE).withName(name).get()).as("the pod of a suspended Sandbox").isNull();
            sandbox.resume();
            Pod again = api.pods().inNamespace(MockCluster.NAMESPACE).withName(name).get();
            assertThat(again.getMetadata().getUid()).as("a new pod").isNotEqualTo(pod.getMetadata().getUid());
            try (InputStream in = sandbox.workspace().read("kept")) {
                assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("kept");
            }

            sandbox.terminate(TerminationReason.USER_REQUEST);
            driver.purge(sandbox.ref());
            assertThat(api.resources(AgentSandbox.class).inNamespace(MockCluster.NAMESPACE).withName(name).get()).as("the purged Sandbox").isNull();
            assertThat(api.persistentVolumeClaims().inNamespace(MockCluster.NAMESPACE).withName(AgentSandboxes.claim(id)).get())
                    .as("the purged Sandbox's claim").isNull();
        }
    }

    /**
     * Proves the port fact {@code agent_sandbox_warm_pools} (on a cluster of its own in {@code dir}, serving agent-sandbox
     * and its extensions through the FAKE controllers {@link FakeAgentSandboxController} and {@link FakeWarmPoolController}):
     * a driver with a warm pool keeps a SandboxWarmPool running; a create of the pool's shape is bound to a pool pod that
     * ran before it, whose commands see the request's variables (given after the claim, never in the pod's spec); the
     * pool makes another pod; a purge removes the claim.
     */
    public static void proveWarmPool(Path dir) throws Exception {
        WarmPoolShape pool = new WarmPoolShape(1, KubernetesConfig.DEFAULT_IMAGE, Limits.DEFAULT.cpus(), Limits.DEFAULT.memoryBytes(), 0);
        try (MockCluster cluster = new MockCluster(dir.resolve("warm-pool-proof"), true, true);
             KubernetesDriver driver = new KubernetesDriver(cluster.client(), KubernetesConfig.of(MockCluster.NAMESPACE, "warm-pool-proof")
                     .withWarmPool(pool), AgentSandboxMode.ON);
             KubernetesClient api = cluster.client()) {
            assertThat(driver.warmPoolServed()).as("the driver keeps a warm pool on a cluster serving the extensions").isTrue();
            String waiting = poolPod(api, null);
            String id = "sbx_warm_pool_proof";
            Sandbox sandbox = driver.create(new SandboxSpec(id, "tenant_conformance", null, false, Limits.DEFAULT, Map.of("PROOF", "from the request"),
                    dev.paddock.core.spi.NetworkPolicy.NONE), new Fence("host-conformance", 1));
            SandboxClaimObject claim = api.resources(SandboxClaimObject.class).inNamespace(MockCluster.NAMESPACE).withName(ObjectNames.pod(id)).get();
            assertThat(claim.boundSandbox()).as("the create took the pool pod that was waiting").isEqualTo(waiting);
            Pod pod = api.pods().inNamespace(MockCluster.NAMESPACE).withName(waiting).get();
            assertThat(pod.getSpec().getContainers().getFirst().getEnv()).noneMatch(v -> v.getName().equals("PROOF"));
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            dev.paddock.core.spi.ExecResult r = sandbox.exec(dev.paddock.core.spi.ExecRequest.of("printenv", "PROOF"), new dev.paddock.core.spi.ExecOutput() {
                @Override public void stdout(byte[] d, int o, int l) { synchronized (out) { out.write(d, o, l); } }
                @Override public void stderr(byte[] d, int o, int l) { }
            }).await();
            assertThat(r.exitCode()).isZero();
            assertThat(out.toString(StandardCharsets.UTF_8)).as("the request's variable, given after the claim").isEqualTo("from the request\n");
            assertThat(poolPod(api, waiting)).as("the pool made another pod").isNotEqualTo(waiting);

            sandbox.terminate(TerminationReason.USER_REQUEST);
            driver.purge(sandbox.ref());
            assertThat(api.resources(SandboxClaimObject.class).inNamespace(MockCluster.NAMESPACE).withName(ObjectNames.pod(id)).get())
                    .as("the purged sandbox's SandboxClaim").isNull();
        }
    }

    /** A running pool pod nobody claimed, other than {@code not}, once there is one. */
    private static String poolPod(KubernetesClient api, String not) throws InterruptedException {
        long deadline = System.nanoTime() + java.time.Duration.ofMinutes(2).toNanos();
        while (true) {
            for (Pod p : api.pods().inNamespace(MockCluster.NAMESPACE).withLabel(ObjectNames.LABEL_WARM_POOL).list().getItems()) {
                if (!p.getMetadata().getLabels().containsKey(ObjectNames.LABEL_SANDBOX) && PodStart.running(p) && !p.getMetadata().getName().equals(not)) {
                    return p.getMetadata().getName();
                }
            }
            if (System.nanoTime() - deadline > 0) throw new AssertionError("no warm pool pod ran within two minutes");
            Thread.sleep(50);
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
