package dev.paddock.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.access.ApiKeys;
import dev.paddock.agents.AgentsConfig;
import dev.paddock.agents.ManagedAgents;
import dev.paddock.core.store.SandboxStore;
import dev.paddock.core.store.Store;
import dev.paddock.server.cluster.ClusterLink;
import dev.paddock.server.cluster.NodeAuth;
import dev.paddock.server.routes.agents.AgentsRoutes;
import dev.paddock.store.JdbcStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Two nodes' HTTP servers on one store (real SQLite, subprocess sandboxes, HTTP on loopback): a create is placed by
 * labels and forwarded, a sandbox's calls made on the other node are forwarded with the caller kept (another tenant
 * still gets 404), bodies stream both ways, node credentials are refused unless they hold, and only the operator sees
 * and drains nodes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NodeForwardingTest {
    static final String SECRET = "node-forwarding-test-secret-0123456789";
    TwoNodes nodes;
    JdbcStore store;
    ApiKeys keys;
    PaddockServer serverA;
    PaddockServer serverB;
    String nodeA = "node_a";
    String nodeB = "node_b";
    String operatorKey;
    TestServer alone;
    /** Per node: whether its lease holds (as its membership would say), and how often it asked the store where a sandbox is. */
    final Map<String, AtomicBoolean> leases = new ConcurrentHashMap<>();
    final Map<String, AtomicInteger> lookups = new ConcurrentHashMap<>();
    /** Sessions whose live sandbox the test names (as a session's first turn would have made one). */
    final Map<String, String> pinned = new ConcurrentHashMap<>();

    @BeforeAll
    void start() throws Exception {
        nodes = new TwoNodes("paddock-node-forwarding");
        store = nodes.store;
        keys = nodes.keys;
        operatorKey = keys.create(ApiKeys.OPERATOR_TENANT, "operator", true).secret();
        serverA = node(nodeA, "a");
        serverB = node(nodeB, "b");
        alone = new TestServer();
    }

    private PaddockServer node(String id, String zone) throws Exception {
        return nodes.node(id, zone, (nodeId, host) -> {
            ManagedAgents agents = nodes.closeLater(new ManagedAgents(host, store.agents(),
                    AgentsConfig.defaults().withModel("http://127.0.0.1:9", "unused"), Clock.systemUTC()));
            AtomicBoolean lease = leases.computeIfAbsent(nodeId, n -> new AtomicBoolean(true));
            return new PaddockServer(host, keys, ServerConfig.defaults().withPort(0), List.of(new AgentsRoutes(agents), TwoNodes.terminalsAndPorts(host)),
                    new ClusterLink(nodeId, store.nodes(), counting(nodeId), SECRET, (tenant, session) -> Optional.ofNullable(pinned.get(session)),
                            sandbox -> lease.get() && host.attached(sandbox)));
        });
    }

    /** The real store, counting the sandbox record reads of the node's forwarding. */
    private Store counting(String nodeId) {
        AtomicInteger count = lookups.computeIfAbsent(nodeId, n -> new AtomicInteger());
        SandboxStore sandboxes = (SandboxStore) Proxy.newProxyInstance(SandboxStore.class.getClassLoader(), new Class<?>[] {SandboxStore.class},
                (proxy, m, args) -> {
                    if (m.getName().equals("find")) count.incrementAndGet();
                    return invoke(m, store.sandboxes(), args);
                });
        return (Store) Proxy.newProxyInstance(Store.class.getClassLoader(), new Class<?>[] {Store.class},
                (proxy, m, args) -> m.getName().equals("sandboxes") ? sandboxes : invoke(m, store, args));
    }

    private static Object invoke(Method m, Object target, Object[] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @AfterAll
    void stop() throws Exception {
        alone.close();
        nodes.close();
    }

    Api on(PaddockServer s, String key) {
        return new Api(s.port(), key);
    }

    @Test
    void aCreateIsPlacedByLabelAndTheSandboxAnswersThroughTheOtherNode() {
        String key = keys.create("tenant-fwd", "fwd", false).secret();
        Api.Resp created = on(serverA, key).post("/v1/sandboxes", "{\"placement\":{\"node_labels\":{\"zone\":\"b\"}}}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        String id = created.json().path("id").asString();
        assertThat(store.sandboxes().find(id).orElseThrow().fence().nodeId()).isEqualTo(nodeB);

        Api.Resp ran = on(serverA, key).post("/v1/sandboxes/" + id + "/exec", "{\"argv\":[\"sh\",\"-c\",\"echo from-$0\",\"b\"]}");
        assertThat(ran.status()).as(ran.body()).isEqualTo(200);
        assertThat(ran.json().path("stdout").asString()).contains("from-b");

        byte[] content = "x".repeat(300_000).getBytes(StandardCharsets.UTF_8);
        Api.Resp put = on(serverA, key).put("/v1/sandboxes/" + id + "/files/content?path=big.txt", content);
        assertThat(put.status()).as(put.body()).isEqualTo(200);
        Api.Resp read = on(serverA, key).get("/v1/sandboxes/" + id + "/files/content?path=big.txt");
        assertThat(read.bytes()).isEqualTo(content);

        // the caller travels with the forwarded request: another tenant still cannot see the sandbox
        Api other = on(serverA, keys.create("tenant-other", "other", true).secret());
        other.post("/v1/sandboxes/" + id + "/exec", "{\"argv\":[\"true\"]}").error(404, "not_found_error", null);

        on(serverA, key).post("/v1/sandboxes", "{\"placement\":{\"node_labels\":{\"zone\":\"nowhere\"}}}")
                .error(503, "unavailable_error", "no_node_fits");
    }

    @Test
    void aWriteToASessionGoesToTheNodeThatHoldsItsSandbox() {
        String key = keys.create("tenant-ses", "ses", false).secret();
        Api viaA = on(serverA, key);
        String sandbox = viaA.post("/v1/sandboxes", "{\"placement\":{\"node_labels\":{\"zone\":\"b\"}}}").json().path("id").asString();
        String agent = viaA.post("/v1/agents", "{\"name\":\"ag\",\"model\":\"m\",\"tools\":[{\"type\":\"agent_toolset_20260401\"}]}")
                .json().path("id").asString();
        String env = viaA.post("/v1/environments", "{\"name\":\"env\",\"config\":{\"type\":\"self_hosted\"}}").json().path("id").asString();
        Api.Resp made = viaA.post("/v1/sessions", "{\"agent\":\"" + agent + "\",\"environment_id\":\"" + env + "\"}");
        assertThat(made.status()).as(made.body()).isEqualTo(200);
        String session = made.json().path("id").asString();
        pinned.put(session, sandbox);

        Api.Resp archived = viaA.post("/v1/sessions/" + session + "/archive", null);
        assertThat(archived.status()).as(archived.body()).isEqualTo(200);
        assertThat(on(serverB, null).get("/metrics").body()).as("node b served the archive")
                .contains("route=\"/v1/sessions/{session_id}/archive\"");
    }

    @Test
    void aSandboxHeldHereIsAnsweredWithoutAskingTheStoreWhereItIsWhileTheLeaseHolds() {
        String key = keys.create("tenant-held", "held", false).secret();
        String id = on(serverA, key).post("/v1/sandboxes", "{\"placement\":{\"node_labels\":{\"zone\":\"b\"}}}").json().path("id").asString();
        assertThat(store.sandboxes().nodeLabels(id)).as("kept with the record, for a relocation").containsExactlyEntriesOf(Map.of("zone", "b"));
        StringBuilder many = new StringBuilder("{\"placement\":{\"node_labels\":{\"zone\":\"b\"");
        for (int i = 0; i < 40; i++) many.append(",\"l").append(i).append("\":\"v\"");
        alone.as(alone.adminKey).post("/v1/sandboxes", many.append("}}}").toString()).error(400, "invalid_request_error", "invalid_field");
        String exec = "/v1/sandboxes/" + id + "/exec";
        String echo = "{\"argv\":[\"echo\",\"ran\"]}";

        int before = lookups.get(nodeB).get();
        Api.Resp here = on(serverB, key).post(exec, echo);
        assertThat(here.json().path("stdout").asString()).as(here.body()).contains("ran");
        assertThat(lookups.get(nodeB).get()).as("B holds it: no lookup").isEqualTo(before);

        int beforeA = lookups.get(nodeA).get();
        Api.Resp forwarded = on(serverA, key).post(exec, echo);
        assertThat(forwarded.json().path("stdout").asString()).as(forwarded.body()).contains("ran");
        assertThat(lookups.get(nodeA).get()).as("A does not hold it: the store says where").isGreaterThan(beforeA);

        // a node whose lease does not hold trusts no attachment of its own: the store decides (it still names B here)
        leases.get(nodeB).set(false);
        try {
            Api.Resp asked = on(serverB, key).post(exec, echo);
            assertThat(asked.json().path("stdout").asString()).as(asked.body()).contains("ran");
            assertThat(lookups.get(nodeB).get()).isGreaterThan(before);
        } finally {
            leases.get(nodeB).set(true);
        }
    }

    @Test
    void aWebSocketForAnotherNodesSandboxIsRefusedWithThatNodesAnswer() throws Exception {
        String key = keys.create("tenant-ws", "ws", false).secret();
        String id = on(serverA, key).post("/v1/sandboxes", "{\"placement\":{\"node_labels\":{\"zone\":\"b\"}}}").json().path("id").asString();
        String attach = "/v1/sandboxes/" + id + "/pty/pty_missing/attach?token=ptt_forged";

        int lookedUpByA = lookups.get(nodeA).get();
        WebSocketHandshakeException viaA = refusedUpgrade(serverA, attach, null);
        assertThat(viaA.getResponse().statusCode()).isEqualTo(401);
        assertThat(String.valueOf(viaA.getResponse().body())).contains("invalid_terminal_token");
        assertThat(lookups.get(nodeA).get()).as("A asked where the sandbox is").isGreaterThan(lookedUpByA);

        WebSocketHandshakeException wrongSecret = refusedUpgrade(serverB, attach, "not-the-secret-" + "0".repeat(30));
        assertThat(wrongSecret.getResponse().statusCode()).isEqualTo(401);
        assertThat(String.valueOf(wrongSecret.getResponse().body())).contains("invalid_api_key");
    }

    private static WebSocketHandshakeException refusedUpgrade(PaddockServer server, String path, String nodeSecret) throws Exception {
        WebSocket.Builder b = HttpClient.newHttpClient().newWebSocketBuilder();
        if (nodeSecret != null) b.header(NodeAuth.SECRET_HEADER, nodeSecret);
        try {
            b.buildAsync(URI.create("ws://127.0.0.1:" + server.port() + path), new WebSocket.Listener() {}).get(20, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof WebSocketHandshakeException refused) return refused;
            throw e;
        }
        throw new AssertionError("the upgrade of " + path + " was accepted");
    }

    @Test
    void nodeCredentialsAreTrustedOnlyWhenTheSecretHolds() {
        String key = keys.create("tenant-cred", "cred", false).secret();
        String id = on(serverB, key).post("/v1/sandboxes", "{\"placement\":{\"node_labels\":{\"zone\":\"b\"}}}").json().path("id").asString();

        Api anonymous = on(serverB, null);
        HttpRequest.Builder wrong = anonymous.request("GET", "/v1/sandboxes/" + id, HttpRequest.BodyPublishers.noBody())
                .header(NodeAuth.SECRET_HEADER, "not-the-secret-" + "0".repeat(30))
                .header(NodeAuth.PRINCIPAL_HEADER, "tenant-cred;x;true");
        anonymous.send(wrong).error(401, "authentication_error", "invalid_api_key");
        // so on a path that carries its own token: a wrong node secret is refused before the token is looked at
        HttpRequest.Builder wrongOnToken = anonymous.request("GET", "/v1/sandboxes/" + id + "/ports/8000/t/prt_any/",
                HttpRequest.BodyPublishers.noBody()).header(NodeAuth.SECRET_HEADER, "not-the-secret-" + "0".repeat(30));
        anonymous.send(wrongOnToken).error(401, "authentication_error", "invalid_api_key");

        // a caller named beside a real key changes nothing: the key decides
        Api otherTenant = on(serverB, keys.create("tenant-elsewhere", "e", false).secret());
        HttpRequest.Builder claim = otherTenant.request("GET", "/v1/sandboxes/" + id, HttpRequest.BodyPublishers.noBody())
                .header(NodeAuth.PRINCIPAL_HEADER, "tenant-cred;x;true");
        otherTenant.send(claim).error(404, "not_found_error", null);

        // a server that is no node refuses node credentials, whatever they say
        HttpRequest.Builder toAlone = alone.as(null).request("GET", "/v1/sandboxes", HttpRequest.BodyPublishers.noBody())
                .header(NodeAuth.SECRET_HEADER, SECRET).header(NodeAuth.PRINCIPAL_HEADER, "default;x;true");
        alone.as(null).send(toAlone).error(401, "authentication_error", "invalid_api_key");
    }

    @Test
    void onlyTheOperatorSeesAndDrainsNodes() {
        on(serverA, keys.create("tenant-admin", "adm", true).secret()).get("/v1/nodes").error(403, "permission_error", "operator_required");
        Api operator = on(serverA, operatorKey);
        Api.Resp listed = operator.get("/v1/nodes");
        assertThat(listed.status()).as(listed.body()).isEqualTo(200);
        assertThat(listed.json().path("data")).hasSize(2);
        assertThat(listed.json().path("data").get(0).path("self").asBoolean()).isTrue();
        assertThat(listed.json().path("data").get(0).path("checkpoint_dir").asString()).isEqualTo(nodes.dir.resolve(nodeA).resolve("checkpoints").toString());

        Api.Resp drained = operator.post("/v1/nodes/" + nodeB + "/drain", null);
        assertThat(drained.json().path("state").asString()).isEqualTo("draining");
        String key = keys.create("tenant-drain", "d", false).secret();
        on(serverA, key).post("/v1/sandboxes", "{\"placement\":{\"node_labels\":{\"zone\":\"b\"}}}").error(503, "unavailable_error", "no_node_fits");
        assertThat(operator.post("/v1/nodes/" + nodeB + "/activate", null).json().path("state").asString()).isEqualTo("active");
        operator.get("/v1/nodes/node_missing").error(404, "not_found_error", "node_not_found");

        alone.as(alone.adminKey).get("/v1/nodes").error(400, "invalid_request_error", "nodes_need_postgres");
    }
}
