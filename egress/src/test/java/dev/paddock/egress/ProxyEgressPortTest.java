package dev.paddock.egress;

import dev.paddock.core.PaddockException;
import dev.paddock.core.egress.SecretValue;
import dev.paddock.core.spi.CredentialBinding;
import dev.paddock.core.spi.EgressAttachment;
import dev.paddock.egress.proxy.Fixture;
import dev.paddock.egress.proxy.SandboxCredentials;
import dev.paddock.egress.vault.InMemorySecretRepository;
import dev.paddock.egress.vault.Vault;
import dev.paddock.egress.vault.VaultKey;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ProxyEgressPortTest {
    static final String SECRET = "port-test-secret-91c2";

    @Test
    void opensOneSocketPerSandboxThatCarriesItsTraffic(@TempDir Path dataDir) throws Exception {
        try (var f = new Fixture(); var port = new ProxyEgressPort(f.proxy, null, dataDir)) {
            EgressAttachment a = port.open("tenant_a", "sbx_one", Fixture.limited("api.test:" + f.upstreams.httpPort()), List.of());

            Path socket = Path.of(a.socketDir()).resolve(a.socketName());
            assertThat(Path.of(a.socketDir())).isEqualTo(dataDir.resolve("egress/sbx_one"));
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(Path.of(a.socketDir())))).isEqualTo("rwx------");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(socket, LinkOption.NOFOLLOW_LINKS))).isEqualTo("rw-------");
            assertThat(a.caCertificatePem()).contains("BEGIN CERTIFICATE");

            String reply = get(socket, f.httpUrl("api.test", "/via-port"));
            assertThat(reply).startsWith("HTTP/1.1 200").endsWith("ok GET /via-port body=0\n");
            assertThat(f.recordsFor("sbx_one", 1)).isNotEmpty();
            assertThat(port.open("tenant_a", "sbx_one", Fixture.limited(), List.of())).as("idempotent").isEqualTo(a);

            port.close("sbx_one");
            assertThat(Path.of(a.socketDir())).doesNotExist();
            assertThat(port.isOpen("sbx_one")).isFalse();
        }
    }

    @Test
    void reopeningAfterARestartKeepsPlaceholdersAndTheDirectoryOwner(@TempDir Path dataDir) throws Exception {
        Vault vault = new Vault(new InMemorySecretRepository(), VaultKey.fromDataDir(dataDir));
        var secret = vault.create("tenant_a", "api", SecretValue.of(SECRET));
        var binding = new CredentialBinding(secret.id(), List.of("secure.test"), "x-api-key", null, "API_KEY");
        EgressAttachment first;
        try (var f = new Fixture(); var port = new ProxyEgressPort(f.proxy, vault, dataDir)) {
            first = port.open("tenant_a", "sbx_two", Fixture.limited("secure.test"), List.of(binding));
            assertThat(first.env().get("API_KEY")).startsWith(SandboxCredentials.PLACEHOLDER_PREFIX).doesNotContain(SECRET);
            // what the driver does once it knows the sandbox's uid
            Files.setAttribute(Path.of(first.socketDir()), "unix:uid", 54321);
            Files.setAttribute(Path.of(first.socketDir()), "unix:gid", 54321);
        } // the host process goes away: listeners close, directories stay
        assertThat(Path.of(first.socketDir())).isDirectory();

        vault.delete("tenant_a", secret.id()); // a re-open must not fail on it: the sandbox runs already
        try (var f = new Fixture(); var port = new ProxyEgressPort(f.proxy, vault, dataDir)) {
            EgressAttachment again = port.open("tenant_a", "sbx_two", Fixture.limited("secure.test"), List.of(binding));
            assertThat(again.env()).isEqualTo(first.env());
            Path socket = Path.of(again.socketDir()).resolve(again.socketName());
            assertThat(Files.getAttribute(socket, "unix:uid", LinkOption.NOFOLLOW_LINKS)).isEqualTo(54321);
        }
    }

    @Test
    void placeholdersDifferPerSandbox(@TempDir Path dataDir) throws Exception {
        Vault vault = new Vault(new InMemorySecretRepository(), VaultKey.fromDataDir(dataDir));
        var secret = vault.create("tenant_a", "api", SecretValue.of(SECRET));
        var binding = new CredentialBinding(secret.id(), List.of("secure.test"), null, null, "API_KEY");
        try (var f = new Fixture(); var port = new ProxyEgressPort(f.proxy, vault, dataDir)) {
            String a = port.open("tenant_a", "sbx_a", Fixture.limited("secure.test"), List.of(binding)).env().get("API_KEY");
            String b = port.open("tenant_a", "sbx_b", Fixture.limited("secure.test"), List.of(binding)).env().get("API_KEY");
            assertThat(a).isNotEqualTo(b);
        }
    }

    @Test
    void badInputFailsBeforeAnythingListens(@TempDir Path dataDir) throws Exception {
        Vault vault = new Vault(new InMemorySecretRepository(), VaultKey.fromDataDir(dataDir));
        try (var f = new Fixture(); var port = new ProxyEgressPort(f.proxy, vault, dataDir)) {
            var unknown = new CredentialBinding("sec_0123456789abcdefghjkmnpqrs", List.of("secure.test"), null, null, "K");
            assertThatThrownBy(() -> port.open("tenant_a", "sbx_c", Fixture.limited("secure.test"), List.of(unknown)))
                    .isInstanceOf(PaddockException.class).hasMessageContaining("sec_0123456789abcdefghjkmnpqrs");
            var templateOnly = new CredentialBinding("sec_0123456789abcdefghjkmnpqrs", List.of("a.test"), null, "Bearer {secret}", null);
            assertThatThrownBy(() -> port.open("tenant_a", "sbx_c", Fixture.limited(), List.of(templateOnly)))
                    .isInstanceOf(PaddockException.class).hasMessageContaining("template needs a header");
            assertThatThrownBy(() -> port.open("tenant_a", "../x", Fixture.limited(), List.of()))
                    .isInstanceOf(PaddockException.class).hasMessageContaining("sandbox id");
            assertThatThrownBy(() -> port.open("tenant_a", "sbx_c", Fixture.limited("bad host!"), List.of()))
                    .isInstanceOf(PaddockException.class);
            assertThat(port.isOpen("sbx_c")).isFalse();
        }
        try (var f = new Fixture(); var noVault = new ProxyEgressPort(f.proxy, null, dataDir)) {
            var any = new CredentialBinding("sec_0123456789abcdefghjkmnpqrs", List.of("a.test"), "x-api-key", null, null);
            assertThatThrownBy(() -> noVault.open("tenant_a", "sbx_d", Fixture.limited(), List.of(any)))
                    .isInstanceOf(PaddockException.class).hasMessageContaining("no vault");
        }
    }

    @Test
    void aRunningSandboxsPolicyChangesOnTheSameSocketAndOpenConnectionsAreClosed(@TempDir Path dataDir) throws Exception {
        try (var f = new Fixture(); var port = new ProxyEgressPort(f.proxy, null, dataDir)) {
            EgressAttachment a = port.open("tenant_a", "sbx_change", Fixture.limited("api.test:" + f.upstreams.httpPort()), List.of());
            Path socket = Path.of(a.socketDir()).resolve(a.socketName());
            assertThat(get(socket, f.httpUrl("api.test", "/before"))).startsWith("HTTP/1.1 200");
            try (SocketChannel tunnel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                tunnel.connect(UnixDomainSocketAddress.of(socket));
                String target = "api.test:" + f.upstreams.httpPort();
                tunnel.write(ByteBuffer.wrap(("CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII)));
                ByteBuffer established = ByteBuffer.allocate(256);
                tunnel.read(established);
                assertThat(new String(established.array(), 0, established.position(), StandardCharsets.US_ASCII)).startsWith("HTTP/1.1 200");
                port.changePolicy("sbx_change", Fixture.limited("other.test:" + f.upstreams.httpPort()));
                assertThat(tunnel.read(ByteBuffer.allocate(16))).as("a tunnel opened under the old rules is closed").isEqualTo(-1);
            }

            assertThat(Files.exists(socket, LinkOption.NOFOLLOW_LINKS)).as("the socket the sandbox has bound stays").isTrue();
            assertThat(get(socket, f.httpUrl("api.test", "/after"))).startsWith("HTTP/1.1 403");
            assertThat(get(socket, f.httpUrl("other.test", "/after"))).startsWith("HTTP/1.1 200");
            assertThat(f.recordsFor("sbx_change", 4)).anyMatch(r -> r.mode().equals("policy_change")
                    && r.rule().startsWith("network_changed:limited;closed_connections="));

            assertThatThrownBy(() -> port.changePolicy("sbx_never_opened", Fixture.limited()))
                    .isInstanceOf(PaddockException.class).extracting(e -> ((PaddockException) e).code()).isEqualTo("network_not_changeable");
            assertThatThrownBy(() -> port.changePolicy("sbx_change", Fixture.limited("bad host!")))
                    .isInstanceOf(PaddockException.class).extracting(e -> ((PaddockException) e).code()).isEqualTo("invalid_allowed_host");
        }
    }

    private static String get(Path socket, String url) throws Exception {
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.connect(UnixDomainSocketAddress.of(socket));
            String host = java.net.URI.create(url).getHost();
            ch.write(ByteBuffer.wrap(("GET " + url + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII)));
            var in = java.nio.channels.Channels.newInputStream(ch);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
