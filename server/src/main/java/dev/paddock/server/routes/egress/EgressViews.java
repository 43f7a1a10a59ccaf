package dev.paddock.server.routes.egress;

import dev.paddock.core.egress.EgressAuditEntry;
import dev.paddock.core.egress.EgressAuditRecord;
import dev.paddock.core.egress.SecretMetadata;
import java.time.Instant;
import java.util.List;

/** Wire shapes of the egress and vault endpoints. No value or placeholder of a secret ever appears in them. */
final class EgressViews {
    private EgressViews() {}

    record EgressRecord(String type, String id, String sandboxId, Instant time, String host, String resolvedAddress, int port,
                        String method, String url, String mode, String decision, String rule, int status, long bytesUp,
                        long bytesDown, long durationMs, List<String> injectedSecrets, List<String> leakedPlaceholderSecrets) {
        static EgressRecord of(EgressAuditEntry e) {
            EgressAuditRecord r = e.record();
            return new EgressRecord("egress_record", e.id(), r.sandboxId(), r.time(), r.host(), r.resolvedAddress(), r.port(),
                    r.method(), r.url(), r.mode(), r.decision().wireName(), r.rule(), r.status(), r.bytesUp(), r.bytesDown(),
                    r.duration() == null ? 0 : r.duration().toMillis(), r.injectedSecrets(), r.leakedPlaceholderSecrets());
        }
    }

    record Secret(String type, String id, String name, Instant createdAt, Instant updatedAt, int version) {
        static Secret of(SecretMetadata m) {
            return new Secret("secret", m.id(), m.name(), m.createdAt(), m.updatedAt(), m.version());
        }
    }

    /** {@code POST /v1/secrets} and {@code POST /v1/secrets/{id}/rotate}. */
    record SecretBody(String name, String value) {}
}
