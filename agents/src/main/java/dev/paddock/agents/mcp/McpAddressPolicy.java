package dev.paddock.agents.mcp;

import dev.paddock.core.egress.BlockedAddresses;
import dev.paddock.core.egress.HostName;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Where the server may send MCP requests (with the tenant's credentials): only to public addresses, by the same
 * {@link BlockedAddresses} the egress proxy refuses, unless the operator allows private, loopback and link-local ones
 * ({@code mcp_allow_private_hosts}). Cloud metadata addresses are refused either way. Every address a name resolves
 * to must pass.
 */
final class McpAddressPolicy {
    /** Turns a host name into its addresses; a seam so tests choose them. */
    @FunctionalInterface
    interface Resolver {
        List<InetAddress> resolve(String host) throws IOException;

        Resolver SYSTEM = host -> List.of(InetAddress.getAllByName(host));
    }

    private final boolean allowPrivate;
    private final Resolver resolver;

    McpAddressPolicy(boolean allowPrivate, Resolver resolver) {
        this.allowPrivate = allowPrivate;
        this.resolver = resolver;
    }

    /** Throws a connection failure naming the refused address; returns when the URL may be called. */
    void check(String serverName, URI url) {
        for (InetAddress address : resolve(serverName, url)) {
            Optional<String> reason = BlockedAddresses.reason(address);
            if (reason.isEmpty() || allowPrivate && !reason.get().equals(BlockedAddresses.METADATA)) continue;
            String kind = reason.get().substring("blocked_address_".length()).replace('_', '-');
            throw new McpFailure(McpFailure.Kind.CONNECTION, serverName, "MCP server '" + serverName + "' at " + url.getHost()
                    + " is refused: it resolves to " + address.getHostAddress() + ", a " + kind + " address"
                    + (reason.get().equals(BlockedAddresses.METADATA) ? "" : " (an operator can allow private hosts with mcp_allow_private_hosts)"));
        }
    }

    private List<InetAddress> resolve(String serverName, URI url) {
        String host = HostName.normalize(url.getHost() == null ? "" : url.getHost().toLowerCase(Locale.ROOT)).orElseThrow(() ->
                new McpFailure(McpFailure.Kind.CONNECTION, serverName, "MCP server '" + serverName + "' has no valid host name"));
        if (HostName.isIpLiteral(host)) return List.of(HostName.literalAddress(host));
        try {
            List<InetAddress> all = resolver.resolve(host);
            if (all == null || all.isEmpty()) throw new IOException("no address");
            return all;
        } catch (IOException | RuntimeException e) {
            throw new McpFailure(McpFailure.Kind.CONNECTION, serverName, "MCP server '" + serverName + "' (" + url.getHost() + ") does not resolve");
        }
    }
}
