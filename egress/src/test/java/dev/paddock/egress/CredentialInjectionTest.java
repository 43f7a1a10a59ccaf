package dev.paddock.egress;

import dev.paddock.core.PaddockException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

class CredentialInjectionTest {
    static final String SECRET = "sk-live-9f8e7d6c5b4a-real-secret";
    static Fixture f;
    static Vault vault;
    static SecretMetadata apiKey;

    @BeforeAll
    static void start() throws IOException {
        f = new Fixture();
        vault = new Vault(new InMemorySecretRepository(), VaultKey.fromBase64(java.util.Base64.getEncoder().encodeToString(new byte[32]), "test"));
        apiKey = vault.create("tenant_a", "upstream-api-key", SecretValue.of(SECRET));
    }

    @AfterAll
    static void stop() { f.close(); }

    @BeforeEach
    void clear() { f.audit.clear(); f.upstreams.seen.clear(); }

    private SandboxCredentials bearerFor(String host) {
        return SandboxCredentials.bind(vault, "tenant_a",
                List.of(new CredentialRule(apiKey.id(), List.of(host), Placement.header("Authorization", "Bearer {secret}"), "API_KEY")));
    }

    @Test
    void headerIsAddedOverPlainHttpOnlyForTheRuleHost() throws Exception {
        var creds = bearerFor("api.test");
        var policy = Fixture.limited("api.test:" + f.upstreams.httpPort(), "other.test:" + f.upstreams.httpPort());
        try (var l = f.proxy.listenTcp("sbx_cred_http", policy, creds)) {
            HttpClient client = Fixture.client(l, null);
            var resp = Fixture.get(client, f.httpUrl("api.test", "/v1/models"));
            assertThat(resp.statusCode()).isEqualTo(200);
            assertThat(f.upstreams.last().header("Authorization")).isEqualTo("Bearer " + SECRET);
            assertNoSecretIn(resp);

            Fixture.get(client, f.httpUrl("other.test", "/v1/models"));
            assertThat(f.upstreams.last().header("Authorization")).isNull();
        }
        // the proxy writes a request's audit record after the answer reached the client
        await().until(() -> f.audit.records().size() >= 2);
        assertThat(f.records().getFirst().injectedSecrets()).containsExactly(apiKey.id());
        assertThat(f.records().get(1).injectedSecrets()).isEmpty();
        assertThat(f.records().toString()).doesNotContain(SECRET);
    }

    @Test
    void placeholderIsReplacedForTheRuleHostAndLeftAloneElsewhere() throws Exception {
        var creds = SandboxCredentials.bind(vault, "tenant_a",
                List.of(new CredentialRule(apiKey.id(), List.of("api.test"), Placement.replacePlaceholder(), "UPSTREAM_KEY")));
        String placeholder = creds.environment().get("UPSTREAM_KEY");
        assertThat(placeholder).startsWith("paddock-secret-").doesNotContain(SECRET);
        var policy = Fixture.limited("api.test:" + f.upstreams.httpPort(), "other.test:" + f.upstreams.httpPort());
        try (var l = f.proxy.listenTcp("sbx_placeholder", policy, creds)) {
            HttpClient client = Fixture.client(l, null);
            Fixture.get(client, f.httpUrl("api.test", "/a"), "x-api-key", placeholder);
            assertThat(f.upstreams.last().header("x-api-key")).isEqualTo(SECRET);

            Fixture.get(client, f.httpUrl("other.test", "/exfil"), "x-api-key", placeholder);
            assertThat(f.upstreams.last().header("x-api-key")).isEqualTo(placeholder);
        }
        var records = f.records();
        assertThat(records.get(0).decision()).isEqualTo(EgressDecision.ALLOWED);
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
            assertThat(f.upstreams.seen).allSatisfy(s -> assertThat(s.header("Authorization")).isEqualTo("Bearer " + SECRET));
            assertNoSecretIn(first);
            assertThat(first.sslSession().orElseThrow().getPeerCertificates()[0].toString()).contains("secure.test");
        }
        await().until(() -> f.audit.records().size() >= 2);
        var r = f.records().getFirst();
        assertThat(r.mode()).isEqualTo("tls_intercept");
        assertThat(r.url()).isEqualTo("https://secure.test:" + f.upstreams.httpsPort() + "/v1/messages");
        assertThat(r.method()).isEqualTo("GET");
        assertThat(r.injectedSecrets()).containsExactly(apiKey.id());
        assertThat(r.bytesUp()).isPositive();
        assertThat(f.records().toString()).doesNotContain(SECRET);
    }

    @Test
    void rotationTakesEffectOnTheNextRequest() throws Exception {
        SecretMetadata rotating = vault.create("tenant_a", "rotating-key", SecretValue.of("first-value"));
        var creds = SandboxCredentials.bind(vault, "tenant_a",
                List.of(new CredentialRule(rotating.id(), List.of("api.test"), Placement.header("x-api-key", "{secret}"), null)));
        try (var l = f.proxy.listenTcp("sbx_rotate", Fixture.limited("api.test:" + f.upstreams.httpPort()), creds)) {
            HttpClient client = Fixture.client(l, null);
            Fixture.get(client, f.httpUrl("api.test", "/1"));
            assertThat(f.upstreams.last().header("x-api-key")).isEqualTo("first-value");
            vault.rotate("tenant_a", rotating.id(), SecretValue.of("second-value"));
            Fixture.get(client, f.httpUrl("api.test", "/2"));
            assertThat(f.upstreams.last().header("x-api-key")).isEqualTo("second-value");
            vault.delete("tenant_a", rotating.id());
            var resp = Fixture.get(client, f.httpUrl("api.test", "/3"));
            assertThat(resp.statusCode()).isEqualTo(502); // fail closed: never send without the credential
            // the record is written after the answer reaches the client
            await().untilAsserted(() -> assertThat(f.audit.records().getLast().rule()).isEqualTo("credential_missing"));
        }
    }

    @Test
    void bindingRefusesUnknownSecretsAndOtherTenants() {
        var rule = new CredentialRule(apiKey.id(), List.of("api.test"), Placement.replacePlaceholder(), null);
        assertThatThrownBy(() -> SandboxCredentials.bind(vault, "tenant_b", List.of(rule)))
                .isInstanceOf(PaddockException.class).extracting("code").isEqualTo("not_found");
        assertThatThrownBy(() -> new CredentialRule(apiKey.id(), List.of("https://api.test/"), Placement.replacePlaceholder(), null))
                .isInstanceOf(PaddockException.class).extracting("code").isEqualTo("invalid_allowed_host");
        assertThatThrownBy(() -> Placement.header("Authorization", "Bearer"))
                .isInstanceOf(PaddockException.class).extracting("code").isEqualTo("invalid_credential_rule");
    }

    private static void assertNoSecretIn(HttpResponse<String> resp) {
        assertThat(resp.body()).doesNotContain(SECRET);
        assertThat(resp.headers().map().toString()).doesNotContain(SECRET);
    }
}
