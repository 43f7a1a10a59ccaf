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

    public record Minted(String code, String tenantId, Instant expiresAt) {}

    private record Entry(String tenantId, Instant expiresAt, boolean used) {}

    private final Map<String, Entry> byHash = new ConcurrentHashMap<>();
    private final Duration ttl;
    private final Clock clock;

    public PairingCodes(Duration ttl, Clock clock) {
        this.ttl = ttl;
        this.clock = clock;
    }

    public Minted mint(String tenantId) {
        purge();
        String code = Secrets.newSecret(PREFIX);
        Instant expires = clock.instant().plus(ttl);
        byHash.put(Secrets.hash(code), new Entry(tenantId, expires, false));
        return new Minted(code, tenantId, expires);
    }

    /** The tenant the code was minted for; the code cannot be used again. */
    public String redeem(String code) {
        if (!Secrets.looksLike(PREFIX, code)) throw refused(ErrorCode.PAIRING_CODE_INVALID, "the pairing code is not valid");
        String hash = Secrets.hash(code);
        Entry[] found = new Entry[1];
        byHash.computeIfPresent(hash, (k, e) -> {
            found[0] = e;
            return e.used() ? e : new Entry(e.tenantId(), e.expiresAt(), true);
        });
        Entry e = found[0];
        if (e == null) throw refused(ErrorCode.PAIRING_CODE_INVALID, "the pairing code is not valid");
        if (e.used()) throw refused(ErrorCode.PAIRING_CODE_USED, "the pairing code was already used; open a new sandbox tab from the console");
        if (!clock.instant().isBefore(e.expiresAt())) {
            throw refused(ErrorCode.PAIRING_CODE_EXPIRED, "the pairing code expired; open a new sandbox tab from the console");
        }
        return e.tenantId();
    }

    private void purge() {
        Instant now = clock.instant();
        byHash.values().removeIf(e -> now.isAfter(e.expiresAt().plus(ttl)));
    }

    private static PaddockException refused(ErrorCode code, String message) {
        return new PaddockException(code, message);
    }
}
