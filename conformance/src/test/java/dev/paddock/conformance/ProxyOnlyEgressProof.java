package dev.paddock.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.paddock.core.Ids;
import dev.paddock.core.conformance.Conformance;
import dev.paddock.core.egress.EgressAuditEntry;
import dev.paddock.core.egress.EgressAuditRecord;
import dev.paddock.core.egress.EgressDecision;
import dev.paddock.core.egress.SecretValue;
import dev.paddock.core.spi.CredentialBinding;
import dev.paddock.core.spi.EgressAttachment;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxDriver;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.TerminationReason;
import dev.paddock.core.store.PageRequest;
import dev.paddock.egress.ProxyEgressPort;
import dev.paddock.egress.proxy.EgressConfig;
import dev.paddock.egress.proxy.EgressProxy;
import dev.paddock.egress.tls.CertificateAuthority;
import dev.paddock.egress.vault.Vault;
import dev.paddock.egress.vault.VaultKey;
import dev.paddock.store.JdbcStore;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;

/**
 * The proof for drivers that give a sandbox the egress proxy as its only way out ({@code spec.egress()}): the real
 * proxy on the real SQLite vault and audit log, with a credential rule for {@code localhost}, real upstreams on the
 * host's loopback (HTTPS for the rule's host, plain HTTP for {@code 127.0.0.1}, any other host), and a sandbox of the
 * driver under test. Tools inside use the proxy through the variables the driver sets and trust the installation CA
 * through the bundle the driver installs.
 */
final class ProxyOnlyEgressProof implements EgressProofs.BypassProof {
    private static final String TENANT = "tenant_conformance";

    @Override
    public void prove(SandboxDriver driver, Path dataDir) throws Exception {
        byte[] raw = new byte[12];
        new SecureRandom().nextBytes(raw);
        String secret = "conformance-secret-" + HexFormat.of().formatHex(raw);
        AtomicReference<String> seenKey = new AtomicReference<>();
        CertificateAuthority upstreamCa = CertificateAuthority.ephemeral("conformance upstream CA");
        HttpsServer tlsUpstream = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        tlsUpstream.setHttpsConfigurator(new HttpsConfigurator(upstreamCa.serverContext("localhost")));
        HttpServer plainUpstream = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        for (HttpServer server : List.of(tlsUpstream, plainUpstream)) {
            server.createContext("/", ex -> answer(ex, seenKey));
            server.start();
        }
        int tlsPort = tlsUpstream.getAddress().getPort();
        int plainPort = plainUpstream.getAddress().getPort();
        try (JdbcStore store = JdbcStore.openSqlite(dataDir.resolve("conformance-egress.db"))) {
            Vault vault = new Vault(store.secrets(), VaultKey.fromDataDir(dataDir));
            prove(driver, dataDir, store, vault, secret, seenKey, upstreamCa, tlsPort, plainPort);
        } finally {
            tlsUpstream.stop(0);
            plainUpstream.stop(0);
        }
    }

    private static void prove(SandboxDriver driver, Path dataDir, JdbcStore store, Vault vault, String secret, AtomicReference<String> seenKey,
                              CertificateAuthority upstreamCa, int tlsPort, int plainPort) throws Exception {
        try (ServerSocket hostService = new ServerSocket(0, 16, InetAddress.getByName("0.0.0.0"));
             EgressProxy proxy = new EgressProxy(EgressConfig.defaults().allowLoopbackUpstreamPorts(Set.of(tlsPort, plainPort))
                     .upstreamTls(upstreamCa.clientContext()), store.egressAudit(), CertificateAuthority.ephemeral("Paddock conformance CA"));
             ProxyEgressPort egress = new ProxyEgressPort(proxy, vault, dataDir)) {
            String secretId = vault.create(TENANT, "proof", SecretValue.of(secret)).id();
            String id = Ids.newId("sbx");
            NetworkPolicy policy = new NetworkPolicy(NetworkPolicy.Mode.LIMITED,
                    List.of("localhost:" + tlsPort, "localhost:" + plainPort, "127.0.0.1:" + plainPort), false);
            List<CredentialBinding> credentials = List.of(new CredentialBinding(secretId, List.of("localhost"), null, null, "API_KEY"));
            EgressAttachment attachment = egress.open(TENANT, id, policy, credentials);
            String placeholder = attachment.env().get("API_KEY");
            Sandbox sandbox = driver.create(new SandboxSpec(id, TENANT, null, false, null, Map.of(), policy, credentials, attachment),
                    new Fence("host-conformance", 1));
            try {
                String curl = "env -u NO_PROXY -u no_proxy curl -sS --max-time 20 -H \"x-api-key: $API_KEY\" ";
                Runs ruleHost = Runs.shell(sandbox, curl + "https://localhost:" + tlsPort + "/rule-host");
                assertThat(ruleHost.exit()).as("through the proxy to the rule's host over HTTPS: %s", ruleHost.stderr()).isZero();
                assertThat(ruleHost.stdout()).isEqualTo("upstream ok\n");
                assertThat(seenKey.get()).as("the placeholder is replaced for the rule's host").isEqualTo(secret);

                seenKey.set(null);
                Runs cleartext = Runs.shell(sandbox, curl + "-w '%{http_code}' http://localhost:" + plainPort + "/rule-host-in-clear");
                assertThat(cleartext.stdout()).as("plain HTTP to the rule's host is refused").contains("credential_host_needs_https").endsWith("403");
                assertThat(seenKey.get()).as("nothing reached the upstream").isNull();

                Runs otherHost = Runs.shell(sandbox, curl + "http://127.0.0.1:" + plainPort + "/other-host");
                assertThat(otherHost.exit()).as(otherHost.stderr()).isZero();
                assertThat(seenKey.get()).as("another host gets the placeholder, not the value").isEqualTo(placeholder);
                List<EgressAuditRecord> records = Awaitility.await().atMost(Duration.ofSeconds(20)).until(
                        () -> store.egressAudit().list(id, PageRequest.first(1000)).data().stream().map(EgressAuditEntry::record).toList(),
                        r -> r.stream().anyMatch(x -> x.decision() == EgressDecision.PLACEHOLDER_TO_UNLISTED_HOST));
                assertThat(records).anyMatch(r -> "credential_host_needs_https".equals(r.rule()));
                assertThat(records.toString()).doesNotContain(secret);

                assertDirectConnectionsFail(sandbox, hostService.getLocalPort(), plainPort);
                assertSecretNotInside(sandbox, secret, placeholder);
                assertNoResolverInside(sandbox);
                assertPolicyChangesWhileRunning(sandbox, egress, store, id, curl, secret, seenKey, tlsPort, plainPort);
            } finally {
                sandbox.terminate(TerminationReason.USER_REQUEST);
                egress.close(id);
            }
        }
    }

    /**
     * A running sandbox's policy changes in place ({@value Conformance#NETWORK_UPDATE}): the listener keeps the socket
     * the sandbox has bound, a host the new rules leave out is refused from the next connection on, and the
     * credential bound at the start still reaches its host.
     */
    private static void assertPolicyChangesWhileRunning(Sandbox sandbox, ProxyEgressPort egress, JdbcStore store, String id, String curl,
                                                        String secret, AtomicReference<String> seenKey, int tlsPort, int plainPort) throws Exception {
        egress.changePolicy(id, new NetworkPolicy(NetworkPolicy.Mode.LIMITED, List.of("localhost:" + tlsPort), false));
        seenKey.set(null);
        Runs dropped = Runs.shell(sandbox, curl + "-w '%{http_code}' http://127.0.0.1:" + plainPort + "/after-change");
        assertThat(dropped.stdout()).as("a host the new policy leaves out is refused").contains("host_not_allowed").endsWith("403");
        assertThat(seenKey.get()).as("nothing reached the dropped host").isNull();
        Runs kept = Runs.shell(sandbox, curl + "https://localhost:" + tlsPort + "/after-change");
        assertThat(kept.stdout()).as(kept.stderr()).isEqualTo("upstream ok\n");
        assertThat(seenKey.get()).as("the credential bound at the start still reaches its host").isEqualTo(secret);
        assertThat(store.egressAudit().list(id, PageRequest.first(1000)).data()).map(EgressAuditEntry::record)
                .anyMatch(r -> r.mode().equals("policy_change") && r.rule().startsWith("network_changed:limited"));
    }

    /**
     * The sandbox has no resolver of its own: no name resolves inside, so DNS cannot carry data out; names reach the
     * egress proxy only inside requests, where the policy refuses them before anything is resolved.
     */
    private static void assertNoResolverInside(Sandbox sandbox) throws InterruptedException {
        Runs lookup = Runs.shell(sandbox, "timeout 20 getent hosts example.com && echo RESOLVED || echo UNRESOLVED");
        assertThat(lookup.stdout()).as("a name lookup inside the sandbox").isEqualTo("UNRESOLVED\n");
        Runs py = Runs.run(sandbox, ExecRequest.of("python3", "-c",
                "import socket\ntry:\n print(socket.getaddrinfo('example.com', 443))\nexcept OSError as e:\n print('unresolved', e)"));
        assertThat(py.stdout()).as("python's resolver inside the sandbox").startsWith("unresolved");
    }

    private static void answer(HttpExchange ex, AtomicReference<String> seenKey) throws IOException {
        seenKey.set(ex.getRequestHeaders().getFirst("x-api-key"));
        byte[] body = "upstream ok\n".getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(200, body.length);
        ex.getResponseBody().write(body);
        ex.close();
    }

    /** bash /dev/tcp and Python sockets, to a public address, the host's own address and the upstream's port. */
    private static void assertDirectConnectionsFail(Sandbox sandbox, int hostServicePort, int upstreamPort) throws InterruptedException {
        List<String> targets = new ArrayList<>(List.of("1.1.1.1/80", "93.184.216.34/443", "127.0.0.1/" + upstreamPort));
        hostAddress().ifPresent(a -> targets.add(a + "/" + hostServicePort));
        for (String target : targets) {
            Runs bash = Runs.shell(sandbox, "timeout 10 bash -c 'exec 3<>/dev/tcp/" + target + "' && echo CONNECTED");
            assertThat(bash.stdout()).as("bash /dev/tcp/%s must not connect around the proxy", target).doesNotContain("CONNECTED");
            String[] hp = target.split("/");
            Runs py = Runs.run(sandbox, ExecRequest.of("python3", "-c",
                    "import socket,sys\ntry:\n socket.create_connection(('" + hp[0] + "'," + hp[1] + "),5)\n print('CONNECTED')\nexcept OSError as e:\n print('refused',e)"));
            assertThat(py.stdout()).as("python to %s must not connect around the proxy", target).doesNotContain("CONNECTED").contains("refused");
        }
    }

    /** The value is searched for from halves, so no command line or environment inside ever holds it whole. */
    private static void assertSecretNotInside(Sandbox sandbox, String secret, String placeholder) throws InterruptedException {
        int half = secret.length() / 2;
        String script = """
                import os, sys
                needle = (os.environ['H1'] + os.environ['H2']).encode()
                hits = []
                for pid in os.listdir('/proc'):
                    if not pid.isdigit(): continue
                    for part in ('environ', 'cmdline'):
                        try:
                            with open('/proc/%s/%s' % (pid, part), 'rb') as f:
                                if needle in f.read(): hits.append('/proc/%s/%s' % (pid, part))
                        except OSError: pass
                for top in ('/workspace', '/tmp', '/dev', '/etc/ssl', '/run'):
                    for root, dirs, files in os.walk(top):
                        for name in files:
                            p = os.path.join(root, name)
                            try:
                                if os.path.isfile(p) and not os.path.islink(p):
                                    with open(p, 'rb') as f:
                                        if needle in f.read(1 << 22): hits.append(p)
                            except OSError: pass
                print('API_KEY=' + os.environ.get('API_KEY', ''))
                print('HITS=' + ','.join(hits))
                """;
        Runs scan = Runs.run(sandbox, new ExecRequest(List.of("python3", "-c", script),
                Map.of("H1", secret.substring(0, half), "H2", secret.substring(half)), null, Duration.ofSeconds(60), null));
        assertThat(scan.exit()).as(scan.stderr()).isZero();
        assertThat(scan.stdout()).contains("API_KEY=" + placeholder + "\n").contains("HITS=\n");
        Runs ps = Runs.shell(sandbox, "ps -eo args 2>/dev/null; env");
        assertThat(ps.stdout()).doesNotContain(secret);
    }

    private static Optional<String> hostAddress() {
        try {
            for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (!nif.isUp() || nif.isLoopback()) continue;
                for (InetAddress a : Collections.list(nif.getInetAddresses())) {
                    if (a instanceof Inet4Address) return Optional.of(a.getHostAddress());
                }
            }
        } catch (SocketException ignored) {
            // no interfaces: nothing to try
        }
        return Optional.empty();
    }
}
