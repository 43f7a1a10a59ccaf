package dev.paddock.driver.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.EgressAttachment;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.spi.ProcessInfo;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxRef;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.TerminationReason;

import dev.paddock.egress.proxy.EgressConfig;




import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Warm pools against fabric8's mock API server, the fake kubelet and the FAKE agent-sandbox controllers
 * ({@link FakeAgentSandboxController}, {@link FakeWarmPoolController}: that the real ones bind claims so is proven only
 * against them): a create of the pool's shape is claimed from a running pool pod (no pod is made for it), the pool
 * makes another, and only the claim gives the pod what the request knows: its variables and its own proxy credential
 * (written through the exec API), which an unclaimed pool pod does not have, so the egress gateway lets nothing of it
 * through. Real egress proxy, curl in the pod.
 */
class WarmPoolAgainstMockApiServerTest extends DriverOnMockCluster {
    /** With a disk, as a server's pool has (its default_disk): creates asking for no disk get that one. */
    static final WarmPoolShape POOL = new WarmPoolShape(2, KubernetesConfig.DEFAULT_IMAGE, 0.5, 256L << 20, 64L << 20);
    static final Limits SHAPE = new Limits(POOL.memoryBytes(), 64, POOL.cpus(), POOL.diskBytes());

    ProxyForPods egress;
    HttpServer http;

    @BeforeEach
    void start() throws IOException {
        http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        http.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        http.createContext("/", this::answer);
        http.start();
        EgressConfig config = EgressConfig.defaults()
                .resolver(host -> {
                    if (!host.equals("allowed.test")) throw new java.net.UnknownHostException(host);
                    return List.of(InetAddress.getByAddress(host, new byte[] {127, 0, 0, 1}));
                })
                .allowLoopbackUpstreamPorts(Set.of(http.getAddress().getPort()));
        egress = ProxyForPods.open(dir, config);
        cluster = new MockCluster(dir.resolve("cluster"), true, true);
        driver = cluster.driverWithPool("install-a", POOL);
        api = cluster.client();
    }

    private void answer(HttpExchange ex) throws IOException {
        byte[] body = ("upstream saw " + ex.getRequestURI().getPath() + "\n").getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(200, body.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(body);
        }
    }

    @AfterEach
    void stopProxyAndUpstream() {
        egress.close();
        http.stop(0);
    }

    SandboxSpec withNetwork(String id, Limits limits) {
        NetworkPolicy policy = new NetworkPolicy(NetworkPolicy.Mode.LIMITED, List.of("allowed.test:" + http.getAddress().getPort()), false);
        EgressAttachment attachment = egress.port().open("ten_1", id, policy, List.of());
        return new SandboxSpec(id, "ten_1", null, false, limits, Map.of("GREETING", "it's \"quoted\" $HOME"), policy, List.of(), attachment);
    }

    /** The pool's pods, once as many run as it should keep. */
    List<Pod> poolPods() {
        return poolPods(api);
    }

    static List<Pod> poolPods(KubernetesClient api) {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (true) {
            List<Pod> pods = api.pods().inNamespace(MockCluster.NAMESPACE).withLabel(ObjectNames.LABEL_WARM_POOL).list().getItems().stream()
                    .filter(p -> !p.getMetadata().getLabels().containsKey(ObjectNames.LABEL_SANDBOX) && PodStart.running(p)).toList();
            if (pods.size() >= POOL.size()) return pods;
            if (System.nanoTime() - deadline > 0) throw new AssertionError("the warm pool did not fill: " + pods.size() + " pods running");
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
    }

    @Test
    void aCreateOfThePoolsShapeTakesARunningPoolPodAndThePoolRefillsAgainstMockApiServer() throws Exception {
        assertThat(driver.warmPoolServed()).isTrue();
        List<String> before = poolPods().stream().map(p -> p.getMetadata().getName()).toList();
        int podsBefore = api.pods().inNamespace(MockCluster.NAMESPACE).list().getItems().size();

        Sandbox sandbox = driver.create(withNetwork("sbx_warm", SHAPE), KubernetesDriverAgainstMockApiServerTest.FENCE);

        SandboxClaimObject claim = api.resources(SandboxClaimObject.class).inNamespace(MockCluster.NAMESPACE).withName(ObjectNames.pod("sbx_warm")).get();
        String bound = claim.boundSandbox();
        assertThat(before).as("the claim got a pod that was running before the create").contains(bound);
        Pod pod = api.pods().inNamespace(MockCluster.NAMESPACE).withName(bound).get();
        assertThat(pod.getMetadata().getLabels()).containsEntry(ObjectNames.LABEL_SANDBOX, "sbx_warm")
                .containsEntry(ObjectNames.LABEL_FENCE_GENERATION, Long.toString(KubernetesDriverAgainstMockApiServerTest.FENCE.generation()));
        assertThat(pod.getSpec().getContainers().getFirst().getEnv()).as("nothing of the request is in the pod's spec")
                .noneMatch(v -> v.getName().equals("GREETING") || SandboxObjects.PROXY_VARIABLES.contains(v.getName()));
        assertThat(api.resources(AgentSandbox.class).inNamespace(MockCluster.NAMESPACE).withName(ObjectNames.pod("sbx_warm")).get())
                .as("no Sandbox made for the create itself").isNull();

        PodEgressAgainstMockApiServerTest.Run env = PodEgressAgainstMockApiServerTest.run(sandbox, "printf '%s' \"$GREETING\"");
        assertThat(env.stdout()).isEqualTo("it's \"quoted\" $HOME");
        PodEgressAgainstMockApiServerTest.Run allowed = PodEgressAgainstMockApiServerTest.run(sandbox,
                "curl -sS --max-time 20 http://allowed.test:" + http.getAddress().getPort() + "/warm");
        assertThat(allowed.exit()).as(allowed.stderr()).isZero();
        assertThat(allowed.stdout()).isEqualTo("upstream saw /warm\n");

        // the pool makes another in its place; the other pool pod is still nobody's
        List<String> after = poolPods().stream().map(p -> p.getMetadata().getName()).toList();
        assertThat(after).doesNotContain(bound).hasSize(POOL.size());
        assertThat(api.pods().inNamespace(MockCluster.NAMESPACE).list().getItems()).hasSize(podsBefore + 1);
    }

    @Test
    void aBackgroundProcessInAClaimedPoolPodHasTheRequestsVariablesAndWayOutAgainstMockApiServer() throws Exception {
        Sandbox sandbox = driver.create(withNetwork("sbx_warm_bg", SHAPE), KubernetesDriverAgainstMockApiServerTest.FENCE);
        assertThat(api.resources(SandboxClaimObject.class).inNamespace(MockCluster.NAMESPACE).withName(ObjectNames.pod("sbx_warm_bg")).get())
                .as("served from the pool").isNotNull();

        // what the claim wrote into the pod (variables, proxy credential) reaches a process the supervisor starts too
        ProcessInfo p = sandbox.startProcess(ExecRequest.shell("printf '%s\\n' \"$GREETING\"; curl -sS --max-time 20 http://allowed.test:"
                + http.getAddress().getPort() + "/background; exit 3"));

        await().atMost(Duration.ofSeconds(60)).until(() -> !sandbox.processes().getFirst().running());
        assertThat(sandbox.processes().getFirst().exitCode()).isEqualTo(3);
        assertThat(new String(sandbox.processLogs(p.pid(), 0, 4096), StandardCharsets.UTF_8))
                .isEqualTo("it's \"quoted\" $HOME\nupstream saw /background\n");
    }

    @Test
    void anUnclaimedPoolPodReachesNothingThroughTheGatewayAgainstMockApiServer() throws Exception {
        Sandbox sandbox = driver.create(withNetwork("sbx_owner", SHAPE), KubernetesDriverAgainstMockApiServerTest.FENCE);
        String token = SandboxObjects.proxyToken(api.pods().inNamespace(MockCluster.NAMESPACE)
                .withName(api.resources(SandboxClaimObject.class).inNamespace(MockCluster.NAMESPACE).withName(ObjectNames.pod("sbx_owner")).get().boundSandbox()).get());
        assertThat(token).isNotNull();
        Pod unclaimed = poolPods().getFirst();
        assertThat(SandboxObjects.proxyToken(unclaimed)).as("an unclaimed pod has no credential").isNull();
        // an exec straight into the unclaimed pod (as the driver would run one): its fence lets it reach the gateway only,
        // where neither no credential nor a guessed one leads anywhere
        PodExec exec = new PodExec(api, MockCluster.NAMESPACE, unclaimed.getMetadata().getName());
        String url = "http://allowed.test:" + http.getAddress().getPort() + "/stolen";
        PodExec.Result none = exec.run(List.of("/bin/sh", "-c", "curl -s -o /dev/null -w '%{http_code}' --max-time 20 -x http://127.0.0.1:"
                + MockCluster.POD_PROXY_PORT + " " + url), null);
        assertThat(new String(none.stdout(), StandardCharsets.UTF_8)).isEqualTo("407");
        PodExec.Result guessed = exec.run(List.of("/bin/sh", "-c", "curl -s -o /dev/null -w '%{http_code}' --max-time 20 -x http://sbx_owner:guess@127.0.0.1:"
                + MockCluster.POD_PROXY_PORT + " " + url), null);
        assertThat(new String(guessed.stdout(), StandardCharsets.UTF_8)).isEqualTo("407");
        PodExec.Result direct = exec.run(List.of("/bin/sh", "-c", "curl -sS --noproxy '*' --max-time 5 " + url), null);
        assertThat(direct.exitCode()).as("around the gateway there is no way").isNotZero();
        assertThat(PodEgressAgainstMockApiServerTest.run(sandbox, "printenv HTTP_PROXY").stdout()).contains(token);
    }

    @Test
    void anotherShapeIsMadeDirectlyAgainstMockApiServer() {
        poolPods();
        driver.create(withNetwork("sbx_cold", new Limits(512L << 20, 64, 1.0)), KubernetesDriverAgainstMockApiServerTest.FENCE);
        assertThat(api.resources(SandboxClaimObject.class).inNamespace(MockCluster.NAMESPACE).withName(ObjectNames.pod("sbx_cold")).get()).isNull();
        Pod pod = api.pods().inNamespace(MockCluster.NAMESPACE).withName(ObjectNames.pod("sbx_cold")).get();
        assertThat(pod.getMetadata().getLabels()).doesNotContainKey(ObjectNames.LABEL_WARM_POOL);
        assertThat(SandboxObjects.proxyToken(pod)).as("made as without a pool: the credential in its environment").isNotNull();
        assertThat(poolPods()).hasSize(POOL.size());
        // network none does not fit a pool whose pods reach the proxy's port
        driver.create(SandboxSpec.defaults("sbx_none", "ten_1").withEgress(null), KubernetesDriverAgainstMockApiServerTest.FENCE);
        assertThat(api.resources(SandboxClaimObject.class).inNamespace(MockCluster.NAMESPACE).withName(ObjectNames.pod("sbx_none")).get()).isNull();
    }

    @Test
    void suspendResumeAndPurgeOfAClaimedSandboxAgainstMockApiServer() throws Exception {
        Sandbox sandbox = driver.create(withNetwork("sbx_life", SHAPE), KubernetesDriverAgainstMockApiServerTest.FENCE);
        String bound = api.resources(SandboxClaimObject.class).inNamespace(MockCluster.NAMESPACE).withName(ObjectNames.pod("sbx_life")).get().boundSandbox();
        sandbox.workspace().write("kept", new java.io.ByteArrayInputStream("kept".getBytes(StandardCharsets.UTF_8)));
        assertThat(driver.list()).extracting(SandboxRef::sandboxId).contains("sbx_life");

        sandbox.suspend();
        assertThat(api.pods().inNamespace(MockCluster.NAMESPACE).withName(bound).get()).isNull();
        sandbox.resume();
        assertThat(PodEgressAgainstMockApiServerTest.run(sandbox, "cat kept; printf ' %s' \"$GREETING\"").stdout()).isEqualTo("kept it's \"quoted\" $HOME");
        PodEgressAgainstMockApiServerTest.Run allowed = PodEgressAgainstMockApiServerTest.run(sandbox,
                "curl -sS --max-time 20 http://allowed.test:" + http.getAddress().getPort() + "/resumed");
        assertThat(allowed.stdout()).as(allowed.stderr()).isEqualTo("upstream saw /resumed\n");

        // a restarted server finds it by its claim
        driver.close();
        driver = cluster.driverWithPool("install-a", POOL);
        Sandbox again = driver.attach(new SandboxRef("sbx_life", KubernetesDriver.ID, null)).orElseThrow();
        assertThat(PodEgressAgainstMockApiServerTest.run(again, "cat kept").stdout()).isEqualTo("kept");

        again.terminate(TerminationReason.USER_REQUEST);
        assertThat(driver.list()).extracting(SandboxRef::sandboxId).doesNotContain("sbx_life");
        assertThatThrownBy(() -> driver.create(withNetwork("sbx_life", SHAPE), KubernetesDriverAgainstMockApiServerTest.FENCE))
                .isInstanceOfSatisfying(PaddockException.class, e -> assertThat(e.errorCode()).isEqualTo(ErrorCode.SANDBOX_EXISTS));
        driver.purge(again.ref());
        assertThat(api.resources(SandboxClaimObject.class).inNamespace(MockCluster.NAMESPACE).withName(ObjectNames.pod("sbx_life")).get()).isNull();
        awaitGone(() -> api.resources(AgentSandbox.class).inNamespace(MockCluster.NAMESPACE).withName(bound).get() == null);
        assertThat(api.persistentVolumeClaims().inNamespace(MockCluster.NAMESPACE).withName(AgentSandboxes.claimOf(bound)).get()).isNull();
    }

    /**
     * Not a timing assertion: measures create to the end of a first exec ({@code true}) with a pool pod and without
     * (another shape, made at create), and writes them to {@code target/warm-pool-create-to-first-exec.txt}. Against the
     * mock API server, fake controllers and fake kubelet on a shared machine: says what the driver's side costs, not
     * what a cluster's scheduling and image pulls cost.
     */
    @Test
    void createToFirstExecIsMeasuredWithAndWithoutThePoolAgainstMockApiServer() throws Exception {
        List<Long> warm = new java.util.ArrayList<>();
        List<Long> cold = new java.util.ArrayList<>();
        for (int i = 0; i < 3; i++) {
            poolPods();
            warm.add(createToFirstExec(withNetwork("sbx_warm_" + i, SHAPE)));
            cold.add(createToFirstExec(withNetwork("sbx_cold_" + i, new Limits(512L << 20, 64, 1.0))));
        }
        String report = "create to first exec against the mock API server (ms): pool " + warm + ", made at create " + cold + "\n";
        java.nio.file.Files.writeString(Path.of("target", "warm-pool-create-to-first-exec.txt"), report);
        System.out.print(report);
        assertThat(warm).hasSize(3);
        assertThat(cold).hasSize(3);
    }

    private long createToFirstExec(SandboxSpec spec) throws Exception {
        long start = System.nanoTime();
        Sandbox sandbox = driver.create(spec, KubernetesDriverAgainstMockApiServerTest.FENCE);
        assertThat(PodEgressAgainstMockApiServerTest.run(sandbox, "true").exit()).isZero();
        return (System.nanoTime() - start) / 1_000_000;
    }

    static void awaitGone(java.util.function.BooleanSupplier gone) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        while (!gone.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) throw new AssertionError("still there after a minute");
            Thread.sleep(20);
        }
    }
}
