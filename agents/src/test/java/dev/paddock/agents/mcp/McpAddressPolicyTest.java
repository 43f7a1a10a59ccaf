package dev.paddock.agents.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Which MCP URLs the loop may call: public addresses always, private and loopback ones only with
 * {@code mcp_allow_private_hosts}, cloud metadata never. Names resolve through a fixed table, so nothing is looked up.
 */
class McpAddressPolicyTest {
    static final McpAddressPolicy.Resolver TABLE = host -> {
        Map<String, String> names = Map.of("public.test", "93.184.216.34", "intranet.test", "10.1.2.3", "sneaky.test", "169.254.169.254");
        String ip = names.get(host);
        if (ip == null) throw new UnknownHostException(host);
        return List.of(InetAddress.getByName(ip));
    };

    static void check(boolean allowPrivate, String url) {
        new McpAddressPolicy(allowPrivate, TABLE).check("docs", URI.create(url));
    }

    @Test
    void publicAddressesPass() {
        assertThatCode(() -> check(false, "https://public.test/mcp")).doesNotThrowAnyException();
        assertThatCode(() -> check(false, "https://93.184.216.34/mcp")).doesNotThrowAnyException();
    }

    @Test
    void privateAndLoopbackAddressesAreRefusedUnlessTheOperatorAllowsThem() {
        for (String url : List.of("http://127.0.0.1:8080/mcp", "http://intranet.test/mcp", "http://[::1]/mcp", "http://192.168.1.5/mcp")) {
            assertThatThrownBy(() -> check(false, url)).as(url).isInstanceOfSatisfying(McpFailure.class, f -> {
                assertThat(f.kind()).isEqualTo(McpFailure.Kind.CONNECTION);
                assertThat(f.serverName()).isEqualTo("docs");
                assertThat(f.getMessage()).contains("mcp_allow_private_hosts");
            });
            assertThatCode(() -> check(true, url)).as(url).doesNotThrowAnyException();
        }
    }

    @Test
    void cloudMetadataIsRefusedEvenWhenPrivateHostsAreAllowed() {
        for (boolean allow : List.of(false, true)) {
            for (String url : List.of("http://169.254.169.254/latest", "http://sneaky.test/mcp")) {
                assertThatThrownBy(() -> check(allow, url)).as(url).isInstanceOfSatisfying(McpFailure.class, f ->
                        assertThat(f.getMessage()).contains("metadata").doesNotContain("mcp_allow_private_hosts"));
            }
        }
    }

    @Test
    void aNameThatDoesNotResolveIsAConnectionFailure() {
        for (boolean allow : List.of(false, true)) {
            assertThatThrownBy(() -> check(allow, "https://nowhere.test/mcp")).isInstanceOfSatisfying(McpFailure.class, f ->
                    assertThat(f.kind()).isEqualTo(McpFailure.Kind.CONNECTION));
        }
    }
}
