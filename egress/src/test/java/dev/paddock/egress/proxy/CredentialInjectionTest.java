package dev.paddock.egress.proxy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.paddock.core.PaddockException;
import dev.paddock.core.egress.EgressDecision;
import dev.paddock.core.egress.SecretMetadata;
import dev.paddock.core.egress.SecretValue;
import dev.paddock.egress.vault.CredentialRule;
import dev.paddock.egress.vault.InMemorySecretRepository;
import dev.paddock.egress.vault.Placement;
import dev.paddock.egress.vault.Vault;
import dev.paddock.egress.vault.VaultKey;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Where a secret may go: only into header values of requests inside an intercepted TLS session whose CONNECT target
 * (and so the verified upstream) is one of the rule's hosts. Every other path (plain HTTP, a CONNECT whose client
 * does not speak TLS, a Host header or SNI naming another host, a redirect, the URL and the body) carries no value.
 * The vault runs on the in-memory secret repository and the proxy on the in-memory audit sink (see {@link Fixture});
 * the same path on SQLite is covered by the store's {@code EgressOnSqliteTest}. Every test also checks that neither
 * the audit records nor the proxy's log (at DEBUG) ever hold the value.
 */
class CredentialInjectionTest {
    static final String SECRET = "sk-live-9f8e7d6c5b4a-real-secret";
    static Fixture f;
    static Vault inMemoryVault;
    static SecretMetadata apiKey;
    static final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    static Logger egressLogger;

    @BeforeAll
    static void start() throws IOException {
        f = new Fixture();
        inMemoryVault = new Vault(new InMemorySecretRepository(), VaultKey.fromBase64(java.util.Base64.getEncoder().encodeToString(new byte[32]), "test"));
        apiKey = inMemoryVault.create("tenant_a", "upstream-api-key", SecretValue.of(SECRET));
        egressLogger = (Logger) LoggerFactory.getLogger("dev.paddock.egress");
        egressLogger.setLevel(Level.DEBUG);
        egressLogger.setAdditive(false); // captured here, not printed
        logs.start();
        egressLogger.addAppender(logs);
    }

    @AfterAll
    static void stop() {
        f.close();
        egressLogger.detachAppender(logs);
        egressLogger.setAdditive(true);
        egressLogger.setLevel(null);
    }

    @BeforeEach
    void clear() { f.inMemoryAudit.clear(); f.upstreams.seen.clear(); logs.list.clear(); }

    @AfterEach
    void theValueIsInNoRecordAndNoLogLine() {
        assertThat(f.inMemoryAudit.records().toString()).doesNotContain(SECRET);
        for (ILoggingEvent e : List.copyOf(logs.list)) {
            assertThat(e.getFormattedMessage()).doesNotContain(SECRET);
            if (e.getThrowableProxy() != null) assertThat(String.valueOf(e.getThrowableProxy().getMessage())).doesNotContain(SECRET);
        }
    }

    private static SandboxCredentials bearerFor(String... hosts) {
        return SandboxCredentials.bind(inMemoryVault, "tenant_a",
                List.of(new CredentialRule(apiKey.id(), List.of(hosts), Placement.header("Authorization", "Bearer {secret}"), "API_KEY")));
    }

    private static SandboxCredentials placeholderFor(String... hosts) {
        return SandboxCredentials.bind(inMemoryVault, "tenant_a",
                List.of(new CredentialRule(apiKey.id(), List.of(hosts), Placement.replacePlaceholder(), "UPSTREAM_KEY")));
    }

    @Test
    void plainHttpToARuleHostIsRefusedAndNothingIsSent() throws Exception {
        var creds = bearerFor("api.test");
        String placeholder = creds.environment().get("API_KEY");
        int port = f.upstreams.httpPort();
        var policy = Fixture.limited("api.test:" + port, "other.test:" + port);
        try (var l = f.proxy.listenTcp("sbx_cred_http", policy, creds)) {
            HttpClient client = Fixture.client(l, null);
            var refused = Fixture.get(client, f.httpUrl("api.test", "/v1/models"), "x-api-key", placeholder);
            assertThat(refused.statusCode()).isEqualTo(403);
            assertThat(refused.headers().firstValue("x-paddock-egress")).hasValue("denied");
            assertThat(refused.body()).contains("api.test:" + port).contains("https://").contains("credential_host_needs_https");
            assertThat(f.upstreams.seen).as("nothing reached the upstream, neither value nor placeholder").isEmpty();

            var other = Fixture.get(client, f.httpUrl("other.test", "/v1/models"));
            assertThat(other.statusCode()).isEqualTo(200);
            assertThat(f.upstreams.last().header("Authorization")).isNull();
        }
        var records = f.records(2);
        assertThat(records.getFirst().decision()).isEqualTo(EgressDecision.DENIED);
        assertThat(records.getFirst().rule()).isEqualTo("credential_host_needs_https");
        assertThat(records.getFirst().status()).isEqualTo(403);
        assertThat(records.getFirst().mode()).isEqualTo("http");
        assertThat(records.getFirst().injectedSecrets()).isEmpty();
        assertThat(records.getFirst().bytesUp()).isZero();
        assertThat(records.get(1).decision()).isEqualTo(EgressDecision.ALLOWED);
        assertThat(records.get(1).injectedSecrets()).isEmpty();
    }

    @Test
    void everySpellingAndPortOfARuleHostIsRefusedOverPlainHttp() throws Exception {
        // the README's own shape: a rule without a port, the host allowed on the web ports
        var creds = SandboxCredentials.bind(inMemoryVault, "tenant_a", List.of(
                new CredentialRule(apiKey.id(), List.of("api.test"), Placement.header("Authorization", "Bearer {secret}"), null),
                new CredentialRule(apiKey.id(), List.of("*.wild.test", "pinned.test:8443"), Placement.replacePlaceholder(), "K")));
        var policy = new dev.paddock.core.spi.NetworkPolicy(dev.paddock.core.spi.NetworkPolicy.Mode.UNRESTRICTED, List.of(), false);
        List<String> urls = List.of("http://api.test/v1", "http://API.Test./v1", "http://api.test:443/v1", "http://api.test:" + f.upstreams.httpPort() + "/",
                "http://a.wild.test/", "http://deep.a.wild.test:8080/", "http://pinned.test/", "http://pinned.test:8443/");
        try (var l = f.proxy.listenTcp("sbx_cred_spellings", policy, creds)) {
            for (String url : urls) {
                String reply = EgressProxyTest.rawExchange(l, "GET " + url + " HTTP/1.1\r\nHost: elsewhere.test\r\nAuthorization: Bearer x\r\n\r\n");
                assertThat(reply).as(url).startsWith("HTTP/1.1 403 ").contains("credential_host_needs_https");
            }
        }
        assertThat(f.upstreams.seen).isEmpty();
        assertThat(f.records(urls.size())).allSatisfy(r -> assertThat(r.rule()).isEqualTo("credential_host_needs_https"));
    }

    @Test
    void keepAliveCannotSlipARuleHostRequestInAfterAnAllowedOne() throws Exception {
        var creds = bearerFor("api.test");
        String placeholder = creds.environment().get("API_KEY");
        int port = f.upstreams.httpPort();
        try (var l = f.proxy.listenTcp("sbx_cred_pipeline", Fixture.limited("api.test:" + port, "other.test:" + port), creds)) {
            String reply = EgressProxyTest.rawExchange(l,
                    "GET http://other.test:" + port + "/first HTTP/1.1\r\nHost: api.test\r\nAuthorization: Bearer " + placeholder + "\r\n\r\n"
                    + "GET http://api.test:" + port + "/second HTTP/1.1\r\nHost: api.test:" + port + "\r\nAuthorization: Bearer " + placeholder + "\r\n\r\n");
            assertThat(reply).startsWith("HTTP/1.1 200 ").contains("ok GET /first").contains("HTTP/1.1 403 ").contains("credential_host_needs_https");
        }
        // the first went where its URL says, with the Host that names it and the placeholder as is
        assertThat(f.upstreams.seen).hasSize(1);
        assertThat(f.upstreams.last().path()).isEqualTo("/first");
        assertThat(f.upstreams.last().header("Host")).isEqualTo("other.test:" + port);
        assertThat(f.upstreams.last().header("Authorization")).isEqualTo("Bearer " + placeholder);
        var records = f.records(2);
        assertThat(records.getFirst().decision()).isEqualTo(EgressDecision.PLACEHOLDER_TO_UNLISTED_HOST);
        assertThat(records.get(1).rule()).isEqualTo("credential_host_needs_https");
    }

    @Test
    void placeholderIsReplacedOnlyInHeadersOverTlsToTheRuleHostAndLeftAloneElsewhere() throws Exception {
        var creds = placeholderFor("secure.test");
        String placeholder = creds.environment().get("UPSTREAM_KEY");
        assertThat(placeholder).startsWith("paddock-secret-").doesNotContain(SECRET);
        var policy = Fixture.limited("secure.test:" + f.upstreams.httpsPort(), "other.test:" + f.upstreams.httpPort());
        try (var l = f.proxy.listenTcp("sbx_placeholder", policy, creds);
             HttpClient client = Fixture.client(l, f.ca.clientContext())) {
            String body = "{\"key\": \"" + placeholder + "\"}";
            var resp = client.send(HttpRequest.newBuilder(URI.create(f.httpsUrl("secure.test", "/a?key=" + placeholder)))
                    .header("x-api-key", placeholder).header("x-both", placeholder + "," + placeholder)
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(resp.statusCode()).isEqualTo(200);
            var seen = f.upstreams.last();
            assertThat(seen.header("x-api-key")).isEqualTo(SECRET);
            assertThat(seen.header("x-both")).isEqualTo(SECRET + "," + SECRET);
            assertThat(seen.query()).as("the URL is never rewritten").isEqualTo("key=" + placeholder);
            assertThat(seen.bodyStart()).as("the body is never rewritten").isEqualTo(body);

            Fixture.get(client, f.httpUrl("other.test", "/exfil?k=" + placeholder), "x-api-key", placeholder);
            assertThat(f.upstreams.last().header("x-api-key")).isEqualTo(placeholder);
        }
        var records = f.records(2);
        assertThat(records.get(0).decision()).isEqualTo(EgressDecision.ALLOWED);
        assertThat(records.get(0).mode()).isEqualTo("tls_intercept");
        assertThat(records.get(0).injectedSecrets()).containsExactly(apiKey.id());
        assertThat(records.get(1).decision()).isEqualTo(EgressDecision.PLACEHOLDER_TO_UNLISTED_HOST);
        assertThat(records.get(1).host()).isEqualTo("other.test");
        assertThat(records.get(1).leakedPlaceholderSecrets()).containsExactly(apiKey.id());
        assertThat(records.get(1).injectedSecrets()).isEmpty();
    }

    @Test
    void httpsToARuleHostIsInterceptedAndTheUpstreamSeesTheSecret() throws Exception {
        var creds = bearerFor("secure.test");
        try (var l = f.proxy.listenTcp("sbx_cred_tls", Fixture.limited("secure.test:" + f.upstreams.httpsPort()), creds);
             HttpClient client = Fixture.client(l, f.ca.clientContext())) { // the sandbox trusts only the Paddock CA
            var first = Fixture.get(client, f.httpsUrl("secure.test", "/v1/messages?beta=true"));
            var second = Fixture.get(client, f.httpsUrl("secure.test", "/v1/second"));
            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(first.body()).isEqualTo("ok GET /v1/messages body=0\n");
            assertThat(second.statusCode()).isEqualTo(200);
            assertThat(f.upstreams.seen).hasSize(2).allSatisfy(s -> assertThat(s.header("Authorization")).isEqualTo("Bearer " + SECRET));
            assertNoSecretIn(first);
            assertThat(first.sslSession().orElseThrow().getPeerCertificates()[0].toString()).contains("secure.test");
        }
        var r = f.records(2).getFirst();
        assertThat(r.mode()).isEqualTo("tls_intercept");
        assertThat(r.url()).isEqualTo("https://secure.test:" + f.upstreams.httpsPort() + "/v1/messages");
        assertThat(r.method()).isEqualTo("GET");
        assertThat(r.injectedSecrets()).containsExactly(apiKey.id());
        assertThat(r.bytesUp()).isPositive();
    }

    @Test
    void aConnectToARuleHostWhoseClientSpeaksPlainHttpInsideInjectsNothing() throws Exception {
        // a rule without a port covers every port, so the CONNECT is intercepted; plain HTTP inside fails the handshake
        var creds = bearerFor("secure.test");
        int port = f.upstreams.httpPort();
        try (var l = f.proxy.listenTcp("sbx_cred_plain_in_connect", Fixture.limited("secure.test:" + port), creds);
             Socket socket = connectTunnel(l, "secure.test:" + port)) {
            socket.getOutputStream().write(("GET /inside HTTP/1.1\r\nHost: secure.test:" + port + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            socket.shutdownOutput();
            String reply = readQuietly(socket.getInputStream());
            assertThat(reply).doesNotContain("HTTP/1.1 200").doesNotContain(SECRET);
        }
        assertThat(f.upstreams.seen).isEmpty();
        var r = f.records(1).getFirst();
        assertThat(r.mode()).isEqualTo("tls_intercept");
        assertThat(r.rule()).isEqualTo("client_tls_failed");
        assertThat(r.injectedSecrets()).isEmpty();
    }

    @Test
    void tlsToARuleHostOnAPortWithoutTlsSendsNothingInCleartext() throws Exception {
        // the client speaks TLS to the proxy, but the upstream on that port does not: the proxy's verified TLS to it
        // fails before any request byte, so the value never leaves in the clear
        var creds = bearerFor("secure.test");
        // the plain upstream waits for a request line that never comes; the handshake ends at the connect timeout
        try (var fx = new Fixture(EgressConfig.defaults().connectTimeout(Duration.ofSeconds(1)))) {
            int port = fx.upstreams.httpPort();
            try (var l = fx.proxy.listenTcp("sbx_cred_tls_to_plain", Fixture.limited("secure.test:" + port), creds);
                 HttpClient client = Fixture.client(l, fx.ca.clientContext())) {
                var resp = Fixture.get(client, "https://secure.test:" + port + "/no-tls-here");
                assertThat(resp.statusCode()).isEqualTo(502);
                assertThat(resp.body()).contains("TLS with secure.test failed");
            }
            assertThat(fx.upstreams.seen).isEmpty();
            var r = fx.records(1).getFirst();
            assertThat(r.toString()).doesNotContain(SECRET);
            assertThat(r.rule()).isEqualTo("upstream_tls_failed");
            assertThat(r.injectedSecrets()).as("a record names an injection only when the request left").isEmpty();
        }
    }

    @Test
    void insideATunnelAHostHeaderNamingAnotherHostIsRefusedEvenWhenPipelined() throws Exception {
        var creds = bearerFor("secure.test");
        int port = f.upstreams.httpsPort();
        try (var l = f.proxy.listenTcp("sbx_cred_host_header", Fixture.limited("secure.test:" + port, "other.test:" + port), creds);
             SSLSocket tls = tlsInTunnel(l, "secure.test", port, "secure.test")) {
            tls.getOutputStream().write(("GET /first HTTP/1.1\r\nHost: secure.test:" + port + "\r\n\r\n"
                    + "GET /second HTTP/1.1\r\nHost: other.test:" + port + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            tls.getOutputStream().flush();
            String reply = readQuietly(tls.getInputStream());
            assertThat(reply).startsWith("HTTP/1.1 200 ").contains("ok GET /first").contains("HTTP/1.1 400 ").contains("Host header");
        }
        assertThat(f.upstreams.seen).extracting(Upstreams.Seen::path).containsExactly("/first");
        var records = f.records(2);
        assertThat(records.get(1).rule()).isEqualTo("tunnel_host_mismatch");
        assertThat(records.get(1).injectedSecrets()).isEmpty();

        // an absolute URL naming another host inside the tunnel is refused the same way
        f.upstreams.seen.clear();
        try (var l = f.proxy.listenTcp("sbx_cred_abs_url", Fixture.limited("secure.test:" + port), creds);
             SSLSocket tls = tlsInTunnel(l, "secure.test", port, "secure.test")) {
            tls.getOutputStream().write(("GET https://other.test:" + port + "/x HTTP/1.1\r\nHost: other.test:" + port + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            tls.getOutputStream().flush();
            assertThat(readQuietly(tls.getInputStream())).startsWith("HTTP/1.1 400 ");
        }
        assertThat(f.upstreams.seen).isEmpty();
    }

    @Test
    void aTlsServerNameOtherThanTheConnectTargetIsRefused() throws Exception {
        var creds = bearerFor("secure.test");
        int port = f.upstreams.httpsPort();
        try (var l = f.proxy.listenTcp("sbx_cred_sni", Fixture.limited("secure.test:" + port), creds);
             SSLSocket tls = tlsInTunnel(l, "secure.test", port, "other.test")) {
            tls.getOutputStream().write(("GET /sni HTTP/1.1\r\nHost: secure.test:" + port + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            tls.getOutputStream().flush();
            assertThat(readQuietly(tls.getInputStream())).startsWith("HTTP/1.1 400 ").contains("SNI");
        }
        assertThat(f.upstreams.seen).isEmpty();
        assertThat(f.records(1).getFirst().rule()).isEqualTo("tunnel_host_mismatch");
    }

    @Test
    void redirectsAreRelayedNotFollowedAndFollowingOneToPlainHttpIsRefused() throws Exception {
        var creds = bearerFor("secure.test");
        String downgrade = "http://secure.test:" + f.upstreams.httpPort() + "/followed";
        var policy = Fixture.limited("secure.test:" + f.upstreams.httpsPort(), "secure.test:" + f.upstreams.httpPort());
        try (var l = f.proxy.listenTcp("sbx_cred_redirect", policy, creds);
             HttpClient client = Fixture.client(l, f.ca.clientContext())) {
            var resp = Fixture.get(client, f.httpsUrl("secure.test", "/redirect?to=" + URLEncoder.encode(downgrade, StandardCharsets.UTF_8)));
            assertThat(resp.statusCode()).isEqualTo(302);
            assertThat(resp.headers().firstValue("location")).hasValue(downgrade);
            assertThat(f.upstreams.seen).extracting(Upstreams.Seen::path).containsExactly("/redirect");

            var followed = Fixture.get(client, downgrade); // what a client that follows redirects does next
            assertThat(followed.statusCode()).isEqualTo(403);
            assertThat(followed.body()).contains("credential_host_needs_https");
        }
        assertThat(f.upstreams.seen).extracting(Upstreams.Seen::path).containsExactly("/redirect");
        assertThat(f.records(2).get(1).rule()).isEqualTo("credential_host_needs_https");
    }

    @Test
    void rotationTakesEffectOnTheNextRequest() throws Exception {
        SecretMetadata rotating = inMemoryVault.create("tenant_a", "rotating-key", SecretValue.of("first-value"));
        var creds = SandboxCredentials.bind(inMemoryVault, "tenant_a",
                List.of(new CredentialRule(rotating.id(), List.of("secure.test"), Placement.header("x-api-key", "{secret}"), null)));
        try (var l = f.proxy.listenTcp("sbx_rotate", Fixture.limited("secure.test:" + f.upstreams.httpsPort()), creds);
             HttpClient client = Fixture.client(l, f.ca.clientContext())) {
            Fixture.get(client, f.httpsUrl("secure.test", "/1"));
            assertThat(f.upstreams.last().header("x-api-key")).isEqualTo("first-value");
            inMemoryVault.rotate("tenant_a", rotating.id(), SecretValue.of("second-value"));
            Fixture.get(client, f.httpsUrl("secure.test", "/2"));
            assertThat(f.upstreams.last().header("x-api-key")).isEqualTo("second-value");
            inMemoryVault.delete("tenant_a", rotating.id());
            var resp = Fixture.get(client, f.httpsUrl("secure.test", "/3"));
            assertThat(resp.statusCode()).isEqualTo(502); // fail closed: never send without the credential
            assertThat(f.upstreams.seen).hasSize(2);
        }
        assertThat(f.records(3).get(2).rule()).isEqualTo("credential_missing");
    }

    @Test
    void bindingRefusesUnknownSecretsAndOtherTenants() {
        var rule = new CredentialRule(apiKey.id(), List.of("api.test"), Placement.replacePlaceholder(), null);
        assertThatThrownBy(() -> SandboxCredentials.bind(inMemoryVault, "tenant_b", List.of(rule)))
                .isInstanceOf(PaddockException.class).extracting("code").isEqualTo("not_found");
        assertThatThrownBy(() -> new CredentialRule(apiKey.id(), List.of("https://api.test/"), Placement.replacePlaceholder(), null))
                .isInstanceOf(PaddockException.class).extracting("code").isEqualTo("invalid_allowed_host");
        assertThatThrownBy(() -> Placement.header("Authorization", "Bearer"))
                .isInstanceOf(PaddockException.class).extracting("code").isEqualTo("invalid_credential_rule");
    }

    /** A raw connection to the listener with an established CONNECT tunnel to {@code authority}. */
    private static Socket connectTunnel(ProxyListener l, String authority) throws IOException {
        Socket socket = new Socket("127.0.0.1", l.tcpPort());
        socket.setSoTimeout(10_000);
        socket.getOutputStream().write(("CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
        String head = readHead(socket.getInputStream());
        assertThat(head).startsWith("HTTP/1.1 200 ");
        return socket;
    }

    /** TLS inside a CONNECT tunnel to {@code host:port}, trusting the Paddock CA and sending {@code sni} as server name. */
    private static SSLSocket tlsInTunnel(ProxyListener l, String host, int port, String sni) throws IOException {
        Socket socket = connectTunnel(l, host + ":" + port);
        SSLSocket tls = (SSLSocket) f.ca.clientContext().getSocketFactory().createSocket(socket, sni, port, true);
        SSLParameters p = tls.getSSLParameters();
        p.setServerNames(List.of(new SNIHostName(sni)));
        tls.setSSLParameters(p);
        tls.setSoTimeout((int) Duration.ofSeconds(10).toMillis());
        tls.startHandshake();
        return tls;
    }

    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) break;
            head.write(b);
        }
        return head.toString(StandardCharsets.ISO_8859_1);
    }

    /** Everything until the proxy closes; a reset after an alert only ends the read. */
    private static String readQuietly(InputStream in) {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        try {
            int n;
            while ((n = in.read(buf)) > 0) all.write(buf, 0, n);
        } catch (IOException e) {
            // the proxy closed or reset the connection
        }
        return all.toString(StandardCharsets.ISO_8859_1);
    }

    private static void assertNoSecretIn(HttpResponse<String> resp) {
        assertThat(resp.body()).doesNotContain(SECRET);
        assertThat(resp.headers().map().toString()).doesNotContain(SECRET);
    }
}
