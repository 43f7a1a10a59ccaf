package dev.paddock.browservm.web;

import java.time.Instant;

/** Request and response bodies of the runtime endpoints (snake_case on the wire). */
final class RuntimeBodies {
    private RuntimeBodies() {}

    record PairBody(String kind) {}

    record ExchangeBody(String code, String kind) {}

    /** {@code tabUrl} for a sandbox tab, {@code command} (what to run on the daemon's machine) for a paired daemon. */
    record PairingCode(String code, String kind, Instant expiresAt, String tabUrl, String command) {}

    record Exchanged(String runtimeId, String runtimeToken, String kind, String relayPath, long heartbeatSeconds) {}
}
