package dev.paddock.browservm.web;

import java.time.Instant;

/** Request and response bodies of the runtime endpoints (snake_case on the wire). */
final class RuntimeBodies {
    private RuntimeBodies() {}

    record PairBody(String kind) {}

    record ExchangeBody(String code, String kind) {}

    record PairingCode(String code, String kind, Instant expiresAt, String tabUrl) {}

    record Exchanged(String runtimeId, String runtimeToken, String kind, String relayPath, long heartbeatSeconds) {}
}
