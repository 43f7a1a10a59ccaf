package dev.paddock.egress.proxy;

import dev.paddock.core.egress.EgressAuditRecord;
import dev.paddock.core.egress.EgressDecision;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.egress.policy.EgressRules;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One sandbox's way out: a listening socket (unix-domain, or TCP on 127.0.0.1 for tests) whose every connection
 * is attributed to that sandbox. Closing it stops accepting, closes live connections and removes the socket file.
 */
public final class ProxyListener implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ProxyListener.class);

    private final ProxyContext ctx;
    /** Replaced whole when the sandbox's policy changes; each connection keeps the one it started with. */
    private volatile SandboxEgress sandbox;
    private final ServerSocketChannel server;
    private final Path socketPath;
    private final Semaphore slots;
    private final Set<SocketChannel> live = ConcurrentHashMap.newKeySet();
    private final Runnable onClose;
    private volatile boolean closed;

    ProxyListener(ProxyContext ctx, SandboxEgress sandbox, ServerSocketChannel server, Path socketPath, Runnable onClose) {
        this.ctx = ctx;
        this.sandbox = sandbox;
        this.server = server;
        this.socketPath = socketPath;
        this.slots = new Semaphore(ctx.config().maxConnectionsPerListener());
        this.onClose = onClose;
        Thread.ofVirtual().name("egress-accept-" + sandbox.sandboxId()).start(this::acceptLoop);
    }

    public String sandboxId() { return sandbox.sandboxId(); }

    /** The unix socket path, or null for a TCP listener. */
    public Path socketPath() { return socketPath; }

    /** The TCP port on 127.0.0.1, or -1 for a unix-domain listener. */
    public int tcpPort() {
        try {
            return server.getLocalAddress() instanceof InetSocketAddress a ? a.getPort() : -1;
        } catch (IOException e) {
            return -1;
        }
    }

    /** Connections currently being served. */
    public int activeConnections() { return live.size(); }

    private void acceptLoop() {
        while (!closed) {
            SocketChannel ch;
            try {
                ch = server.accept();
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                if (!closed) log.warn("egress listener for {} stopped accepting: {}", sandbox.sandboxId(), e.toString());
                return;
            }
            if (!slots.tryAcquire()) {
                // over the per-sandbox limit: refuse rather than queue without bound
                closeQuietly(ch);
                continue;
            }
            live.add(ch);
            if (closed) closeQuietly(ch);
            // read after the add: a policy change either closes this connection or is the one it reads
            SandboxEgress current = sandbox;
            Thread.ofVirtual().name("egress-" + current.sandboxId()).start(() -> {
                try {
                    new ProxyConnection(ctx, current, ch).run();
                } finally {
                    live.remove(ch);
                    closeQuietly(ch);
                    slots.release();
                }
            });
        }
    }

    /**
     * Gives the listener new rules, keeping its socket and credentials: connections accepted from now on meet
     * {@code policy}; those open under the old rules are closed (their destinations were checked against rules that
     * no longer hold). The change is written to the egress audit as one record of mode {@code policy_change}.
     */
    public void replaceRules(NetworkPolicy policy) {
        EgressRules rules = new EgressRules(policy);
        SandboxEgress before = sandbox;
        sandbox = new SandboxEgress(before.sandboxId(), rules, before.credentials());
        int closedConnections = live.size();
        for (SocketChannel ch : live) closeQuietly(ch);
        try {
            ctx.sink().record(new EgressAuditRecord(before.sandboxId(), Instant.now(), "", null, 0, null, null, "policy_change",
                    EgressDecision.ALLOWED, "network_changed:" + policy.mode().name().toLowerCase(Locale.ROOT)
                            + ";closed_connections=" + closedConnections, 0, 0, 0, Duration.ZERO, List.of(), List.of()));
        } catch (RuntimeException e) {
            // the rules changed all the same; the sandbox's event log has the change too
            log.warn("could not audit the policy change of {}: {}", before.sandboxId(), e.getMessage());
        }
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        closeQuietly(server);
        for (SocketChannel ch : live) closeQuietly(ch);
        if (socketPath != null) {
            try {
                Files.deleteIfExists(socketPath);
            } catch (IOException e) {
                log.warn("cannot remove egress socket {}: {}", socketPath, e.toString());
            }
        }
        onClose.run();
    }

    private static void closeQuietly(Closeable c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public String toString() {
        return "ProxyListener[" + sandbox.sandboxId() + (socketPath != null ? " unix:" + socketPath : " tcp:" + tcpPort()) + "]";
    }
}
