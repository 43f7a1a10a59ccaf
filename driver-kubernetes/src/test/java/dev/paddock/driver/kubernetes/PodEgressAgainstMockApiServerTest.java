package dev.paddock.driver.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.egress.EgressAuditEntry;
import dev.paddock.core.egress.EgressDecision;
import dev.paddock.core.egress.SecretValue;
import dev.paddock.core.BoundedBuffer;
import dev.paddock.core.spi.CredentialBinding;
import dev.paddock.core.spi.EgressAttachment;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.ExecResult;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxRef;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.store.PageRequest;

import dev.paddock.egress.proxy.EgressConfig;

import dev.paddock.egress.tls.CertificateAuthority;



import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRule;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A kubernetes sandbox with a network, against fabric8's mock API server and the fake kubelet: its pod reaches
 * Paddock's real egress proxy (rules, credential injection, audit on SQLite) only through the driver's gateway with
 * its proxy credential, over the one way its NetworkPolicy opens; curl runs in the pod for real. The upstreams are
 * HTTP and HTTPS servers on loopback, which the proxy may reach through its test switch.
 */
class PodEgressAgainstMockApiServerTest extends DriverOnMockCluster {
    static final String SECRET = "k8s-egress-secret-4d1e";
    static final String TENANT = "ten_1";

    ProxyForPods egress;
    HttpServer http;
    HttpsServer https;
    final List<Map<String, String>> upstreamSaw = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws IOException {
        CertificateAuthority upstreamCa = CertificateAuthority.ephemeral("upstream test CA");
        http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        https = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        https.setHttpsConfigurator(new HttpsConfigurator(upstreamCa.serverContext("secure.test")));
        for (HttpServer server : List.of(http, https)) {
            server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
            server.createContext("/", this::answer);
            server.start();
        }
        // the test names resolve to loopback, which the proxy reaches only on the upstreams' ports (its test switch)
        EgressConfig config = EgressConfig.defaults()
                .resolver(host -> List.of(InetAddress.getByAddress(host, loopback(host))))
                .allowLoopbackUpstreamPorts(Set.of(http.getAddress().getPort(), https.getAddress().getPort()))
                .upstreamTls(upstreamCa.clientContext());
        egress = ProxyForPods.open(dir, config);
        cluster = new MockCluster(dir.resolve("cluster"));
        driver = cluster.driverWithEgress("install-a");
        api = cluster.client();
    }

    private static byte[] loopback(String host) throws UnknownHostException {
        if (!Set.of("allowed.test", "denied.test", "secure.test").contains(host)) throw new UnknownHostException(host);
        return new byte[] {127, 0, 0, 1};
    }

    private void answer(HttpExchange ex) throws IOException {
        try (InputStream in = ex.getRequestBody()) {
            in.readAllBytes();
        }
        upstreamSaw.add(Map.of("path", ex.getRequestURI().getPath(), "x-api-key", String.valueOf(ex.getRequestHeaders().getFirst("x-api-key"))));
        byte[] body = ("upstream saw " + ex.getRequestURI().getPath() + "\n").getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(200, body.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(body);
        }
    }

    @AfterEach
    void stopProxyAndUpstreams() {
        egress.close();
        http.stop(0);
        https.stop(0);
    }

    int httpPort() {
        return http.getAddress().getPort();
    }

    int httpsPort() {
        return https.getAddress().getPort();
    }

    /** What the host does for a sandbox with a network: opens its proxy listener and hands the driver the attachment. */
    SandboxSpec spec(String id, List<CredentialBinding> credentials) {
        NetworkPolicy policy = new NetworkPolicy(NetworkPolicy.Mode.LIMITED,
                List.of("allowed.test:" + httpPort(), "secure.test:" + httpsPort()), false);
        EgressAttachment attachment = egress.port().open(TENANT, id, policy, credentials);
        return new SandboxSpec(id, TENANT, null, false, new Limits(256L << 20, 64, 0.5), Map.of(), policy, credentials, attachment);
    }

    record Run(int exit, String stdout, String stderr) {}

    static Run run(Sandbox sandbox, String script) throws InterruptedException {
        BoundedBuffer out = new BoundedBuffer(1 << 16);
        BoundedBuffer err = new BoundedBuffer(1 << 16);
        ExecResult r = sandbox.exec(new ExecRequest(List.of("/bin/sh", "-c", script), Map.of(), null, Duration.ofMinutes(1), null), ExecOutput.into(out, err)).await();
        return new Run(r.exitCode(), out.text(), err.text());
    }

    @Test
    void aPodReachesAllowedHostsThroughTheProxyAndNothingElseAgainstMockApiServerAndFakeKubelet() throws Exception {
        Sandbox sandbox = driver.create(spec("sbx_net", List.of()), KubernetesDriverAgainstMockApiServerTest.FENCE);

        Run allowed = run(sandbox, "curl -sS --max-time 20 http://allowed.test:" + httpPort() + "/hello");
        assertThat(allowed.exit()).as(allowed.stderr()).isZero();
        assertThat(allowed.stdout()).isEqualTo("upstream saw /hello\n");

        Run denied = run(sandbox, "curl -s -o /dev/null -w '%{http_code}' --max-time 20 http://denied.test:" + httpPort() + "/nope");
        assertThat(denied.stdout()).isEqualTo("403");
        assertThat(upstreamSaw).extracting(m -> m.get("path")).containsExactly("/hello");

        // around the proxy there is no way: the pod's namespace has only the route to the proxy's port
        Run direct = run(sandbox, "curl -sS --noproxy '*' --max-time 5 http://127.0.0.1:" + httpPort() + "/direct");
        assertThat(direct.exit()).isNotZero();

        // the proxy knows the sandbox by its credential alone: a wrong token is refused before any rule is read
        Run forged = run(sandbox, "curl -s -o /dev/null -w '%{http_code}' --max-time 20 -x http://sbx_net:forged@127.0.0.1:"
                + MockCluster.POD_PROXY_PORT + " http://allowed.test:" + httpPort() + "/forged");
        assertThat(forged.stdout()).isEqualTo("407");
        assertThat(upstreamSaw).extracting(m -> m.get("path")).doesNotContain("/direct", "/forged");

        List<EgressAuditEntry> audit = egress.store().egressAudit().list("sbx_net", PageRequest.first(50)).data();
        assertThat(audit).anyMatch(e -> e.record().host().equals("allowed.test") && e.record().decision() == EgressDecision.ALLOWED);
        assertThat(audit).anyMatch(e -> e.record().host().equals("denied.test") && e.record().decision() != EgressDecision.ALLOWED);
    }

    @Test
    void theProxyPlacesTheCredentialThePodOnlyHasAPlaceholderForAgainstMockApiServerAndFakeKubelet() throws Exception {
        String secretId = egress.vault().create(TENANT, "api", SecretValue.of(SECRET)).id();
        CredentialBinding binding = new CredentialBinding(secretId, List.of("secure.test"), "x-api-key", null, "API_KEY");
        Sandbox sandbox = driver.create(spec("sbx_cred", List.of(binding)), KubernetesDriverAgainstMockApiServerTest.FENCE);

        Run env = run(sandbox, "printenv API_KEY; env | grep -c " + SECRET + " || true");
        assertThat(env.stdout()).doesNotContain(SECRET).endsWith("0\n");

        // TLS to the credential host is intercepted with the installation CA, which the pod's bundle holds
        Run call = run(sandbox, "curl -sS --max-time 20 -H \"x-api-key: $API_KEY\" https://secure.test:" + httpsPort() + "/api");
        assertThat(call.exit()).as(call.stderr()).isZero();
        assertThat(call.stdout()).isEqualTo("upstream saw /api\n");
        assertThat(upstreamSaw).singleElement().satisfies(m -> assertThat(m.get("x-api-key")).isEqualTo(SECRET));
        assertThat(egress.store().egressAudit().list("sbx_cred", PageRequest.first(50)).data())
                .anyMatch(e -> e.record().host().equals("secure.test") && e.record().decision() == EgressDecision.ALLOWED);
    }

    @Test
    void thePolicyOpensOnlyTheProxysPodsAndPortAndNoDnsAgainstMockApiServer() {
        driver.create(spec("sbx_policy", List.of()), KubernetesDriverAgainstMockApiServerTest.FENCE);

        var policy = api.network().v1().networkPolicies().inNamespace(MockCluster.NAMESPACE).withName(ObjectNames.networkPolicy("sbx_policy")).get();
        assertThat(policy.getSpec().getPolicyTypes()).containsExactlyInAnyOrder("Ingress", "Egress");
        assertThat(policy.getSpec().getIngress()).isEmpty();
        NetworkPolicyEgressRule rule = policy.getSpec().getEgress().getFirst();
        assertThat(policy.getSpec().getEgress()).hasSize(1);
        assertThat(rule.getPorts()).singleElement().satisfies(p -> {
            assertThat(p.getProtocol()).isEqualTo("TCP");
            assertThat(p.getPort().getIntVal()).isEqualTo(driver.egressPort());
        });
        assertThat(rule.getTo()).singleElement().satisfies(to -> {
            assertThat(to.getIpBlock()).isNull();
            assertThat(to.getNamespaceSelector().getMatchLabels()).isEqualTo(Map.of("kubernetes.io/metadata.name", MockCluster.SERVER_NAMESPACE));
            assertThat(to.getPodSelector().getMatchLabels()).isEqualTo(MockCluster.SERVER_LABELS);
        });
    }

    @Test
    void aRestartedServerRoutesARunningPodsCredentialAgainAgainstMockApiServerAndFakeKubelet() throws Exception {
        driver.create(spec("sbx_again", List.of()), KubernetesDriverAgainstMockApiServerTest.FENCE);
        int gatewayPort = driver.egressPort();
        driver.close();

        PodEgress same = new PodEgress("127.0.0.1", gatewayPort, "127.0.0.1", MockCluster.POD_PROXY_PORT, MockCluster.SERVER_NAMESPACE, MockCluster.SERVER_LABELS);
        driver = new KubernetesDriver(cluster.client(), KubernetesConfig.of(MockCluster.NAMESPACE, "install-a").withEgress(same));
        Sandbox again = driver.attach(new SandboxRef("sbx_again", KubernetesDriver.ID, ObjectNames.pod("sbx_again"))).orElseThrow();

        Run allowed = run(again, "curl -sS --max-time 20 http://allowed.test:" + httpPort() + "/after-restart");
        assertThat(allowed.exit()).as(allowed.stderr()).isZero();
        assertThat(allowed.stdout()).isEqualTo("upstream saw /after-restart\n");
    }

    @Test
    void aResumedPodDialsTheProxyAddressOfTheServerThatResumedItAgainstMockApiServerAndFakeKubelet() throws Exception {
        Sandbox first = driver.create(spec("sbx_moved", List.of()), KubernetesDriverAgainstMockApiServerTest.FENCE);
        first.suspend();
        int gatewayPort = driver.egressPort();
        driver.close();

        // another server: the same listen port (the policy's), another address for pods to dial
        int otherAddressPort = MockCluster.POD_PROXY_PORT + 1;
        PodEgress other = new PodEgress("127.0.0.1", gatewayPort, "127.0.0.1", otherAddressPort, MockCluster.SERVER_NAMESPACE, MockCluster.SERVER_LABELS);
        driver = new KubernetesDriver(cluster.client(), KubernetesConfig.of(MockCluster.NAMESPACE, "install-a").withEgress(other));
        cluster.kubelet.egressPeer(new FakeKubelet.Peer(otherAddressPort, driver.egressPort(), MockCluster.SERVER_NAMESPACE, MockCluster.SERVER_LABELS));
        Sandbox again = driver.attach(new SandboxRef("sbx_moved", KubernetesDriver.ID, ObjectNames.pod("sbx_moved"))).orElseThrow();
        again.resume();

        Run proxy = run(again, "printenv HTTPS_PROXY");
        assertThat(proxy.stdout()).startsWith("http://sbx_moved:").endsWith("@127.0.0.1:" + otherAddressPort + "\n");
        Run allowed = run(again, "curl -sS --max-time 20 http://allowed.test:" + httpPort() + "/after-resume");
        assertThat(allowed.exit()).as(allowed.stderr()).isZero();
        assertThat(allowed.stdout()).isEqualTo("upstream saw /after-resume\n");
    }

    /**
     * Pods dial a Service in front of every server: here the fake kubelet routes them to server B (127.0.0.1), while
     * server A (127.0.0.2, the same port) made the sandbox and holds its proxy listener. B relays the connection to A;
     * when A is lost and server C (127.0.0.3) takes the sandbox over, the same running pod (same address, same
     * credential) reaches the proxy through B and C; when C is lost too and server D (127.0.0.4) resumes the sandbox
     * after a suspend, its new pod reaches the proxy through B and D.
     */
    @Test
    void aPodDialingAnyServerReachesTheOneHoldingItsProxyEvenAfterATakeoverAgainstMockApiServerAndFakeKubelet() throws Exception {
        relayedThroughTakeoverAndResume(cluster, driver, api, AgentSandboxMode.OFF);
    }

    /** The same with the sandbox an agent-sandbox Sandbox, whose pod the (fake) controller makes from its template. */
    @Test
    void anAgentSandboxPodReachesTheServerHoldingItsProxyEvenAfterATakeoverAgainstMockApiServerAndFakeController() throws Exception {
        try (MockCluster agentCluster = new MockCluster(dir.resolve("agent-cluster"), true);
             KubernetesDriver relaying = agentCluster.driverWithEgress("install-a", AgentSandboxMode.ON);
             KubernetesClient agentApi = agentCluster.client()) {
            relayedThroughTakeoverAndResume(agentCluster, relaying, agentApi, AgentSandboxMode.ON);
        }
    }

    private void relayedThroughTakeoverAndResume(MockCluster cluster, KubernetesDriver relaying, KubernetesClient api, AgentSandboxMode mode)
            throws Exception {
        int gatewayPort = relaying.egressPort();
        String pod = ObjectNames.pod("sbx_relay");
        SandboxRef ref = new SandboxRef("sbx_relay", KubernetesDriver.ID, pod);
        KubernetesDriver holder = replica(cluster, "127.0.0.2", gatewayPort, mode);
        KubernetesDriver takeover = null;
        KubernetesDriver resumer = null;
        try {
            assertThat(holder.agentSandboxServed()).isEqualTo(mode == AgentSandboxMode.ON);
            holder.create(spec("sbx_relay", List.of()), KubernetesDriverAgainstMockApiServerTest.FENCE);
            Pod made = api.pods().inNamespace(MockCluster.NAMESPACE).withName(pod).get();
            assertThat(made.getMetadata().getAnnotations()).containsEntry(EgressHolders.ANNOTATION, "127.0.0.2:" + gatewayPort);
            Sandbox sandbox = holder.attach(ref).orElseThrow();

            Run relayed = run(sandbox, "curl -sS --max-time 20 http://allowed.test:" + httpPort() + "/relayed");
            assertThat(relayed.exit()).as(relayed.stderr()).isZero();
            assertThat(relayed.stdout()).isEqualTo("upstream saw /relayed\n");
            Run forged = run(sandbox, "curl -s -o /dev/null -w '%{http_code}' --max-time 20 -x http://sbx_relay:forged@127.0.0.1:"
                    + MockCluster.POD_PROXY_PORT + " http://allowed.test:" + httpPort() + "/forged");
            assertThat(forged.stdout()).as("a wrong token is refused by the relaying server").isEqualTo("407");

            holder.close(); // its server is lost; the pod keeps running
            takeover = replica(cluster, "127.0.0.3", gatewayPort, mode);
            Sandbox taken = takeover.attach(ref).orElseThrow();
            Pod now = api.pods().inNamespace(MockCluster.NAMESPACE).withName(pod).get();
            assertThat(now.getMetadata().getUid()).as("the same pod, not a new one").isEqualTo(made.getMetadata().getUid());
            assertThat(now.getMetadata().getAnnotations()).containsEntry(EgressHolders.ANNOTATION, "127.0.0.3:" + gatewayPort);
            if (mode == AgentSandboxMode.ON) {
                // a pod the controller makes again from the template names the server that took over, not the lost one
                AgentSandbox object = api.resources(AgentSandbox.class).inNamespace(MockCluster.NAMESPACE).withName(pod).get();
                assertThat(object.getSpec().podTemplate.metadata.annotations).containsEntry(EgressHolders.ANNOTATION, "127.0.0.3:" + gatewayPort);
            }

            Run after = run(taken, "curl -sS --max-time 20 http://allowed.test:" + httpPort() + "/after-takeover");
            assertThat(after.exit()).as(after.stderr()).isZero();
            assertThat(after.stdout()).isEqualTo("upstream saw /after-takeover\n");

            taken.suspend();
            takeover.close(); // lost as well, while the sandbox is suspended
            resumer = replica(cluster, "127.0.0.4", gatewayPort, mode);
            Sandbox resumed = resumer.attach(ref).orElseThrow();
            resumed.resume();
            Pod remade = api.pods().inNamespace(MockCluster.NAMESPACE).withName(pod).get();
            assertThat(remade.getMetadata().getUid()).as("a new pod").isNotEqualTo(made.getMetadata().getUid());
            assertThat(remade.getMetadata().getAnnotations()).containsEntry(EgressHolders.ANNOTATION, "127.0.0.4:" + gatewayPort);

            Run afterResume = run(resumed, "curl -sS --max-time 20 http://allowed.test:" + httpPort() + "/after-resume");
            assertThat(afterResume.exit()).as(afterResume.stderr()).isZero();
            assertThat(afterResume.stdout()).isEqualTo("upstream saw /after-resume\n");
            assertThat(upstreamSaw).extracting(m -> m.get("path")).containsExactly("/relayed", "/after-takeover", "/after-resume");
        } finally {
            holder.close();
            if (takeover != null) takeover.close();
            if (resumer != null) resumer.close();
        }
    }

    /** Another server of the installation: its gateway on {@code host} and the port every server listens on. */
    private static KubernetesDriver replica(MockCluster cluster, String host, int gatewayPort, AgentSandboxMode mode) {
        PodEgress egress = new PodEgress(host, gatewayPort, "127.0.0.1", MockCluster.POD_PROXY_PORT, MockCluster.SERVER_NAMESPACE,
                MockCluster.SERVER_LABELS, host, 0);
        return new KubernetesDriver(cluster.client(), KubernetesConfig.of(MockCluster.NAMESPACE, "install-a").withEgress(egress), mode);
    }

    @Test
    void aNetworkWithoutTheProxysListenerIsRefusedAndADriverWithoutAGatewayKeepsNetworkNoneAgainstMockApiServer() {
        NetworkPolicy limited = new NetworkPolicy(NetworkPolicy.Mode.LIMITED, List.of("allowed.test"), false);
        SandboxSpec unwired = new SandboxSpec("sbx_unwired", TENANT, null, false, Limits.DEFAULT, Map.of(), limited);
        assertThatThrownBy(() -> driver.create(unwired, KubernetesDriverAgainstMockApiServerTest.FENCE))
                .isInstanceOf(PaddockException.class).extracting(e -> ((PaddockException) e).code()).isEqualTo(ErrorCode.EGRESS_UNAVAILABLE.wire());

        try (KubernetesDriver plain = cluster.driver("install-b")) {
            assertThatThrownBy(() -> plain.create(spec("sbx_plain", List.of()), KubernetesDriverAgainstMockApiServerTest.FENCE))
                    .isInstanceOf(PaddockException.class).extracting(e -> ((PaddockException) e).code())
                    .isEqualTo(ErrorCode.UNSUPPORTED_NETWORK_POLICY.wire());
        }
        assertThat(api.pods().inNamespace(MockCluster.NAMESPACE).list().getItems()).isEmpty();
    }
}
