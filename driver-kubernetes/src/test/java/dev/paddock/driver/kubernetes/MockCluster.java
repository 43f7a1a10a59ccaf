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
    /** The mock server logs every request at INFO through java.util.logging; held here so the setting stays. */
    private static final Logger MOCK_LOG = Logger.getLogger("io.fabric8.mockwebserver");

    static {
        MOCK_LOG.setLevel(Level.WARNING);
    }

    final KubernetesMockServer server;
    final FakeKubelet kubelet;
    private final KubernetesClient kubeletClient;

    MockCluster(Path root) {
        kubelet = new FakeKubelet(root);
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), kubelet.dispatcher(), false);
        server.init();
        kubeletClient = server.createClient(b -> b.withHttpClientFactory(new JdkHttpClientFactory())
                .editOrNewConfig().withUserAgent(FakeKubelet.USER_AGENT).endConfig());
        kubelet.start(kubeletClient, NAMESPACE);
    }

    KubernetesClient client() {
        return server.createClient(new JdkHttpClientFactory());
    }

    KubernetesDriver driver(String installation) {
        return new KubernetesDriver(client(), KubernetesConfig.of(NAMESPACE, installation).withRuntimeClass("gvisor"));
    }

    @Override
    public void close() {
        kubelet.close();
        kubeletClient.close();
        server.destroy();
    }
}
