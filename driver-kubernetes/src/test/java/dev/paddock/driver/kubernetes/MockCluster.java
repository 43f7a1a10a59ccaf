package dev.paddock.driver.kubernetes;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * fabric8's mock API server in CRUD mode (objects are stored, listed, watched and deleted as a real API server
 * would) with a {@link FakeKubelet} that runs the pods, and clients on the JDK HTTP client like the driver's.
 */
final class MockCluster implements AutoCloseable {
    static final String NAMESPACE = "sandboxes";
    static final String SERVER_NAMESPACE = "paddock";
    static final java.util.Map<String, String> SERVER_LABELS = java.util.Map.of("app.kubernetes.io/name", "paddock-server");
    static final int POD_PROXY_PORT = 3128;
    /** The mock server logs every request at INFO through java.util.logging; held here so the setting stays. */
    private static final Logger MOCK_LOG = Logger.getLogger("io.fabric8.mockwebserver");

    static {
        MOCK_LOG.setLevel(Level.WARNING);
    }

    /**
     * Above the mock server's own stall: when a client closes a watch while the server is sending it an event, the
     * server's event loop waits for that send, which waits for the event loop, until the send gives up after 30 s
     * (fabric8's mock, 8.0). Meanwhile it answers nobody; a real API server has no such stall. Clients of the mock
     * wait it out rather than fail a request at the default 10 s.
     */
    private static final int REQUEST_TIMEOUT_MS = 60_000;

    final KubernetesMockServer server;
    final FakeKubelet kubelet;
    private final KubernetesClient kubeletClient;
    /** Null on a cluster without agent-sandbox. */
    private final FakeAgentSandboxController controller;
    /** Null on a cluster without agent-sandbox's extensions. */
    private final FakeWarmPoolController extensions;

    MockCluster(Path root) {
        this(root, false);
    }

    /** With {@code agentSandbox}, the cluster serves agent-sandbox's Sandbox, run by {@link FakeAgentSandboxController}. */
    MockCluster(Path root, boolean agentSandbox) {
        this(root, agentSandbox, false);
    }

    /** With {@code extensions} too, it serves agent-sandbox's templates, warm pools and claims ({@link FakeWarmPoolController}). */
    MockCluster(Path root, boolean agentSandbox, boolean extensions) {
        kubelet = new FakeKubelet(root);
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), kubelet.dispatcher(), false);
        server.init();
        kubeletClient = server.createClient(b -> b.withHttpClientFactory(new JdkHttpClientFactory())
                .editOrNewConfig().withUserAgent(FakeKubelet.USER_AGENT).withRequestTimeout(REQUEST_TIMEOUT_MS).endConfig());
        kubelet.start(kubeletClient, NAMESPACE);
        controller = agentSandbox ? new FakeAgentSandboxController(kubeletClient, NAMESPACE) : null;
        this.extensions = extensions ? new FakeWarmPoolController(kubeletClient, NAMESPACE) : null;
    }

    KubernetesClient client() {
        return server.createClient(b -> b.withHttpClientFactory(new QueuedSendsHttpClientFactory())
                .editOrNewConfig().withRequestTimeout(REQUEST_TIMEOUT_MS).endConfig());
    }

    KubernetesDriver driver(String installation) {
        return new KubernetesDriver(client(), KubernetesConfig.of(NAMESPACE, installation).withRuntimeClass("gvisor"));
    }

    /**
     * A driver whose sandboxes reach the egress proxy: its gateway on a free loopback port, pods told 127.0.0.1:3128
     * (inside their own network namespace), and the fake kubelet routing that address to the gateway where a pod's
     * policy allows the proxy's pods and port.
     */
    KubernetesDriver driverWithEgress(String installation) {
        return driverWithEgress(installation, AgentSandboxMode.OFF);
    }

    /** A driver whose sandboxes are made as {@code mode} says: Pods, or agent-sandbox Sandboxes. */
    KubernetesDriver driver(String installation, AgentSandboxMode mode) {
        return new KubernetesDriver(client(), KubernetesConfig.of(NAMESPACE, installation).withRuntimeClass("gvisor"), mode);
    }

    KubernetesDriver driverWithEgress(String installation, AgentSandboxMode mode) {
        PodEgress egress = new PodEgress("127.0.0.1", 0, "127.0.0.1", POD_PROXY_PORT, SERVER_NAMESPACE, SERVER_LABELS);
        KubernetesDriver driver = new KubernetesDriver(client(), KubernetesConfig.of(NAMESPACE, installation).withRuntimeClass("gvisor").withEgress(egress), mode);
        kubelet.egressPeer(new FakeKubelet.Peer(POD_PROXY_PORT, driver.egressPort(), SERVER_NAMESPACE, SERVER_LABELS));
        return driver;
    }

    /** A driver in agent-sandbox mode with egress and a warm pool of {@code pool}'s shape. */
    KubernetesDriver driverWithPool(String installation, WarmPoolShape pool) {
        // the pool's pods start with the driver: the kubelet must know the gateway's port before
        int gatewayPort;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            gatewayPort = free.getLocalPort();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        kubelet.egressPeer(new FakeKubelet.Peer(POD_PROXY_PORT, gatewayPort, SERVER_NAMESPACE, SERVER_LABELS));
        PodEgress egress = new PodEgress("127.0.0.1", gatewayPort, "127.0.0.1", POD_PROXY_PORT, SERVER_NAMESPACE, SERVER_LABELS);
        return new KubernetesDriver(client(), KubernetesConfig.of(NAMESPACE, installation).withRuntimeClass("gvisor")
                .withEgress(egress).withWarmPool(pool), AgentSandboxMode.ON);
    }

    @Override
    public void close() {
        if (extensions != null) extensions.close();
        if (controller != null) controller.close();
        kubelet.close();
        kubeletClient.close();
        try {
            server.destroy();
        } catch (IllegalStateException e) {
            // the mock server gives up waiting for a connection still closing (a watch of a fake controller, on a
            // loaded machine): it listens no more, which is all a test's end needs; what the test proved stands
        }
    }
}
