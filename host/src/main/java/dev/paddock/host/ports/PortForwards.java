package dev.paddock.host.ports;

import dev.paddock.access.Principal;
import dev.paddock.core.ErrorCode;
import dev.paddock.core.ErrorType;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.ExecHandle;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.UnsupportedCapabilityException;
import dev.paddock.host.RuntimeHost;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * Ports of sandboxes opened for forwarding (in memory: a restart of the server closes them). Each open port has
 * its own token, so a browser can reach it without the API key; closing the port revokes the token, and so does
 * revoking the API key that opened it (checked in the shared store on each new connection, so on every node). A connection
 * goes to {@code 127.0.0.1:port} inside the sandbox over the driver's own channel ({@link RuntimeHost#connectPort}).
 */
public final class PortForwards {
    public static final int MAX_PER_SANDBOX = 16;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final RuntimeHost host;
    private final Predicate<String> keyRevoked;
    private final Clock clock;
    private final Map<String, OpenPort> byKey = new ConcurrentHashMap<>();
    /** The connections in use through each open port (HTTP requests, WebSockets): closing the port ends them. */
    private final Map<String, Set<ExecHandle>> connections = new ConcurrentHashMap<>();

    /** An open port: who opened it (its tenant reaches it), its token and when it was opened. */
    public record OpenPort(Principal owner, String sandboxId, int port, String token, Instant createdAt) {}

    /** {@code keyRevoked}: whether the API key of this id was revoked (a port it opened stops answering its token). */
    public PortForwards(RuntimeHost host, Predicate<String> keyRevoked, Clock clock) {
        this.host = host;
        this.keyRevoked = keyRevoked;
        this.clock = clock;
    }

    /** Opens a port of the caller's sandbox (again: the same port answers its existing record). */
    public synchronized OpenPort open(Principal caller, String sandboxId, int port) {
        requirePort(port);
        String driver = host.get(caller, sandboxId).driver();
        boolean forwards = host.drivers().stream().anyMatch(c -> c.driver().equals(driver) && c.supportsPortForward());
        if (!forwards) throw new UnsupportedCapabilityException(driver, "port forwarding");
        forgetEnded();
        OpenPort existing = byKey.get(key(sandboxId, port));
        if (existing != null) return existing;
        if (byKey.values().stream().filter(p -> p.sandboxId().equals(sandboxId)).count() >= MAX_PER_SANDBOX) {
            throw new PaddockException(ErrorCode.TOO_MANY_PORTS, "sandbox " + sandboxId + " has " + MAX_PER_SANDBOX + " open ports; close one first");
        }
        byte[] raw = new byte[32];
        RANDOM.nextBytes(raw);
        OpenPort p = new OpenPort(caller, sandboxId, port, "prt_" + Base64.getUrlEncoder().withoutPadding().encodeToString(raw), clock.instant());
        byKey.put(key(sandboxId, port), p);
        return p;
    }

    public List<OpenPort> list(Principal caller, String sandboxId) {
        host.get(caller, sandboxId);
        return byKey.values().stream().filter(p -> p.sandboxId().equals(sandboxId)).sorted(Comparator.comparingInt(OpenPort::port)).toList();
    }

    public OpenPort get(Principal caller, String sandboxId, int port) {
        requirePort(port);
        host.get(caller, sandboxId);
        OpenPort p = byKey.get(key(sandboxId, port));
        if (p == null) throw notOpen(sandboxId, port);
        return p;
    }

    /** Closes the port: its token stops working and the connections made through it end. */
    public synchronized void close(Principal caller, String sandboxId, int port) {
        get(caller, sandboxId, port);
        byKey.remove(key(sandboxId, port));
        Set<ExecHandle> live = connections.remove(key(sandboxId, port));
        if (live != null) live.forEach(ExecHandle::kill);
    }

    /** The open port a token is for; the comparison takes the same time whatever the token. */
    public OpenPort byToken(String sandboxId, int port, String token) {
        OpenPort p = port < 1 || port > 65535 ? null : byKey.get(key(sandboxId, port));
        byte[] expected = (p == null ? "" : p.token()).getBytes(StandardCharsets.UTF_8);
        byte[] given = (token == null ? "-" : token).getBytes(StandardCharsets.UTF_8);
        if (p == null || !MessageDigest.isEqual(expected, given)) {
            throw new PaddockException(ErrorCode.INVALID_PORT_TOKEN, "the port token is unknown, or the port was closed; open the port again for a new URL");
        }
        if (keyRevoked.test(p.owner().keyId())) {
            closeRevoked(p);
            throw new PaddockException(ErrorCode.INVALID_PORT_TOKEN, "the API key that opened this port was revoked, which closed the port; open it again with a valid key");
        }
        return p;
    }

    private synchronized void closeRevoked(OpenPort p) {
        String key = key(p.sandboxId(), p.port());
        if (!byKey.remove(key, p)) return;
        Set<ExecHandle> live = connections.remove(key);
        if (live != null) live.forEach(ExecHandle::kill);
    }

    /** A stream to the open port inside the sandbox; its use counts as activity. */
    public ExecHandle connect(OpenPort p, ExecOutput output) {
        ExecHandle h = host.connectPort(p.owner(), p.sandboxId(), p.port(), output);
        String key = key(p.sandboxId(), p.port());
        synchronized (this) {
            if (byKey.get(key) != p) { // closed (or opened anew) while this connection was made
                h.kill();
                throw new PaddockException(ErrorCode.INVALID_PORT_TOKEN, "the port was closed; open it again for a new URL");
            }
            Set<ExecHandle> live = connections.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet());
            live.removeIf(PortForwards::ended);
            live.add(h);
        }
        return h;
    }

    private static boolean ended(ExecHandle h) {
        try {
            return h.await(Duration.ZERO) != null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Drops the ports of sandboxes that have ended (or are gone), so records do not outlive their sandboxes. */
    private void forgetEnded() {
        byKey.values().removeIf(p -> {
            try {
                return host.get(p.owner(), p.sandboxId()).state().isTerminal();
            } catch (PaddockException e) {
                return e.type() == ErrorType.NOT_FOUND;
            }
        });
        connections.keySet().removeIf(k -> !byKey.containsKey(k));
    }

    private static String key(String sandboxId, int port) {
        return sandboxId + ":" + port;
    }

    private static PaddockException notOpen(String sandboxId, int port) {
        return new PaddockException(ErrorCode.PORT_NOT_OPEN, "port " + port + " of sandbox " + sandboxId + " is not open for forwarding; POST /v1/sandboxes/" + sandboxId + "/ports first");
    }

    public static void requirePort(int port) {
        if (port < 1 || port > 65535) throw new PaddockException(ErrorCode.INVALID_PORT, "port must be 1 to 65535, got " + port);
    }
}
