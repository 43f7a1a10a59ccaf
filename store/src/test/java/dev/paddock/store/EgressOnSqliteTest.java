package dev.paddock.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.paddock.core.egress.EgressAuditEntry;
import dev.paddock.core.egress.EgressAuditRecord;
import dev.paddock.core.egress.EgressDecision;
import dev.paddock.core.egress.SecretValue;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.store.PageRequest;
import dev.paddock.egress.proxy.EgressConfig;
import dev.paddock.egress.proxy.EgressProxy;
import dev.paddock.egress.proxy.SandboxCredentials;
import dev.paddock.egress.tls.CertificateAuthority;
import dev.paddock.egress.vault.CredentialRule;
import dev.paddock.egress.vault.Placement;
import dev.paddock.egress.vault.Vault;
import dev.paddock.egress.vault.VaultKey;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The credential path of the egress proxy on the real SQLite store (the egress module's own tests use in-memory
 * stand-ins, since this module depends on it): the vault reads the encrypted secret from SQLite, the proxy injects it
 * only over intercepted HTTPS, refuses plain HTTP to the rule's host, and writes its audit records to SQLite; no file
 * of the database holds the value.
 */
class EgressOnSqliteTest {
    static final String SECRET = "sqlite-egress-secret-4d1c9e";
    static final String HOST = "api.example.test";

    @TempDir Path dir;

    @Test
    void secretsGoOnlyOverInterceptedHttpsAndTheSqliteAuditNamesEveryRequest() throws Exception {
        CertificateAuthority upstreamCa = CertificateAuthority.ephemeral("upstream test CA");
        List<String> seenAuthorization = new CopyOnWriteArrayList<>();
        HttpsServer upstream = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        upstream.setHttpsConfigurator(new HttpsConfigurator(upstreamCa.serverContext(HOST)));
        upstream.createContext("/", ex -> {
            seenAuthorization.add(String.valueOf(ex.getRequestHeaders().getFirst("Authorization")));
            byte[] body = "ok\n".getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        upstream.start();
        int port = upstream.getAddress().getPort();
        CertificateAuthority proxyCa = CertificateAuthority.ephemeral("Paddock test installation CA");
        EgressConfig config = EgressConfig.defaults()
                .resolver(host -> List.of(InetAddress.getByAddress(host, new byte[] {127, 0, 0, 1})))
                .allowLoopbackUpstreamPorts(Set.of(port))
                .upstreamTls(upstreamCa.clientContext());
        try (JdbcStore store = JdbcStore.openSqlite(dir.resolve("paddock.db"));
             EgressProxy proxy = new EgressProxy(config, store.egressAudit(), proxyCa)) {
            Vault vault = new Vault(store.secrets(), VaultKey.fromDataDir(dir));
            String secretId = vault.create("tenant_a", "api", SecretValue.of(SECRET)).id();
            SandboxCredentials creds = SandboxCredentials.bind(vault, "tenant_a",
                    List.of(new CredentialRule(secretId, List.of(HOST), Placement.header("Authorization", "Bearer {secret}"), "API_KEY")));
            NetworkPolicy policy = new NetworkPolicy(NetworkPolicy.Mode.LIMITED, List.of(HOST, HOST + ":" + port), false);
            try (var listener = proxy.listenTcp("sbx_sqlite", policy, creds);
                 HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                         .proxy(ProxySelector.of(new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.tcpPort())))
                         .sslContext(proxyCa.clientContext()).build()) {
                var tls = client.send(HttpRequest.newBuilder(URI.create("https://" + HOST + ":" + port + "/v1/models"))
                        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(tls.statusCode()).isEqualTo(200);
                assertThat(seenAuthorization).containsExactly("Bearer " + SECRET);

                var clear = client.send(HttpRequest.newBuilder(URI.create("http://" + HOST + "/v1/models"))
                        .header("Authorization", "Bearer " + creds.environment().get("API_KEY"))
                        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(clear.statusCode()).isEqualTo(403);
                assertThat(clear.body()).contains("credential_host_needs_https");
                assertThat(seenAuthorization).hasSize(1);
            }

            List<EgressAuditRecord> records = awaitRecords(store, "sbx_sqlite", 2);
            assertThat(records.get(0).decision()).isEqualTo(EgressDecision.ALLOWED);
            assertThat(records.get(0).mode()).isEqualTo("tls_intercept");
            assertThat(records.get(0).injectedSecrets()).containsExactly(secretId);
            assertThat(records.get(1).decision()).isEqualTo(EgressDecision.DENIED);
            assertThat(records.get(1).rule()).isEqualTo("credential_host_needs_https");
            assertThat(records.get(1).injectedSecrets()).isEmpty();
            assertThat(records.toString()).doesNotContain(SECRET);
        } finally {
            upstream.stop(0);
        }
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                assertThat(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1)).as(file.toString()).doesNotContain(SECRET);
            }
        }
    }

    /** Waits, bounded, for the records the test expects: the proxy writes one just after its answer reached the client. */
    private static List<EgressAuditRecord> awaitRecords(JdbcStore store, String sandboxId, int expected) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (true) {
            List<EgressAuditRecord> now = store.egressAudit().list(sandboxId, PageRequest.first(100)).data().stream()
                    .map(EgressAuditEntry::record).toList();
            if (now.size() >= expected) return now;
            if (System.nanoTime() > deadline) throw new AssertionError("expected " + expected + " audit records, got " + now);
            Thread.sleep(10);
        }
    }
}
