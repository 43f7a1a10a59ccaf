package dev.paddock.agents.mcp;

import dev.paddock.core.egress.HostName;
import dev.paddock.egress.policy.AddressGuard;
import dev.paddock.egress.policy.BlockedAddressException;
import dev.paddock.egress.policy.HostResolver;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Where the server may send MCP requests (with the tenant's credentials): by default only to public addresses, as the
 * egress proxy's {@link AddressGuard} decides; with {@code mcp_allow_private_hosts} also to private, loopback and
 * link-local ones. Cloud metadata addresses are refused either way. Every address a name resolves to must pass.
 */
final class McpAddressPolicy {
    private static final String METADATA = "blocked_address_metadata";

    private final boolean allowPrivate;
    private final HostResolver resolver;
    private final AddressGuard guard;

    McpAddressPolicy(boolean allowPrivate, HostResolver resolver) {
        this.allowPrivate = allowPrivate;
        this.resolver = resolver;
        this.guard = new AddressGuard(resolver, Set.of());
    }

    /** Throws a connection failure naming the refused address; returns when the URL may be called. */
    void check(String serverName, URI url) {
        int port = url.getPort() == -1 ? McpUrls.defaultPort(url.getScheme().toLowerCase()) : url.getPort();
        if (!allowPrivate) {
            try {
                guard.check(url.getHost(), port);
                return;
            } catch (BlockedAddressException e) {
                throw refused(serverName, url, e.getMessage(), !e.reason().equals(METADATA) && e.reason().startsWith("blocked_address_"));
            }
        }
        for (InetAddress address : resolve(serverName, url)) {
            Optional<String> reason = AddressGuard.blockReason(address);
            if (reason.isPresent() && reason.get().equals(METADATA)) {
                throw refused(serverName, url, "resolves to " + address.getHostAddress() + ", a cloud metadata address", false);
            }
        }
    }

    private List<InetAddress> resolve(String serverName, URI url) {
        String host = HostName.normalize(url.getHost()).orElseThrow(() -> refused(serverName, url, "not a valid host name", false));
        if (HostName.isIpLiteral(host)) return List.of(HostName.literalAddress(host));
        try {
            List<InetAddress> all = resolver.resolve(host);
            if (all == null || all.isEmpty()) throw new IOException("no address");
            return all;
        } catch (IOException | RuntimeException e) {
            throw new McpFailure(McpFailure.Kind.CONNECTION, serverName, "MCP server '" + serverName + "' (" + url.getHost() + ") does not resolve");
        }
    }

    private static McpFailure refused(String serverName, URI url, String why, boolean settingHelps) {
        return new McpFailure(McpFailure.Kind.CONNECTION, serverName, "MCP server '" + serverName + "' at " + url.getHost() + " is refused: " + why
                + (settingHelps ? " (an operator can allow private hosts with mcp_allow_private_hosts)" : ""));
    }
}
