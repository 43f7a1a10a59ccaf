package dev.paddock.driver.browservm;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.Ids;
import dev.paddock.core.PaddockException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The browser-vm runtime service: pairing codes, the registry of paired tabs (online/offline, last heartbeat),
 * their relay connections, and the op calls the driver makes through them. The HTTP layer calls
 * {@link #pair}, {@link #exchange}, {@link #authenticate} and {@link #connect}; the driver calls {@link #call}.
 * State is in memory: a restarted server forgets its runtimes and tabs pair again.
 */
public final class BrowserVm implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(BrowserVm.class);
    public static final String TOKEN_PREFIX = "prt_";

    public record Exchanged(String runtimeId, String runtimeToken, long heartbeatSeconds) {}

    /**
     * What the driver hears of a runtime's comings and goings. Called on the relay's own thread: an implementation
     * hands anything slow (a store write, an op to the tab) to another thread.
     */
    interface Presence {
        /** The tab said hello (after a connect, when its VM is ready). */
        void online(BrowserRuntime rt, Frames.Hello hello);

        /** The runtime has no socket any more; {@code why} is a short word such as {@code tab_closed}. */
        void offline(BrowserRuntime rt, String why);
    }

    private final BrowserVmConfig config;
    private final Clock clock;
    private final PairingCodes codes;
    private final Map<String, BrowserRuntime> byId = new ConcurrentHashMap<>();
    private final Map<String, BrowserRuntime> byTokenHash = new ConcurrentHashMap<>();
    private final List<Presence> presence = new CopyOnWriteArrayList<>();
    private volatile boolean closing;
    private final ScheduledExecutorService heartbeats =
            Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("paddock-browser-vm-heartbeat").factory());

    public BrowserVm(BrowserVmConfig config, Clock clock) {
        this.config = config;
        this.clock = clock;
        this.codes = new PairingCodes(config.pairingTtl(), clock);
        long every = config.heartbeat().toMillis();
        heartbeats.scheduleWithFixedDelay(this::beat, every, every, TimeUnit.MILLISECONDS);
        long check = Math.max(200, Math.min(every, config.peerTimeout().toMillis() / 4));
        heartbeats.scheduleWithFixedDelay(this::dropSilent, check, check, TimeUnit.MILLISECONDS);
    }

    public BrowserVmConfig config() { return config; }

    // ---------------------------------------------------------------- pairing and identity

    /** A one-time code for {@code tenantId}'s next sandbox tab. */
    public PairingCodes.Minted pair(String tenantId) {
        return pair(tenantId, BrowserRuntime.KIND);
    }

    /** A one-time code for {@code tenantId}'s next runtime of {@code kind} (a sandbox tab or a paired daemon). */
    public PairingCodes.Minted pair(String tenantId, String kind) {
        return codes.mint(tenantId, kind);
    }

    /** Trades a pairing code for a new runtime and its token (shown once; only its hash is kept). */
    public Exchanged exchange(String code) {
        return exchange(code, BrowserRuntime.KIND);
    }

    /** Trades a code minted for {@code kind} for a new runtime of that kind and its token. */
    public Exchanged exchange(String code, String kind) {
        String tenant = codes.redeem(code, kind);
        String token = Secrets.newSecret(TOKEN_PREFIX);
        BrowserRuntime rt = new BrowserRuntime(Ids.newId("rt"), kind, tenant, Secrets.hash(token), clock.instant());
        byId.put(rt.id(), rt);
        byTokenHash.put(rt.tokenHash(), rt);
        log.info("paired {} runtime {} for tenant {}", kind, rt.id(), tenant);
        return new Exchanged(rt.id(), token, config.heartbeat().toSeconds());
    }

    /** The runtime a token belongs to; a forged, revoked or malformed token is refused without saying which. */
    public BrowserRuntime authenticate(String token) {
        BrowserRuntime rt = Secrets.looksLike(TOKEN_PREFIX, token) ? byTokenHash.get(Secrets.hash(token)) : null;
        if (rt == null || rt.revoked()) {
            throw new PaddockException(ErrorCode.INVALID_RUNTIME_TOKEN,
                    "the runtime token is unknown or revoked; pair again (a new sandbox tab, or paddock runtime pair with a new code)");
        }
        return rt;
    }

    /** Attaches a new socket to the runtime; an older socket of the same runtime is closed (the newest tab wins). */
    public RelayConnection connect(BrowserRuntime rt, RelayPeer peer) {
        RelayConnection previous = rt.connection();
        RelayConnection c = new RelayConnection(this, rt, peer, clock);
        rt.attach(c, clock.instant());
        if (previous != null) previous.close(4409, "replaced by a newer connection of this runtime");
        c.welcome(config.heartbeat().toSeconds());
        return c;
    }

    public List<BrowserRuntime.View> runtimes(String tenantId) {
        return byId.values().stream().filter(r -> r.tenantId().equals(tenantId) && !r.revoked())
                .map(BrowserRuntime::view).sorted(Comparator.comparing(BrowserRuntime.View::id).reversed()).toList();
    }

    public Optional<BrowserRuntime.View> runtime(String tenantId, String id) {
        return Optional.ofNullable(byId.get(id)).filter(r -> r.tenantId().equals(tenantId) && !r.revoked()).map(BrowserRuntime::view);
    }

    /** Forgets a runtime: its token stops working and its socket is closed. */
    public void revoke(String tenantId, String id) {
        BrowserRuntime rt = Optional.ofNullable(byId.get(id)).filter(r -> r.tenantId().equals(tenantId) && !r.revoked())
                .orElseThrow(() -> PaddockException.notFound("runtime", id));
        rt.revoke();
        byTokenHash.remove(rt.tokenHash());
        RelayConnection c = rt.connection();
        if (c != null) c.close(4403, "runtime revoked");
    }

    // ---------------------------------------------------------------- for the driver

    void watch(Presence p) { presence.add(p); }

    void unwatch(Presence p) { presence.remove(p); }

    void helloFrom(BrowserRuntime rt, Frames.Hello hello) {
        for (Presence p : presence) {
            try {
                p.online(rt, hello);
            } catch (RuntimeException e) {
                log.error("handling the hello of runtime {} failed", rt.id(), e);
            }
        }
    }

    void closed(BrowserRuntime rt, String why) {
        if (closing || rt.online()) return; // a newer socket took over, or the server is stopping
        for (Presence p : presence) {
            try {
                p.offline(rt, why);
            } catch (RuntimeException e) {
                log.error("handling the loss of runtime {} failed", rt.id(), e);
            }
        }
    }

    /** Forgets a runtime whose sandbox another tab adopted: its token stops working, its socket (if any) closes. */
    void retire(BrowserRuntime rt) {
        rt.revoke();
        byTokenHash.remove(rt.tokenHash());
        byId.remove(rt.id());
        RelayConnection c = rt.connection();
        if (c != null) c.close(4410, "the sandbox moved to another sandbox tab");
    }

    /** Binds a new sandbox to one online, idle sandbox tab of the tenant. */
    BrowserRuntime claim(String tenantId, String sandboxId) {
        return claim(tenantId, sandboxId, BrowserRuntime.KIND);
    }

    /** Binds a new sandbox to one online runtime of the tenant and kind with room for it. */
    BrowserRuntime claim(String tenantId, String sandboxId, String kind) {
        List<BrowserRuntime> mine = byId.values().stream()
                .filter(r -> r.tenantId().equals(tenantId) && r.kind().equals(kind) && !r.revoked()).toList();
        for (BrowserRuntime rt : mine) {
            if (rt.online() && rt.bind(sandboxId)) return rt;
        }
        boolean daemon = BrowserRuntime.DAEMON_KIND.equals(kind);
        if (mine.stream().anyMatch(BrowserRuntime::online)) {
            if (daemon) throw TabErrors.daemonsBusy();
            throw new PaddockException(ErrorCode.SANDBOX_TABS_BUSY,
                    "every online sandbox tab already runs a sandbox; open another sandbox tab or delete a sandbox");
        }
        throw daemon ? TabErrors.noDaemon() : TabErrors.noTab("");
    }

    Optional<BrowserRuntime> runtimeOf(String runtimeId) {
        return Optional.ofNullable(byId.get(runtimeId));
    }

    /** Starts an op on the sandbox's tab, waiting up to the reconnect grace for an offline tab. */
    PendingCall start(BrowserRuntime rt, String sandboxId, String op, Map<String, Object> args, byte[] data, long timeoutSeconds, long maxReplyBytes) {
        long deadline = System.nanoTime() + config.reconnectGrace().toNanos();
        while (true) {
            RelayConnection c;
            try {
                c = rt.awaitConnection(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())), clock);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PaddockException(ErrorCode.INTERRUPTED, "the server is shutting down; retry");
            }
            if (c == null) throw TabErrors.gone(rt, sandboxId);
            PendingCall p = c.start(sandboxId, op, args, data, timeoutSeconds, maxReplyBytes);
            if (!p.undelivered || System.nanoTime() >= deadline) return p;
            // the socket died before the op left (its close not yet seen): wait for the runtime to reconnect, as when offline
            c.lost();
        }
    }

    /** Runs an op to its answer within {@code bound}. */
    Reply call(BrowserRuntime rt, String sandboxId, String op, Map<String, Object> args, byte[] data, long maxReplyBytes) {
        long seconds = config.fileOpTimeout().toSeconds();
        PendingCall p = start(rt, sandboxId, op, args, data, seconds, maxReplyBytes);
        return await(rt, p, config.fileOpTimeout());
    }

    Reply await(BrowserRuntime rt, PendingCall p, Duration bound) {
        try {
            return p.future.get(bound.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            RelayConnection c = rt.connection();
            if (c != null) c.forget(p);
            throw TabErrors.unresponsive(rt, p.sandboxId, bound.toSeconds());
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) throw re;
            throw PaddockException.internal("browser-vm op failed", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PaddockException(ErrorCode.INTERRUPTED, "the server is shutting down; retry");
        }
    }

    // ---------------------------------------------------------------- heartbeats

    private void beat() {
        for (BrowserRuntime rt : byId.values()) {
            RelayConnection c = rt.connection();
            if (c != null) c.heartbeat();
        }
    }

    /** A tab silent for longer than the peer timeout (asleep, frozen, network gone) is offline. */
    private void dropSilent() {
        Instant limit = clock.instant().minus(config.peerTimeout());
        for (BrowserRuntime rt : byId.values()) {
            RelayConnection c = rt.connection();
            if (c != null && c.lastSeen().isBefore(limit)) {
                log.info("runtime {} missed its heartbeats; marking it offline", rt.id());
                c.close(4408, "heartbeat timeout");
            }
        }
    }

    @Override
    public void close() {
        closing = true;
        heartbeats.shutdownNow();
        for (BrowserRuntime rt : byId.values()) {
            RelayConnection c = rt.connection();
            if (c != null) c.close(1001, "server shutting down");
        }
    }
}
