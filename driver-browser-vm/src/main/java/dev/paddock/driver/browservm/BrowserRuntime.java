package dev.paddock.driver.browservm;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One paired runtime, a sandbox tab ({@link #KIND}, one sandbox) or a paired daemon ({@link #DAEMON_KIND}, as many
 * sandboxes as the capacity its hello announced): its identity (id, kind, tenant, token hash) outlives any single
 * socket, so a runtime that reconnects with its token resumes the same runtime and the sandboxes bound to it.
 */
public final class BrowserRuntime {
    public static final String KIND = "browser-vm";
    /** A {@code paddock runtime pair} process serving sandboxes with its own local driver. */
    public static final String DAEMON_KIND = "daemon";

    private final String id;
    private final String kind;
    private final String tenantId;
    private final String tokenHash;
    private final Instant createdAt;
    private RelayConnection connection;
    private Instant lastHeartbeatAt;
    private final Set<String> sandboxes = new LinkedHashSet<>();
    private String engine;
    private String vmState;
    private String bootMode;
    private Long bootMillis;
    private String hostName;
    private String driver;
    /** How many sandboxes it runs at once: one per tab; a daemon has none until its hello says how many. */
    private int capacity;
    private boolean revoked;

    BrowserRuntime(String id, String tenantId, String tokenHash, Instant createdAt) {
        this(id, KIND, tenantId, tokenHash, createdAt);
    }

    BrowserRuntime(String id, String kind, String tenantId, String tokenHash, Instant createdAt) {
        this.id = id;
        this.kind = kind;
        this.tenantId = tenantId;
        this.tokenHash = tokenHash;
        this.createdAt = createdAt;
        this.capacity = KIND.equals(kind) ? 1 : 0;
    }

    public String id() { return id; }

    public String kind() { return kind; }

    public boolean daemon() { return DAEMON_KIND.equals(kind); }

    public String tenantId() { return tenantId; }

    String tokenHash() { return tokenHash; }

    public synchronized View view() {
        return new View(id, kind, connection != null ? "online" : "offline", engine, vmState, bootMode, bootMillis,
                sandboxes.isEmpty() ? null : sandboxes.iterator().next(), createdAt, lastHeartbeatAt,
                hostName, driver, daemon() ? capacity : null, daemon() ? List.copyOf(sandboxes) : null);
    }

    /**
     * What the API shows of a runtime; never the token. {@code hostName}, {@code driver}, {@code capacity} and
     * {@code sandboxIds} are a daemon's (null for a tab, whose one sandbox is {@code sandboxId}).
     */
    public record View(String id, String kind, String status, String engine, String vmState, String bootMode, Long bootMillis,
                       String sandboxId, Instant createdAt, Instant lastHeartbeatAt, String hostName, String driver,
                       Integer capacity, List<String> sandboxIds) {}

    synchronized RelayConnection connection() { return connection; }

    synchronized boolean online() { return connection != null; }

    synchronized void attach(RelayConnection c, Instant at) {
        connection = c;
        lastHeartbeatAt = at;
        notifyAll();
    }

    synchronized void detach(RelayConnection c) {
        if (connection == c) connection = null;
        notifyAll();
    }

    synchronized void heartbeat(Instant at) { lastHeartbeatAt = at; }

    synchronized void hello(Frames.Hello h) {
        engine = h.engine();
        if (daemon()) {
            hostName = h.host();
            driver = h.driver();
            capacity = h.capacity();
        }
        vmState = h.vm();
        if (h.bootMode() != null) bootMode = h.bootMode();
        if (h.bootMillis() != null) bootMillis = h.bootMillis();
    }

    /** The live connection, waiting up to {@code grace} for a reloading tab to come back; null when it does not. */
    synchronized RelayConnection awaitConnection(Duration grace, Clock clock) throws InterruptedException {
        long deadline = System.nanoTime() + grace.toNanos();
        while (connection == null && !revoked) {
            long left = deadline - System.nanoTime();
            if (left <= 0) return null;
            wait(Math.max(1, left / 1_000_000));
        }
        return revoked ? null : connection;
    }

    /** The tab's sandbox (a daemon's first), or null. */
    synchronized String sandboxId() { return sandboxes.isEmpty() ? null : sandboxes.iterator().next(); }

    synchronized List<String> sandboxIds() { return List.copyOf(sandboxes); }

    synchronized boolean bind(String sbx) {
        if (revoked || sandboxes.size() >= capacity) return false;
        sandboxes.add(sbx);
        return true;
    }

    synchronized void unbind(String sbx) {
        sandboxes.remove(sbx);
    }

    synchronized void revoke() {
        revoked = true;
        notifyAll();
    }

    synchronized boolean revoked() { return revoked; }
}
