package dev.paddock.driver.kubernetes;

import java.util.Map;

/**
 * How sandbox pods reach Paddock's egress proxy. The server listens on {@code listenHost:listenPort} (its
 * {@link EgressGateway}); pods are told {@code proxyHost:proxyPort} (the server pod's address as pods see it), and
 * each sandbox's NetworkPolicy lets it reach only pods labelled {@code serverLabels} in {@code serverNamespace} on the
 * listen port: a NetworkPolicy port is the port of the destination pod, so it is the listen port, not the one pods dial.
 * A port of 0 (tests) listens on any free port.
 */
public record PodEgress(String listenHost, int listenPort, String proxyHost, int proxyPort, String serverNamespace,
                        Map<String, String> serverLabels) {

    public PodEgress {
        if (listenHost == null || listenHost.isBlank()) throw new IllegalArgumentException("the egress listen address needs a host");
        if (listenPort < 0 || listenPort > 65535) throw new IllegalArgumentException("the egress listen port must be 0-65535, got " + listenPort);
        if (proxyHost == null || proxyHost.isBlank() || proxyHost.contains("/") || proxyHost.contains("@")) {
            throw new IllegalArgumentException("the egress proxy address must be host:port as sandbox pods reach it, got " + proxyHost);
        }
        if (proxyPort < 1 || proxyPort > 65535) throw new IllegalArgumentException("the egress proxy port must be 1-65535, got " + proxyPort);
        if (serverNamespace == null || serverNamespace.isBlank()) throw new IllegalArgumentException("the egress proxy's namespace is required");
        if (serverLabels == null || serverLabels.isEmpty()) throw new IllegalArgumentException("the egress proxy's pod labels are required");
        serverLabels = Map.copyOf(serverLabels);
    }

    /** Reads {@code host:port}; a missing host or port is refused naming the setting. */
    public static HostPort hostPort(String setting, String value) {
        int colon = value == null ? -1 : value.lastIndexOf(':');
        if (colon <= 0 || colon == value.length() - 1) throw new IllegalArgumentException(setting + " must be host:port, got '" + value + "'");
        try {
            return new HostPort(value.substring(0, colon), Integer.parseInt(value.substring(colon + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(setting + " must be host:port with a numeric port, got '" + value + "'");
        }
    }

    public record HostPort(String host, int port) {}
}
