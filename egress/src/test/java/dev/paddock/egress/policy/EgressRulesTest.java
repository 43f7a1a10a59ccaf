package dev.paddock.egress.policy;

import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.NetworkPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EgressRulesTest {
    private static EgressRules limited(boolean packageManagers, String... hosts) {
        return new EgressRules(new NetworkPolicy(NetworkPolicy.Mode.LIMITED, List.of(hosts), packageManagers));
    }

    @Test
    void exactNamesMatchCaseInsensitivelyOnWebPortsOnly() {
        var rules = limited(false, "api.example.com");
        assertThat(rules.decide("API.Example.com.", 443)).isEqualTo(new RuleDecision(true, "allowed_hosts:api.example.com"));
        assertThat(rules.decide("api.example.com", 80).allowed()).isTrue();
        assertThat(rules.decide("api.example.com", 8443)).isEqualTo(new RuleDecision(false, "host_not_allowed"));
        assertThat(rules.decide("example.com", 443).allowed()).isFalse();
        assertThat(rules.decide("evil-api.example.com", 443).allowed()).isFalse();
        assertThat(rules.decide("api.example.com.evil.net", 443).allowed()).isFalse();
    }

    @Test
    void wildcardsMatchSubdomainsButNotTheApex() {
        var rules = limited(false, "*.example.com");
        assertThat(rules.decide("a.example.com", 443)).isEqualTo(new RuleDecision(true, "allowed_hosts:*.example.com"));
        assertThat(rules.decide("a.b.example.com", 443).allowed()).isTrue();
        assertThat(rules.decide("example.com", 443).allowed()).isFalse();
        assertThat(rules.decide("badexample.com", 443).allowed()).isFalse();
        assertThat(limited(false, "*.example.com", "example.com").decide("example.com", 443).allowed()).isTrue();
    }

    @Test
    void explicitPortsAreExact() {
        var rules = limited(false, "api.example.com:8443", "[2001:4860::8888]:53");
        assertThat(rules.decide("api.example.com", 8443)).isEqualTo(new RuleDecision(true, "allowed_hosts:api.example.com:8443"));
        assertThat(rules.decide("api.example.com", 443).allowed()).isFalse();
        assertThat(rules.decide("[2001:4860:0:0::8888]", 53).allowed()).isTrue();
    }

    @Test
    void packageManagerPresetOpensOnlyItsHosts() {
        var on = limited(true);
        assertThat(on.decide("pypi.org", 443)).isEqualTo(new RuleDecision(true, "package_managers:pypi.org"));
        assertThat(on.decide("files.pythonhosted.org", 443).allowed()).isTrue();
        assertThat(on.decide("registry.npmjs.org", 443).allowed()).isTrue();
        assertThat(on.decide("repo.maven.apache.org", 443).allowed()).isTrue();
        assertThat(on.decide("deb.debian.org", 80).allowed()).isTrue();
        assertThat(on.decide("evil.org", 443).allowed()).isFalse();
        assertThat(limited(false).decide("pypi.org", 443).allowed()).isFalse();
    }

    @Test
    void modesNoneAndUnrestricted() {
        assertThat(new EgressRules(NetworkPolicy.NONE).decide("example.com", 443)).isEqualTo(new RuleDecision(false, "network_mode_none"));
        var open = new EgressRules(new NetworkPolicy(NetworkPolicy.Mode.UNRESTRICTED, List.of(), false));
        assertThat(open.decide("anything.example", 9999)).isEqualTo(new RuleDecision(true, "unrestricted"));
        assertThat(open.decide("not a host", 80)).isEqualTo(new RuleDecision(false, "invalid_host"));
    }

    @Test
    void numericAndHexHostTricksAreNotNames() {
        var open = new EgressRules(new NetworkPolicy(NetworkPolicy.Mode.UNRESTRICTED, List.of(), false));
        for (String trick : List.of("2130706433", "0x7f000001", "127.1", "0177.0.0.1", "127.0.0.01")) {
            assertThat(open.decide(trick, 80)).as(trick).isEqualTo(new RuleDecision(false, "invalid_host"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "https://api.example.com", "api.example.com/path", "user@api.example.com", "*.com",
            "a.*.example.com", "*example.com", "api.example.com:0", "api.example.com:65536", "api.example.com:http",
            "2001:db8::1", "*.10.0.0.1", "exa mple.com", "-bad.example.com", "[::1"})
    void invalidEntriesAreRefusedWithAClearCode(String entry) {
        assertThatThrownBy(() -> EgressRules.validate(new NetworkPolicy(NetworkPolicy.Mode.LIMITED, List.of(entry), false)))
                .isInstanceOf(PaddockException.class)
                .satisfies(e -> {
                    assertThat(((PaddockException) e).code()).isEqualTo("invalid_allowed_host");
                    assertThat(e.getMessage()).contains("allowed_hosts");
                });
    }
}
