package dev.paddock.egress.proxy;

import dev.paddock.core.egress.SecretValue;
import dev.paddock.egress.vault.CredentialRule;
import dev.paddock.egress.vault.InMemorySecretRepository;
import dev.paddock.egress.vault.Placement;
import dev.paddock.egress.vault.Vault;
import dev.paddock.egress.vault.VaultKey;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Real curl (Debian package {@code curl}) using HTTP_PROXY / HTTPS_PROXY, the way tools inside a sandbox do; the vault
 * runs on the in-memory secret repository.
 */
class CurlThroughProxyTest {
    static final String SECRET = "curl-test-secret-value-5e6f";

    @Test
    void curlWorksForAllowedHostsOverHttpAndInterceptedHttpsAndNeverSendsACredentialInClear(@TempDir Path dir) throws Exception {
        try (var f = new Fixture()) {
            Vault inMemoryVault = new Vault(new InMemorySecretRepository(), VaultKey.fromDataDir(dir));
            var secret = inMemoryVault.create("tenant_a", "k", SecretValue.of(SECRET));
            var creds = SandboxCredentials.bind(inMemoryVault, "tenant_a",
                    List.of(new CredentialRule(secret.id(), List.of("secure.test"), Placement.replacePlaceholder(), "API_KEY")));
            String placeholder = creds.environment().get("API_KEY");
            Path caFile = dir.resolve("paddock-ca.pem");
            Files.writeString(caFile, f.ca.certificatePem());
            var policy = Fixture.limited("api.test:" + f.upstreams.httpPort(), "secure.test:" + f.upstreams.httpsPort());
            try (var l = f.proxy.listenTcp("sbx_curl", policy, creds)) {
                String proxy = "http://127.0.0.1:" + l.tcpPort();

                var http = curl(proxy, List.of(f.httpUrl("api.test", "/from-curl")));
                assertThat(http.exit).isZero();
                assertThat(http.out).isEqualTo("ok GET /from-curl body=0\n");

                var https = curl(proxy, List.of("--cacert", caFile.toString(), "-H", "x-api-key: " + placeholder, f.httpsUrl("secure.test", "/api")));
                assertThat(https.exit).as(https.err).isZero();
                assertThat(https.out).isEqualTo("ok GET /api body=0\n");
                assertThat(f.upstreams.last().header("x-api-key")).isEqualTo(SECRET);

                var blocked = curl(proxy, List.of("-o", "/dev/null", "-w", "%{http_code}", "http://other.test/"));
                assertThat(blocked.out).isEqualTo("403");

                // the rule's host over plain http: refused, the placeholder goes nowhere
                int before = f.upstreams.seen.size();
                var cleartext = curl(proxy, List.of("-H", "x-api-key: " + placeholder, "-w", "%{http_code}", "http://secure.test:" + f.upstreams.httpsPort() + "/api"));
                assertThat(cleartext.out).contains("credential_host_needs_https").endsWith("403");
                assertThat(f.upstreams.seen).hasSize(before);
            }
        }
    }

    record Result(int exit, String out, String err) {}

    private static Result curl(String proxy, List<String> args) throws Exception {
        var cmd = new java.util.ArrayList<>(List.of("curl", "-sS", "--max-time", "20"));
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().keySet().removeIf(k -> k.toLowerCase().endsWith("_proxy"));
        pb.environment().put("http_proxy", proxy);
        pb.environment().put("HTTPS_PROXY", proxy);
        Process p = pb.start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return new Result(p.exitValue(), out, err);
    }
}
