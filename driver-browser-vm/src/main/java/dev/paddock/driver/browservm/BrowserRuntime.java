package dev.paddock.driver.browservm;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * One paired tab: its identity (id, tenant, token hash) outlives any single socket, so a reloaded tab that
 * reconnects with its token resumes the same runtime and the sandbox bound to it.
 */
public final class BrowserRuntime {
    public static final String KIND = "browser-vm";

    private final String id;
    private final String tenantId;
    private final String tokenHash;
    private final Instant createdAt;
    private RelayConnection connection;
    private Instant lastHeartbeatAt;
    private String sandboxId;
    private String engine;
    private String vmState;
    private String bootMode;
    private Long bootMillis;
    private boolean revoked;

    BrowserRuntime(String id, String tenantId, String tokenHash, Instant createdAt) {
        this.id = id;
        this.tenantId = tenantId;
        this.tokenHash = tokenHash;
        this.createdAt = createdAt;
    }

    public String id() { return id; }

    public String tenantId() { return tenantId; }

    String tokenHash() { return tokenHash; }

    public synchronized View view() {
        return new View(id, KIND, connection != null ? "online" : "offline", engine, vmState, bootMode, bootMillis,
                sandboxId, createdAt, lastHeartbeatAt);
    }

    /** What the API shows of a runtime; never the token. */
    public record View(String id, String kind, String status, String engine, String vmState, String bootMode, Long bootMillis,
                       String sandboxId, Instant createdAt, Instant lastHeartbeatAt) {}

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

    synchronized String sandboxId() { return sandboxId; }

    synchronized boolean bind(String sbx) {
        if (sandboxId != null || revoked) return false;
        sandboxId = sbx;
        return true;
    }

    synchronized void unbind(String sbx) {
        if (sbx.equals(sandboxId)) sandboxId = null;
    }

    synchronized void revoke() {
        revoked = true;
        notifyAll();
    }

    synchronized boolean revoked() { return revoked; }
}
