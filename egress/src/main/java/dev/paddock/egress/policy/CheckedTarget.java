package dev.paddock.egress.policy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * A destination whose every resolved address passed {@link AddressGuard}. The proxy connects to these exact
 * addresses and never resolves the name again, so there is no DNS-rebinding window.
 */
public record CheckedTarget(String host, int port, List<InetAddress> addresses) {
    public CheckedTarget {
        addresses = List.copyOf(addresses);
        if (addresses.isEmpty()) throw new IllegalArgumentException("a checked target needs an address");
    }

    public InetSocketAddress socketAddress(int index) {
        return new InetSocketAddress(addresses.get(index), port);
    }
}
