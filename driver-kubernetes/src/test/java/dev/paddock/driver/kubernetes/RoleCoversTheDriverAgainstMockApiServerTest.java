package dev.paddock.driver.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.core.spi.EgressAttachment;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxRef;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.TerminationReason;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import java.io.ByteArrayInputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every API call the driver makes over a sandbox's whole life is one the Role in deploy/kubernetes grants, and the
 * Role grants nothing the driver never calls, with sandboxes as Pods and as agent-sandbox Sandboxes (on a mock cluster
 * with the fake agent-sandbox controller): checked on the requests the mock API server received.
 */
@Tag("bwrap")
class RoleCoversTheDriverAgainstMockApiServerTest {
    /** A namespaced request: core ({@code /api/v1}) or a group's ({@code /apis/<group>/<version>}), any version. */
    private static final Pattern RESOURCE = Pattern.compile("(?:/api/v1|/apis/([^/]+)/[^/]+)/namespaces/[^/]+/([a-z]+)(?:/([^/?]+))?(?:/([a-z]+))?(\\?.*)?");

    @TempDir
    Path dir;

    @Test
    void theRoleGrantsExactlyWhatTheDriverCallsAgainstMockApiServer() throws Exception {
        List<String> pods = used(dir.resolve("pods"), false);
        List<String> agentSandbox = used(dir.resolve("agent-sandbox"), true);
        List<String> warmPool = usedWithAWarmPool(dir.resolve("warm-pool"));
        List<String> granted = granted(ManifestsTest.only(Role.class));

        assertThat(granted).containsAll(pods);
        assertThat(granted).containsAll(agentSandbox);
        assertThat(granted).containsAll(warmPool);
        assertThat(warmPool).contains("extensions.agents.x-k8s.io/sandboxclaims create", "extensions.agents.x-k8s.io/sandboxwarmpools patch");
        assertThat(agentSandbox).contains("agents.x-k8s.io/sandboxes create", "agents.x-k8s.io/sandboxes patch");
        // each mode ran as itself: Pods never touch Sandbox objects, and in both a takeover marks the pod's egress holder
        assertThat(pods).noneMatch(g -> g.startsWith("agents.x-k8s.io/"));
        assertThat(pods).contains("/pods create", "/pods patch");
        assertThat(agentSandbox).contains("/pods patch").doesNotContain("/pods create");
        // nothing granted that neither mode calls
        assertThat(Stream.of(pods, agentSandbox, warmPool).flatMap(List::stream).toList()).containsAll(granted);
    }

    /** A sandbox's whole life when it is taken from a warm pool, and a restart that brings the pool's objects up to date. */
    private List<String> usedWithAWarmPool(Path dir) throws Exception {
        try (MockCluster cluster = new MockCluster(dir, true, true)) {
            try (KubernetesDriver driver = cluster.driverWithPool("install-a", WarmPoolAgainstMockApiServerTest.POOL);
                 var api = cluster.client()) {
                WarmPoolAgainstMockApiServerTest.poolPods(api);
                NetworkPolicy limited = new NetworkPolicy(NetworkPolicy.Mode.LIMITED, List.of("example.com"), false);
                SandboxSpec spec = new SandboxSpec("sbx_rbac_pool", "ten_1", null, false, WarmPoolAgainstMockApiServerTest.SHAPE, Map.of("A", "b"),
                        limited, List.of(), new EgressAttachment(dir.toString(), "egress.sock", "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n", Map.of()));
                Sandbox s = driver.create(spec, KubernetesDriverAgainstMockApiServerTest.FENCE);
                s.exec(ExecRequest.of("true"), ExecOutput.DISCARD).await();
                s.suspend();
                driver.list();
                driver.attach(s.ref());
                s.resume();
                s.terminate(TerminationReason.USER_REQUEST);
                driver.purge(s.ref());
            }
            cluster.driverWithPool("install-a", WarmPoolAgainstMockApiServerTest.POOL).close();
            return cluster.kubelet.driverRequests.stream().map(RoleCoversTheDriverAgainstMockApiServerTest::grantNeeded)
                    .filter(g -> g != null).distinct().sorted().toList();
        }
    }

    /** What a sandbox's whole life needs granted, with sandboxes as Pods or (on a cluster serving it) agent-sandbox Sandboxes. */
    private List<String> used(Path dir, boolean agentSandbox) throws Exception {
        try (MockCluster cluster = new MockCluster(dir, agentSandbox);
             KubernetesDriver driver = cluster.driver("install-a", mode(agentSandbox))) {
            Sandbox s = driver.create(KubernetesDriverAgainstMockApiServerTest.spec("sbx_rbac"), KubernetesDriverAgainstMockApiServerTest.FENCE);
            s.exec(ExecRequest.of("true").withStdin(new byte[] {1}), ExecOutput.DISCARD).await();
            s.workspace().write("f", new ByteArrayInputStream(new byte[] {1}));
            s.suspend();
            driver.list();
            driver.attach(s.ref());
            s.resume();
            s.inspect();
            s.terminate(TerminationReason.USER_REQUEST);
            driver.destroy(new SandboxRef("sbx_rbac", KubernetesDriver.ID, null));
            driver.purge(s.ref());
            takeOverASandboxWithEgress(cluster, mode(agentSandbox));

            return cluster.kubelet.driverRequests.stream().map(RoleCoversTheDriverAgainstMockApiServerTest::grantNeeded)
                    .filter(g -> g != null).distinct().sorted().toList();
        }
    }

    private static AgentSandboxMode mode(boolean agentSandbox) {
        return agentSandbox ? AgentSandboxMode.ON : AgentSandboxMode.OFF;
    }

    /**
     * A server makes a sandbox with egress; another takes it over and marks itself the holder of its egress (on the
     * pod, and in agent-sandbox mode on the Sandbox's pod template too).
     */
    private void takeOverASandboxWithEgress(MockCluster cluster, AgentSandboxMode mode) {
        NetworkPolicy limited = new NetworkPolicy(NetworkPolicy.Mode.LIMITED, List.of("example.com"), false);
        SandboxSpec spec = new SandboxSpec("sbx_rbac_net", "ten_1", null, false, Limits.DEFAULT, Map.of(), limited, List.of(),
                new EgressAttachment(dir.toString(), "egress.sock", "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n", Map.of()));
        try (KubernetesDriver maker = cluster.driverWithEgress("install-a", mode)) {
            maker.create(spec, KubernetesDriverAgainstMockApiServerTest.FENCE);
        }
        PodEgress elsewhere = new PodEgress("127.0.0.1", 0, "127.0.0.1", MockCluster.POD_PROXY_PORT, MockCluster.SERVER_NAMESPACE,
                MockCluster.SERVER_LABELS, "127.0.0.9", 0);
        try (KubernetesDriver takeover = new KubernetesDriver(cluster.client(), KubernetesConfig.of(MockCluster.NAMESPACE, "install-a").withEgress(elsewhere), mode)) {
            assertThat(takeover.agentSandboxServed()).isEqualTo(mode == AgentSandboxMode.ON);
            takeover.attach(new SandboxRef("sbx_rbac_net", KubernetesDriver.ID, null)).orElseThrow().terminate(TerminationReason.USER_REQUEST);
        }
    }

    /** "group/resource verb" that a request needs; null for discovery and version reads, open to everyone. */
    static String grantNeeded(String request) {
        String method = request.substring(0, request.indexOf(' '));
        Matcher m = RESOURCE.matcher(request.substring(method.length() + 1));
        if (!m.matches()) return null;
        String group = m.group(1) == null ? "" : m.group(1);
        String resource = m.group(2) + (m.group(4) == null ? "" : "/" + m.group(4));
        String query = m.group(5) == null ? "" : m.group(5);
        String verb = switch (method) {
            case "GET" -> m.group(4) != null && m.group(4).equals("exec") ? "create"
                    : query.contains("watch=true") ? "watch" : m.group(3) == null ? "list" : "get";
            case "POST" -> "create";
            case "PUT" -> "update";
            case "PATCH" -> "patch";
            case "DELETE" -> "delete";
            default -> method;
        };
        return group + "/" + resource + " " + verb;
    }

    static List<String> granted(Role role) {
        List<String> grants = new ArrayList<>();
        for (PolicyRule rule : role.getRules()) {
            for (String group : rule.getApiGroups()) {
                for (String resource : rule.getResources()) {
                    // the exec API's older verb, kept for API servers before WebSocket exec needed create
                    for (String verb : rule.getVerbs()) if (!(resource.equals("pods/exec") && verb.equals("get"))) grants.add(group + "/" + resource + " " + verb);
                }
            }
        }
        return grants.stream().sorted().toList();
    }
}
