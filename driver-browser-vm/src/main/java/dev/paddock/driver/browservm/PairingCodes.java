package dev.paddock.driver.browservm;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One-time pairing codes: minted for a tenant, exchanged once within their time to live, kept only as hashes.
 * A used or expired code is remembered until it would have expired, so the refusal can say why.
 */
public final class PairingCodes {
    public static final String PREFIX = "ppc_";

    public record Minted(String code, String tenantId, String kind, Instant expiresAt) {}

    /** A code is minted for one kind of runtime (a sandbox tab or a paired daemon) and pairs only that kind. */
    private record Entry(String tenantId, String kind, Instant expiresAt, boolean used) {}

    private final Map<String, Entry> byHash = new ConcurrentHashMap<>();
    private final Duration ttl;
    private final Clock clock;

    public PairingCodes(Duration ttl, Clock clock) {
        this.ttl = ttl;
        this.clock = clock;
    }

    public Minted mint(String tenantId) {
        return mint(tenantId, BrowserRuntime.KIND);
    }

    public Minted mint(String tenantId, String kind) {
        purge();
        String code = Secrets.newSecret(PREFIX);
        Instant expires = clock.instant().plus(ttl);
        byHash.put(Secrets.hash(code), new Entry(tenantId, kind, expires, false));
        return new Minted(code, tenantId, kind, expires);
    }

    /** The tenant a sandbox-tab code was minted for; the code cannot be used again. */
    public String redeem(String code) {
        return redeem(code, BrowserRuntime.KIND);
    }

    /** The tenant the code was minted for, when it was minted for {@code kind}; the code cannot be used again. */
    public String redeem(String code, String kind) {
        if (!Secrets.looksLike(PREFIX, code)) throw refused(ErrorCode.PAIRING_CODE_INVALID, "the pairing code is not valid");
        String hash = Secrets.hash(code);
        Entry[] found = new Entry[1];
        byHash.computeIfPresent(hash, (k, e) -> {
            found[0] = e;
            // a code of another kind stays unused: the right client may still redeem it
            return e.used() || !e.kind().equals(kind) ? e : new Entry(e.tenantId(), e.kind(), e.expiresAt(), true);
        });
        Entry e = found[0];
        if (e == null) throw refused(ErrorCode.PAIRING_CODE_INVALID, "the pairing code is not valid");
        if (!e.kind().equals(kind)) {
            throw refused(ErrorCode.PAIRING_CODE_INVALID, "the pairing code was minted for a " + e.kind() + " runtime, not a " + kind + " one");
        }
        if (e.used()) throw refused(ErrorCode.PAIRING_CODE_USED, "the pairing code was already used; " + fresh(e.kind()));
        if (!clock.instant().isBefore(e.expiresAt())) {
            throw refused(ErrorCode.PAIRING_CODE_EXPIRED, "the pairing code expired; " + fresh(e.kind()));
        }
        return e.tenantId();
    }

    private static String fresh(String kind) {
        return BrowserRuntime.KIND.equals(kind) ? "open a new sandbox tab from the console"
                : "mint a new code (console: Runtimes, or POST /v1/runtimes/pairing_codes) and pair again";
    }

    private void purge() {
        Instant now = clock.instant();
        byHash.values().removeIf(e -> now.isAfter(e.expiresAt().plus(ttl)));
    }

    private static PaddockException refused(ErrorCode code, String message) {
        return new PaddockException(code, message);
    }
}
