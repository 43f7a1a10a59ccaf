package dev.paddock.core.egress;

/**
 * Receives one {@link EgressAuditRecord} per connection or request. Called from proxy threads, possibly
 * concurrently; must not block for long. A sink that throws loses that record but never breaks the proxy.
 */
@FunctionalInterface
public interface EgressAuditSink {
    void record(EgressAuditRecord record);
}
