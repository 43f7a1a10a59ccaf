package dev.paddock.driver.kubernetes;

import java.util.Map;

/**
 * How sandbox pods reach Paddock's egress proxy. The server listens on {@code listenHost:listenPort} (its
 * {@link EgressGateway}); pods are told {@code proxyHost:proxyPort} (a Service in front of every server's gateway, or
 * one server pod's address); other servers reach this one's gateway at {@code advertiseHost:advertisePort} (its pod
 * address) when a pod's connection lands on a server that does not hold its proxy listener.
 * Each sandbox's NetworkPolicy lets it reach only pods labelled {@code serverLabels} in {@code serverNamespace} on the
 * listen port: a NetworkPolicy port is the port of the destination pod, so it is the listen port, not the one pods dial.
 * A port of 0 (tests) listens on any free port; an advertised port of 0 is the port listened on.
 */
public record PodEgress(String listenHost, int listenPort, String proxyHost, int proxyPort, String serverNamespace,
                        Map<String, String> serverLabels, String advertiseHost, int advertisePort) {

    /** Other servers reach this one where pods do ({@code proxyHost:proxyPort}): one server, or each pod told its own server. */
    public PodEgress(String listenHost, int listenPort, String proxyHost, int proxyPort, String serverNamespace, Map<String, String> serverLabels) {
        this(listenHost, listenPort, proxyHost, proxyPort, serverNamespace, serverLabels, proxyHost, proxyPort);
    }

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
        if (advertiseHost == null || advertiseHost.isBlank() || advertiseHost.contains("/") || advertiseHost.contains("@")) {
            throw new IllegalArgumentException("the address other servers reach this server's egress gateway at must be host:port, got " + advertiseHost);
        }
        if (advertisePort < 0 || advertisePort > 65535) throw new IllegalArgumentException("the advertised egress port must be 0-65535, got " + advertisePort);
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
