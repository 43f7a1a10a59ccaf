package dev.paddock.egress.policy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AddressGuardTest {
    @ParameterizedTest
    @CsvSource({
            "127.0.0.1, loopback", "127.255.0.9, loopback", "::1, loopback",
            "10.1.2.3, private", "172.16.0.1, private", "172.31.255.255, private", "192.168.0.1, private", "100.64.0.1, private",
            "100.127.255.255, private", "fc00::1, private", "fd12:3456::1, private",
            "169.254.1.1, link_local", "fe80::1, link_local", "febf::1, link_local",
            "169.254.169.254, metadata", "fd00:ec2::254, metadata",
            "0.0.0.0, unspecified", "0.1.2.3, unspecified", "::, unspecified",
            "224.0.0.1, multicast", "239.255.255.250, multicast", "ff02::1, multicast",
            "255.255.255.255, broadcast", "240.0.0.1, reserved",
            "64:ff9b::a00:1, private", "2002:a9fe:a9fe::1, metadata", "2002:7f00:1::, loopback"})
    void refusesNonPublicAddresses(String literal, String kind) {
        assertThat(AddressGuard.blockReason(InetAddress.ofLiteral(literal))).hasValue("blocked_address_" + kind);
    }

    @Test
    void seesThroughIpv4MappedIpv6() throws Exception {
        for (String v4 : List.of("127.0.0.1", "10.0.0.1", "169.254.169.254", "0.0.0.0", "192.168.1.1")) {
            byte[] b = new byte[16];
            b[10] = (byte) 0xff;
            b[11] = (byte) 0xff;
            System.arraycopy(InetAddress.ofLiteral(v4).getAddress(), 0, b, 12, 4);
            InetAddress mapped = Inet6Address.getByAddress(null, b, -1);
            assertThat(mapped).isInstanceOf(Inet6Address.class);
            assertThat(AddressGuard.blockReason(mapped)).as(v4).isEqualTo(AddressGuard.blockReason(InetAddress.ofLiteral(v4)));
        }
    }

    @ParameterizedTest
    @CsvSource({"93.184.216.34", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "1.1.1.1"})
    void allowsPublicAddresses(String literal) {
        assertThat(AddressGuard.blockReason(InetAddress.ofLiteral(literal))).isEmpty();
    }

    @Test
    void resolvesOnceAndRefusesWhenAnyAddressIsBlocked() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        HostResolver resolver = host -> {
            calls.incrementAndGet();
            return List.of(InetAddress.ofLiteral("93.184.216.34"), InetAddress.ofLiteral("10.0.0.1"));
        };
        var guard = new AddressGuard(resolver, Set.of());
        assertThatThrownBy(() -> guard.check("mixed.example", 443)).isInstanceOf(BlockedAddressException.class)
                .extracting("reason").isEqualTo("blocked_address_private");
        assertThat(calls).hasValue(1);
    }

    @Test
    void checkedTargetCarriesExactlyTheResolvedAddresses() throws Exception {
        var guard = new AddressGuard(host -> List.of(InetAddress.ofLiteral("93.184.216.34")), Set.of());
        CheckedTarget t = guard.check("Example.COM.", 443);
        assertThat(t.host()).isEqualTo("example.com");
        assertThat(t.addresses()).containsExactly(InetAddress.ofLiteral("93.184.216.34"));
    }

    @Test
    void literalsAreCheckedWithoutTheResolver() throws Exception {
        var guard = new AddressGuard(host -> { throw new AssertionError("must not resolve " + host); }, Set.of());
        assertThatThrownBy(() -> guard.check("169.254.169.254", 80)).extracting("reason").isEqualTo("blocked_address_metadata");
        assertThatThrownBy(() -> guard.check("[::ffff:10.0.0.1]", 80)).extracting("reason").isEqualTo("blocked_address_private");
        assertThat(guard.check("8.8.8.8", 53).addresses()).hasSize(1);
    }

    @Test
    void loopbackSwitchOpensOnlyLoopbackAndOnlyTheNamedPorts() throws Exception {
        var guard = new AddressGuard(host -> List.of(InetAddress.ofLiteral(host.equals("lo.test") ? "127.0.0.1" : "10.0.0.1")), Set.of(8080));
        assertThat(guard.check("lo.test", 8080).addresses()).hasSize(1);
        assertThatThrownBy(() -> guard.check("lo.test", 8081)).extracting("reason").isEqualTo("blocked_address_loopback");
        assertThatThrownBy(() -> guard.check("private.test", 8080)).extracting("reason").isEqualTo("blocked_address_private");
    }

    @Test
    void unresolvableNamesAreRefused() {
        var guard = new AddressGuard(host -> { throw new java.net.UnknownHostException(host); }, Set.of());
        assertThatThrownBy(() -> guard.check("nowhere.test", 80)).extracting("reason").isEqualTo("resolve_failed");
    }
}
