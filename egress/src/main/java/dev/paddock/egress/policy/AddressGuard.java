package dev.paddock.egress.policy;

import dev.paddock.core.egress.BlockedAddresses;
import dev.paddock.core.egress.HostName;
import java.io.IOException;
import java.net.InetAddress;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refuses destinations a sandbox must never reach, whatever its network mode: loopback, private and shared
 * ranges, link-local, cloud metadata, unspecified, multicast, broadcast and reserved addresses, including the
 * same addresses hidden inside IPv6 (IPv4-mapped, IPv4-compatible, NAT64 and 6to4 forms). A name is resolved
 * once; every address must pass; the caller connects to exactly those addresses.
 */
public final class AddressGuard {
    private static final Logger log = LoggerFactory.getLogger(AddressGuard.class);

    private final HostResolver resolver;
    private final Set<Integer> loopbackUpstreamPorts;

    public AddressGuard(HostResolver resolver, Set<Integer> loopbackUpstreamPorts) {
        this.resolver = resolver;
        this.loopbackUpstreamPorts = Set.copyOf(loopbackUpstreamPorts);
    }

    /** Resolves {@code host} once (or parses it when it is an IP literal) and checks every address. */
    public CheckedTarget check(String host, int port) throws BlockedAddressException {
        String canonical = HostName.normalize(host)
                .orElseThrow(() -> new BlockedAddressException("invalid_host", "not a valid host name"));
        List<InetAddress> addresses;
        if (HostName.isIpLiteral(canonical)) {
            addresses = List.of(HostName.literalAddress(canonical));
        } else {
            try {
                addresses = resolver.resolve(canonical);
            } catch (IOException | RuntimeException e) {
                throw new BlockedAddressException("resolve_failed", "the name does not resolve");
            }
            if (addresses == null || addresses.isEmpty()) {
                throw new BlockedAddressException("resolve_failed", "the name does not resolve");
            }
        }
        for (InetAddress address : addresses) {
            Optional<String> reason = blockReason(address);
            if (reason.isPresent()) {
                if (reason.get().equals("blocked_address_loopback") && loopbackUpstreamPorts.contains(port)) {
                    log.warn("egress to loopback {}:{} permitted by allowLoopbackUpstreamPorts (test setting)", address.getHostAddress(), port);
                    continue;
                }
                throw new BlockedAddressException(reason.get(),
                        "resolves to " + address.getHostAddress() + ", a " + reason.get().substring("blocked_address_".length()).replace('_', '-') + " address");
            }
        }
        return new CheckedTarget(canonical, port, addresses);
    }

    /** The stable reason {@code address} is refused, or empty when it is a public unicast address ({@link BlockedAddresses}). */
    public static Optional<String> blockReason(InetAddress address) {
        return BlockedAddresses.reason(address);
    }
}
