package dev.paddock.egress.proxy;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.egress.EgressAuditRecord;
import dev.paddock.core.egress.EgressAuditSink;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.egress.policy.AddressGuard;
import dev.paddock.egress.policy.EgressRules;
import dev.paddock.egress.tls.CertificateAuthority;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The egress proxy: an HTTP/1.1 forward proxy with CONNECT tunnelling, on virtual threads, enforcing each
 * sandbox's {@link NetworkPolicy} plus {@link AddressGuard} in every mode, injecting credentials for rule hosts,
 * and writing one {@link EgressAuditRecord} per connection or request. One listener per sandbox; the socket a
 * connection arrives on is what identifies the sandbox.
 */
public final class EgressProxy implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(EgressProxy.class);
    private static final Pattern SANDBOX_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    private final ProxyContext ctx;
    private final Map<ProxyListener, Boolean> listeners = new ConcurrentHashMap<>();

    /**
     * @param config limits and seams ({@link EgressConfig#defaults()} for production)
     * @param sink   where audit records go
     * @param ca     the installation CA for TLS interception of credential hosts; null when no sandbox has credentials
     */
    public EgressProxy(EgressConfig config, EgressAuditSink sink, CertificateAuthority ca) {
        if (!config.loopbackUpstreamPorts().isEmpty()) {
            log.warn("!!! egress proxy may connect to LOOPBACK ports {} (allowLoopbackUpstreamPorts). This is for tests only; "
                    + "sandboxes can reach host services on those ports. !!!", config.loopbackUpstreamPorts());
        }
        this.ctx = new ProxyContext(config, new HttpHeads(config), new AddressGuard(config.resolver(), config.loopbackUpstreamPorts()),
                new Watchdog(config.idleTimeout(), config.totalTimeout()), sink, ca);
    }

    /** Listens on a unix-domain socket at {@code socket} for one sandbox without credentials. */
    public ProxyListener listen(String sandboxId, Path socket, NetworkPolicy policy) {
        return listen(sandboxId, socket, policy, SandboxCredentials.NONE);
    }

    /**
     * Listens on a unix-domain socket at {@code socket} (a stale socket file there is replaced; any other file is
     * refused). The caller sets the file's owner and mode so only the sandbox can connect.
     */
    public ProxyListener listen(String sandboxId, Path socket, NetworkPolicy policy, SandboxCredentials credentials) {
        SandboxEgress sandbox = sandbox(sandboxId, policy, credentials);
        try {
            if (Files.exists(socket, LinkOption.NOFOLLOW_LINKS)) {
                BasicFileAttributes attrs = Files.readAttributes(socket, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                if (!attrs.isOther()) {
                    throw new PaddockException(ErrorCode.EGRESS_SOCKET_PATH_TAKEN, socket + " exists and is not a socket; choose another path");
                }
                Files.delete(socket);
            }
            ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            server.bind(UnixDomainSocketAddress.of(socket));
            return register(sandbox, server, socket);
        } catch (IOException e) {
            throw PaddockException.internal("cannot listen on egress socket " + socket, e);
        }
    }

    /** Listens on 127.0.0.1 with an ephemeral TCP port (tests, tools, and drivers that bridge over TCP). */
    public ProxyListener listenTcp(String sandboxId, NetworkPolicy policy, SandboxCredentials credentials) {
        SandboxEgress sandbox = sandbox(sandboxId, policy, credentials);
        try {
            ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.INET);
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 128);
            return register(sandbox, server, null);
        } catch (IOException e) {
            throw PaddockException.internal("cannot listen on 127.0.0.1 for egress", e);
        }
    }

    /** The installation CA used for interception, or null. */
    public CertificateAuthority certificateAuthority() { return ctx.ca(); }

    /** Connections being served across all listeners. */
    public int activeConnections() { return ctx.watchdog().activeCount(); }

    private SandboxEgress sandbox(String sandboxId, NetworkPolicy policy, SandboxCredentials credentials) {
        if (sandboxId == null || !SANDBOX_ID.matcher(sandboxId).matches()) {
            throw new PaddockException(ErrorCode.INVALID_ID, "sandbox id '" + Text.clip(sandboxId, 60) + "' must be 1-64 characters of A-Z a-z 0-9 _ -");
        }
        SandboxCredentials creds = credentials == null ? SandboxCredentials.NONE : credentials;
        if (!creds.isEmpty() && ctx.ca() == null) {
            throw new PaddockException(ErrorCode.EGRESS_CA_MISSING, "credential rules need TLS interception: create the proxy with a CertificateAuthority");
        }
        return new SandboxEgress(sandboxId, new EgressRules(policy), creds);
    }

    private ProxyListener register(SandboxEgress sandbox, ServerSocketChannel server, Path socket) {
        ProxyListener[] self = new ProxyListener[1];
        self[0] = new ProxyListener(ctx, sandbox, server, socket, () -> listeners.remove(self[0]));
        listeners.put(self[0], Boolean.TRUE);
        return self[0];
    }

    @Override
    public void close() {
        for (ProxyListener l : listeners.keySet()) l.close();
        ctx.watchdog().close();
    }
}
