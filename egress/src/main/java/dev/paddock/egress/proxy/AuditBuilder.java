package dev.paddock.egress.proxy;

import dev.paddock.core.egress.EgressAuditRecord;
import dev.paddock.core.egress.EgressAuditSink;
import dev.paddock.core.egress.EgressDecision;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Collects the facts of one connection or request as they become known, then emits exactly one record. */
final class AuditBuilder {
    private static final Logger log = LoggerFactory.getLogger(AuditBuilder.class);

    private final String sandboxId;
    private final Instant time = Instant.now();
    private final long startNanos = System.nanoTime();
    String host = "";
    String resolvedAddress;
    int port;
    String method;
    String url;
    String mode = "unknown";
    EgressDecision decision = EgressDecision.ERROR;
    String rule = "incomplete";
    int status;
    final Meter meter = new Meter();
    final List<String> injected = new ArrayList<>();
    final List<String> leaked = new ArrayList<>();
    private boolean emitted;

    AuditBuilder(String sandboxId) { this.sandboxId = sandboxId; }

    AuditBuilder outcome(EgressDecision decision, String rule) {
        this.decision = decision;
        this.rule = rule;
        return this;
    }

    void emit(EgressAuditSink sink) {
        if (emitted) return;
        emitted = true;
        var record = new EgressAuditRecord(sandboxId, time, host, resolvedAddress, port, method, url, mode, decision, rule,
                status, meter.up(), meter.down(), Duration.ofNanos(System.nanoTime() - startNanos), injected, leaked);
        try {
            sink.record(record);
        } catch (RuntimeException e) {
            log.warn("egress audit sink failed for sandbox {}: {}", sandboxId, e.toString());
        }
    }
}
