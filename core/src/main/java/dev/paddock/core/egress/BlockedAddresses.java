package dev.paddock.core.egress;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.Optional;

/**
 * The addresses nothing Paddock sends on a tenant's behalf may reach: loopback, private and shared ranges,
 * link-local, cloud metadata, unspecified, multicast, broadcast and reserved addresses, including the same addresses
 * hidden inside IPv6 (IPv4-mapped, IPv4-compatible, NAT64 and 6to4 forms). Used by the egress proxy's address guard
 * and by the agent loop's MCP client. Reasons are stable strings {@code blocked_address_<kind>}.
 */
public final class BlockedAddresses {
    public static final String METADATA = "blocked_address_metadata";

    private BlockedAddresses() {}

    /** The stable reason {@code address} is refused, or empty when it is a public unicast address. */
    public static Optional<String> reason(InetAddress address) {
        byte[] b = address.getAddress();
        if (address instanceof Inet4Address) return ipv4Reason(b);
        if (address instanceof Inet6Address) return ipv6Reason(b);
        return Optional.of("blocked_address_reserved");
    }

    private static Optional<String> ipv4Reason(byte[] b) {
        int a0 = b[0] & 0xff, a1 = b[1] & 0xff, a2 = b[2] & 0xff, a3 = b[3] & 0xff;
        if (a0 == 169 && a1 == 254 && a2 == 169 && a3 == 254) return blocked("metadata");
        if (a0 == 255 && a1 == 255 && a2 == 255 && a3 == 255) return blocked("broadcast");
        if (a0 == 0) return blocked("unspecified");                                  // 0.0.0.0/8
        if (a0 == 127) return blocked("loopback");                                   // 127/8
        if (a0 == 10) return blocked("private");                                     // 10/8
        if (a0 == 172 && (a1 & 0xf0) == 16) return blocked("private");               // 172.16/12
        if (a0 == 192 && a1 == 168) return blocked("private");                       // 192.168/16
        if (a0 == 100 && (a1 & 0xc0) == 64) return blocked("private");               // 100.64/10 shared (CGNAT)
        if (a0 == 169 && a1 == 254) return blocked("link_local");                    // 169.254/16
        if (a0 >= 224 && a0 <= 239) return blocked("multicast");                     // 224/4
        if (a0 >= 240) return blocked("reserved");                                   // 240/4
        if (a0 == 192 && a1 == 0 && (a2 == 0 || a2 == 2)) return blocked("reserved"); // 192.0.0/24, 192.0.2/24
        if (a0 == 198 && (a1 & 0xfe) == 18) return blocked("reserved");              // 198.18/15 benchmarking
        if (a0 == 198 && a1 == 51 && a2 == 100) return blocked("reserved");          // 198.51.100/24
        if (a0 == 203 && a1 == 0 && a2 == 113) return blocked("reserved");           // 203.0.113/24
        return Optional.empty();
    }

    private static Optional<String> ipv6Reason(byte[] b) {
        if (isMetadataV6(b)) return blocked("metadata");
        boolean firstTenZero = true;
        for (int i = 0; i < 10; i++) firstTenZero &= b[i] == 0;
        if (firstTenZero && (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff) return ipv4Reason(tail(b, 12)); // ::ffff:a.b.c.d
        boolean firstTwelveZero = firstTenZero && b[10] == 0 && b[11] == 0;
        if (firstTwelveZero) {
            boolean allZero = b[12] == 0 && b[13] == 0 && b[14] == 0;
            if (allZero && b[15] == 0) return blocked("unspecified");                // ::
            if (allZero && b[15] == 1) return blocked("loopback");                   // ::1
            return blocked("reserved");                                              // ::a.b.c.d (deprecated)
        }
        int w0 = ((b[0] & 0xff) << 8) | (b[1] & 0xff);
        int w1 = ((b[2] & 0xff) << 8) | (b[3] & 0xff);
        if (w0 == 0x0064 && w1 == 0xff9b) return ipv4Reason(tail(b, 12));        // 64:ff9b::/96 NAT64
        if (w0 == 0x2002) return ipv4Reason(tail(b, 2));                           // 6to4 2002:a.b.c.d::/48
        if ((b[0] & 0xfe) == 0xfc) return blocked("private");                        // fc00::/7
        if ((w0 & 0xffc0) == 0xfe80) return blocked("link_local");                  // fe80::/10
        if ((w0 & 0xffc0) == 0xfec0) return blocked("private");                     // fec0::/10 site-local (deprecated)
        if ((b[0] & 0xff) == 0xff) return blocked("multicast");                      // ff00::/8
        if (w0 == 0x2001 && w1 == 0x0db8) return blocked("reserved");               // documentation
        if (w0 == 0x2001 && w1 == 0x0000) return blocked("reserved");               // Teredo tunnels hide the real target
        if (w0 == 0x0100 && w1 == 0 && b[4] == 0 && b[5] == 0 && b[6] == 0 && b[7] == 0) return blocked("reserved"); // discard
        return Optional.empty();
    }

    private static boolean isMetadataV6(byte[] b) {
        // fd00:ec2::254
        byte[] metadata = {(byte) 0xfd, 0, 0x0e, (byte) 0xc2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x54};
        return Arrays.equals(b, metadata);
    }

    private static byte[] tail(byte[] b, int from) {
        return new byte[] {b[from], b[from + 1], b[from + 2], b[from + 3]};
    }

    private static Optional<String> blocked(String kind) {
        return Optional.of("blocked_address_" + kind);
    }
}
