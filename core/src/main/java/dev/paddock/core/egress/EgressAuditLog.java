package dev.paddock.core.egress;

import dev.paddock.core.store.Page;
import dev.paddock.core.store.PageRequest;

/**
 * An {@link EgressAuditSink} that keeps records after the sandbox ended and reads them back, oldest first. Callers
 * check that the sandbox belongs to the caller's tenant before listing: the log itself is keyed by sandbox only.
 */
public interface EgressAuditLog extends EgressAuditSink {
    /** One page of the sandbox's records in the order they were written; {@code after_id} continues a stream. */
    Page<EgressAuditEntry> list(String sandboxId, PageRequest page);
}
