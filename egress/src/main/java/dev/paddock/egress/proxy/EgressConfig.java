package dev.paddock.egress.proxy;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;

import dev.paddock.egress.policy.AddressGuard;
import dev.paddock.egress.policy.HostResolver;
import javax.net.ssl.SSLContext;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Set;

/**
 * Limits and seams of the egress proxy. Defaults are safe; every setter returns a new config.
 *
 * <p>{@link #allowLoopbackUpstreamPorts(Set)} is the single switch that relaxes {@link AddressGuard}: it lets
 * the proxy reach the named ports on loopback so tests can run real upstream servers. It is off by default and
 * the proxy logs a WARN when it starts with it on. Nothing else relaxes the address blocks.
 */
public record EgressConfig(
        Duration connectTimeout,
        Duration idleTimeout,
        Duration totalTimeout,
        int maxLineBytes,
        int maxHeadBytes,
        int maxHeaders,
        int maxConnectionsPerListener,
        HostResolver resolver,
        Set<Integer> loopbackUpstreamPorts,
        SSLContext upstreamTls) {

    public EgressConfig {
        requirePositive(connectTimeout, "connect_timeout");
        requirePositive(idleTimeout, "idle_timeout");
        requirePositive(totalTimeout, "total_timeout");
        if (maxLineBytes < 256 || maxHeadBytes < maxLineBytes || maxHeaders < 8 || maxConnectionsPerListener < 1) {
            throw new PaddockException(ErrorCode.INVALID_EGRESS_CONFIG, "header limits are too small (line >= 256 bytes, head >= line, headers >= 8, connections >= 1)");
        }
        if (resolver == null) throw new PaddockException(ErrorCode.INVALID_EGRESS_CONFIG, "resolver must be set");
        loopbackUpstreamPorts = Set.copyOf(loopbackUpstreamPorts);
        for (int port : loopbackUpstreamPorts) {
            if (port < 1 || port > 65535) throw new PaddockException(ErrorCode.INVALID_EGRESS_CONFIG, "loopback upstream port " + port + " is not 1-65535");
        }
    }

    public static EgressConfig defaults() {
        return new EgressConfig(Duration.ofSeconds(10), Duration.ofMinutes(2), Duration.ofMinutes(30),
                8 * 1024, 64 * 1024, 100, 256, HostResolver.system(), Set.of(), null);
    }

    public EgressConfig connectTimeout(Duration d) { return new EgressConfig(d, idleTimeout, totalTimeout, maxLineBytes, maxHeadBytes, maxHeaders, maxConnectionsPerListener, resolver, loopbackUpstreamPorts, upstreamTls); }

    public EgressConfig idleTimeout(Duration d) { return new EgressConfig(connectTimeout, d, totalTimeout, maxLineBytes, maxHeadBytes, maxHeaders, maxConnectionsPerListener, resolver, loopbackUpstreamPorts, upstreamTls); }

    public EgressConfig totalTimeout(Duration d) { return new EgressConfig(connectTimeout, idleTimeout, d, maxLineBytes, maxHeadBytes, maxHeaders, maxConnectionsPerListener, resolver, loopbackUpstreamPorts, upstreamTls); }

    public EgressConfig headerLimits(int lineBytes, int headBytes, int headers) { return new EgressConfig(connectTimeout, idleTimeout, totalTimeout, lineBytes, headBytes, headers, maxConnectionsPerListener, resolver, loopbackUpstreamPorts, upstreamTls); }

    public EgressConfig maxConnectionsPerListener(int n) { return new EgressConfig(connectTimeout, idleTimeout, totalTimeout, maxLineBytes, maxHeadBytes, maxHeaders, n, resolver, loopbackUpstreamPorts, upstreamTls); }

    public EgressConfig resolver(HostResolver r) { return new EgressConfig(connectTimeout, idleTimeout, totalTimeout, maxLineBytes, maxHeadBytes, maxHeaders, maxConnectionsPerListener, r, loopbackUpstreamPorts, upstreamTls); }

    /** TEST ONLY: lets the proxy connect to these loopback ports. Logged as a WARN at proxy start and per use. */
    public EgressConfig allowLoopbackUpstreamPorts(Set<Integer> ports) { return new EgressConfig(connectTimeout, idleTimeout, totalTimeout, maxLineBytes, maxHeadBytes, maxHeaders, maxConnectionsPerListener, resolver, ports, upstreamTls); }

    /** The TLS context used to verify upstream servers of intercepted hosts; {@code null} means the JDK default trust. */
    public EgressConfig upstreamTls(SSLContext context) { return new EgressConfig(connectTimeout, idleTimeout, totalTimeout, maxLineBytes, maxHeadBytes, maxHeaders, maxConnectionsPerListener, resolver, loopbackUpstreamPorts, context); }

    SSLContext upstreamTlsOrDefault() {
        if (upstreamTls != null) return upstreamTls;
        try {
            return SSLContext.getDefault();
        } catch (NoSuchAlgorithmException e) {
            throw PaddockException.internal("no default TLS context", e);
        }
    }

    private static void requirePositive(Duration d, String name) {
        if (d == null || d.isNegative() || d.isZero()) throw new PaddockException(ErrorCode.INVALID_EGRESS_CONFIG, name + " must be a positive duration");
    }
}
