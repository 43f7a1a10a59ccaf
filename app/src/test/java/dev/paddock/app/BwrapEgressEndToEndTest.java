package dev.paddock.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.paddock.app.client.Json;
import dev.paddock.app.client.PaddockClient;
import dev.paddock.app.serve.PaddockApp;
import dev.paddock.app.serve.ServeSettings;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The whole egress path with real parts: the REST API, the runtime host, real bwrap sandboxes whose only way out is
 * the in-sandbox forwarder to the egress proxy, the SQLite audit log and vault, and real upstream servers on the
 * host's loopback (reachable only through the test switch {@code egress_test_loopback_ports}). {@code localhost} plays
 * the credential's API host; {@code 127.0.0.1} plays any other allowed host.
 */
@Tag("bwrap")
class BwrapEgressEndToEndTest {
    static final String SECRET = "e2e-secret-" + Long.toHexString(new java.security.SecureRandom().nextLong()) + "-value";

    EgressUpstreams up;
    Path dataDir;
    ServeSettings settings;
    PaddockApp app;
    PaddockClient api;
    String key;

    @BeforeEach
    void start() throws IOException {
        up = new EgressUpstreams();
        dataDir = Files.createTempDirectory(Path.of("/tmp"), "pe");
        Path ca = up.writeCa(Files.createTempDirectory("paddock-upstream-ca"));
        settings = ServeSettings.resolve(Map.of("data_dir", dataDir.toString(), "port", "0", "driver", "bwrap",
                "egress_test_loopback_ports", up.httpPort() + "," + up.httpsPort(), "egress_upstream_ca_file", ca.toString()), Map.of(), null, dataDir);
        app = PaddockApp.start(settings);
        key = app.createdAdminKey().orElseThrow();
        api = new PaddockClient(app.url(), key);
    }

    @AfterEach
    void stop() throws Exception {
        try {
            for (var s : api.get("/v1/sandboxes", Map.of("limit", 1000)).path("data")) {
                api.call("DELETE", "/v1/sandboxes/" + s.path("id").asString(), Map.of(), null);
            }
        } finally {
            app.close();
            up.close();
            BwrapServer.removeDataDir(dataDir);
        }
    }

    @Test
    void limitedModeReachesAllowedHostsInjectsCredentialsAndAuditsEverything() throws Exception {
        String secretId = api.json("POST", "/v1/secrets", Map.of(), obj().put("name", "upstream").put("value", SECRET)).path("id").asString();
        int h = up.httpPort();
        int s = up.httpsPort();
        ObjectNode body = obj();
        body.putObject("network").put("type", "limited").putArray("allowed_hosts")
                .add("localhost:" + h).add("localhost:" + s).add("127.0.0.1:" + h);
        ObjectNode cred = body.putArray("credentials").addObject().put("secret_id", secretId).put("env", "API_KEY")
                .put("header", "Authorization").put("template", "Bearer {secret}");
        cred.putArray("hosts").add("localhost");
        JsonNode created = api.json("POST", "/v1/sandboxes", Map.of(), body);
        String id = created.path("id").asString();
        assertThat(created.toString()).doesNotContain(SECRET);

        // curl over intercepted HTTPS (the sandbox trusts the installation CA through its system bundle); plain HTTP to
        // the credential's host is refused, so neither the value nor the placeholder crosses the wire in cleartext
        JsonNode clear = sh(id, "curl -sS --max-time 20 -H \"Authorization: Bearer $API_KEY\" -w '%{http_code}' http://localhost:" + h + "/curl-http");
        assertThat(clear.path("stdout").asString()).as(clear.toString()).contains("credential_host_needs_https").endsWith("403");
        assertThat(up.reached("/curl-http")).isFalse();
        JsonNode tls = sh(id, "curl -sS --max-time 20 https://localhost:" + s + "/curl-https");
        assertThat(tls.path("stdout").asString()).as(tls.toString()).isEqualTo("ok https /curl-https\n");
        assertThat(up.last("/curl-https").header("Authorization")).isEqualTo("Bearer " + SECRET);

        // Python urllib, plain and TLS; the other allowed host gets no credential
        JsonNode py = run(id, List.of("python3", "-c", "import urllib.request as u\n"
                + "print(u.urlopen('http://127.0.0.1:" + h + "/py-http', timeout=20).read().decode(), end='')\n"
                + "print(u.urlopen('https://localhost:" + s + "/py-https', timeout=20).read().decode(), end='')"));
        assertThat(py.path("stdout").asString()).as(py.toString()).isEqualTo("ok http /py-http\nok https /py-https\n");
        assertThat(up.last("/py-http").header("Authorization")).isNull();
        assertThat(up.last("/py-https").header("Authorization")).isEqualTo("Bearer " + SECRET);

        // pip download from a local PyPI "simple" index (on the host without a credential rule)
        JsonNode pip = sh(id, "python3 -m pip download --no-deps --disable-pip-version-check --no-cache-dir -q --index-url http://127.0.0.1:" + h
                + "/simple/ -d /tmp/dl tinypkg && ls /tmp/dl");
        assertThat(pip.path("exit_code").asInt()).as(pip.toString()).isZero();
        assertThat(pip.path("stdout").asString()).contains(EgressUpstreams.WHEEL);

        // blocked: a host outside the list, private and metadata addresses, a name resolving to loopback
        for (String url : List.of("http://127.0.0.2:" + h + "/blocked", "http://10.0.0.1/x", "http://169.254.169.254/latest/meta-data/", "http://localhost:22/")) {
            JsonNode r = sh(id, "curl -sS --max-time 20 -o /dev/stderr -w '%{http_code}' " + url);
            assertThat(r.path("stdout").asString()).as(url + ": " + r).isEqualTo("403");
            assertThat(r.path("stderr").asString()).contains("paddock egress proxy: blocked");
        }
        assertThat(up.reached("/blocked")).isFalse();

        // going around the proxy gets nowhere
        String hostIp = hostAddress();
        for (String target : List.of("127.0.0.1/" + h, "1.1.1.1/80", hostIp + "/" + h)) {
            JsonNode direct = sh(id, "timeout 10 bash -c 'exec 3<>/dev/tcp/" + target + "' && echo CONNECTED");
            assertThat(direct.path("stdout").asString()).as(target).doesNotContain("CONNECTED");
        }

        // the secret is nowhere inside: environment, process list, files
        JsonNode inside = sh(id, "env; ps -eo args; cat /proc/*/environ /proc/*/cmdline 2>/dev/null | tr '\\0' '\\n'; cat /etc/ssl/certs/ca-certificates.crt | tail -3");
        assertThat(inside.toString()).doesNotContain(SECRET).contains("paddock-secret-");

        // every attempt is in the audit log, served by the API, and nothing there holds the secret
        JsonNode log = api.get("/v1/sandboxes/" + id + "/egress", Map.of("limit", 1000));
        List<String> hosts = stream(log.path("data")).map(r -> r.path("host").asString() + " " + r.path("decision").asString()).toList();
        assertThat(hosts).contains("localhost allowed", "localhost denied", "127.0.0.1 allowed", "127.0.0.2 denied", "10.0.0.1 denied", "169.254.169.254 denied");
        assertThat(stream(log.path("data")).map(r -> r.path("rule").asString())).contains("credential_host_needs_https");
        assertThat(stream(log.path("data")).filter(r -> r.path("injected_secrets").toString().contains(secretId)))
                .hasSizeGreaterThanOrEqualTo(2).allSatisfy(r -> assertThat(r.path("mode").asString()).isEqualTo("tls_intercept"));
        assertThat(log.toString()).doesNotContain(SECRET);

        // a restarted host re-creates the socket the running sandbox has bound: its next request works, same placeholder
        app.close();
        app = PaddockApp.start(settings);
        api = new PaddockClient(app.url(), key);
        assertThat(sh(id, "curl -sS --max-time 20 https://localhost:" + s + "/after-restart").path("stdout").asString()).isEqualTo("ok https /after-restart\n");
        assertThat(up.last("/after-restart").header("Authorization")).isEqualTo("Bearer " + SECRET);

        assertThat(grepTree(dataDir, SECRET)).as("no file of the data directory (database, logs, sockets dir) holds the value").isEmpty();
    }

    @Test
    void aRunningSandboxsAllowlistChangesOverTheApiAtOnceAndAcrossARestart() throws Exception {
        int h = up.httpPort();
        ObjectNode body = obj();
        body.putObject("network").put("type", "limited").putArray("allowed_hosts").add("127.0.0.1:" + h);
        String id = api.json("POST", "/v1/sandboxes", Map.of(), body).path("id").asString();
        assertThat(sh(id, "curl -sS --max-time 20 http://127.0.0.1:" + h + "/before").path("stdout").asString()).isEqualTo("ok http /before\n");

        ObjectNode change = obj().put("type", "limited");
        change.putArray("allowed_hosts").add("localhost:" + h);
        JsonNode changed = api.json("PATCH", "/v1/sandboxes/" + id + "/network", Map.of(), change);
        assertThat(changed.path("network").path("allowed_hosts").toString()).isEqualTo("[\"localhost:" + h + "\"]");
        String refused = "curl -sS --max-time 20 -o /dev/null -w '%{http_code}' http://127.0.0.1:" + h + "/after";
        assertThat(sh(id, refused).path("stdout").asString()).as("the host the new policy leaves out, at once").isEqualTo("403");
        assertThat(sh(id, "curl -sS --max-time 20 http://localhost:" + h + "/now-allowed").path("stdout").asString()).isEqualTo("ok http /now-allowed\n");
        JsonNode event = stream(api.get("/v1/sandboxes/" + id + "/events", Map.of("limit", 100)).path("data"))
                .filter(e -> e.path("type").asString().equals("sandbox.network_changed")).findFirst().orElseThrow();
        assertThat(event.path("data").path("old").path("allowed_hosts").toString()).contains("127.0.0.1:" + h);
        assertThat(event.path("data").path("new").path("allowed_hosts").toString()).contains("localhost:" + h);
        assertThat(stream(api.get("/v1/sandboxes/" + id + "/egress", Map.of("limit", 1000)).path("data")).map(r -> r.path("mode").asString()))
                .contains("policy_change");

        app.close();
        app = PaddockApp.start(settings);
        api = new PaddockClient(app.url(), key);
        assertThat(sh(id, refused).path("stdout").asString()).as("a restarted server opens the listener with the new policy").isEqualTo("403");
        assertThat(sh(id, "curl -sS --max-time 20 http://localhost:" + h + "/after-restart").path("stdout").asString()).isEqualTo("ok http /after-restart\n");

        String closed = api.json("POST", "/v1/sandboxes", Map.of(), obj()).path("id").asString();
        assertThatThrownBy(() -> api.json("PATCH", "/v1/sandboxes/" + closed + "/network", Map.of(), change))
                .hasMessageContaining("no egress listener");
    }

    @Test
    void unrestrictedModeStillRefusesPrivateAddressesAndLeavesOtherTlsEndToEnd() throws Exception {
        ObjectNode body = obj();
        body.putObject("network").put("type", "unrestricted");
        String id = api.json("POST", "/v1/sandboxes", Map.of(), body).path("id").asString();
        for (String url : List.of("http://169.254.169.254/", "http://10.1.2.3/", "http://192.168.1.1/", "http://localhost:22/", "http://[fd00:ec2::254]/")) {
            JsonNode r = sh(id, "curl -sS --max-time 20 -o /dev/null -w '%{http_code}' " + url);
            assertThat(r.path("stdout").asString()).as(url + ": " + r).isEqualTo("403");
        }
        // without a credential rule HTTPS is a plain tunnel: the upstream's own certificate arrives, not Paddock's
        api.upload("PUT", "/v1/sandboxes/" + id + "/files/content", Map.of("path", "upstream-ca.pem"),
                () -> new java.io.ByteArrayInputStream(up.testCa.certificatePem().getBytes(StandardCharsets.UTF_8)));
        JsonNode tunnel = sh(id, "env -u NO_PROXY -u no_proxy curl -sS --max-time 20 --cacert /workspace/upstream-ca.pem https://localhost:" + up.httpsPort() + "/tunnel");
        assertThat(tunnel.path("stdout").asString()).as(tunnel.toString()).isEqualTo("ok https /tunnel\n");
        // a tunnel's record (its bytes, its duration) is written once the proxy sees it close, which may be after curl ends
        await().atMost(java.time.Duration.ofSeconds(20)).untilAsserted(() -> assertThat(stream(api.get("/v1/sandboxes/" + id + "/egress", Map.of())
                .path("data")).filter(r -> r.path("mode").asString().equals("connect_tunnel"))).isNotEmpty());
    }

    // ---- helpers ----

    /** A shell line; {@code localhost} is in NO_PROXY inside the sandbox, and here it stands for a remote host. */
    private JsonNode sh(String id, String line) {
        return run(id, List.of("/bin/sh", "-c", "unset NO_PROXY no_proxy; " + line));
    }

    private JsonNode run(String id, List<String> argv) {
        ObjectNode b = obj().put("timeout_seconds", 120);
        var a = b.putArray("argv");
        argv.forEach(a::add);
        var env = b.putObject("env");
        env.put("NO_PROXY", "");
        env.put("no_proxy", "");
        return api.json("POST", "/v1/sandboxes/" + id + "/exec", Map.of(), b);
    }

    private static ObjectNode obj() {
        return Json.object();
    }

    private static Stream<JsonNode> stream(JsonNode array) {
        List<JsonNode> out = new java.util.ArrayList<>();
        array.forEach(out::add);
        return out.stream();
    }

    private static String hostAddress() throws IOException {
        for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (!nif.isUp() || nif.isLoopback()) continue;
            for (InetAddress a : Collections.list(nif.getInetAddresses())) if (a instanceof Inet4Address) return a.getHostAddress();
        }
        return "192.0.2.1";
    }

    private static List<Path> grepTree(Path root, String needle) throws IOException {
        byte[] n = needle.getBytes(StandardCharsets.UTF_8);
        try (Stream<Path> files = Files.walk(root)) {
            // disks/ holds the sandboxes' sparse disk images (gibibytes of holes); what they hold is walked through
            // their mounts at sandboxes/<id>, which this walk visits while the sandbox runs
            Path disks = root.resolve("disks");
            return files.filter(p -> !p.startsWith(disks)).filter(Files::isRegularFile).filter(p -> {
                try {
                    return indexOf(Files.readAllBytes(p), n) >= 0;
                } catch (IOException e) {
                    return false;
                }
            }).toList();
        }
    }

    private static int indexOf(byte[] hay, byte[] n) {
        outer:
        for (int i = 0; i + n.length <= hay.length; i++) {
            for (int j = 0; j < n.length; j++) if (hay[i + j] != n[j]) continue outer;
            return i;
        }
        return -1;
    }
}
