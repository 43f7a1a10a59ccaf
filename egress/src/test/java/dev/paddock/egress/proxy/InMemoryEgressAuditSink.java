package dev.paddock.egress.proxy;

import dev.paddock.core.egress.EgressAuditRecord;
import dev.paddock.core.egress.EgressAuditSink;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Test stand-in for the SQLite audit log: keeps every record in memory, in arrival order. */
public final class InMemoryEgressAuditSink implements EgressAuditSink {
    private final List<EgressAuditRecord> records = new CopyOnWriteArrayList<>();

    @Override
    public void record(EgressAuditRecord record) { records.add(record); }

    public List<EgressAuditRecord> records() { return List.copyOf(records); }

    public List<EgressAuditRecord> forSandbox(String sandboxId) {
        return records.stream().filter(r -> r.sandboxId().equals(sandboxId)).toList();
    }

    public void clear() { records.clear(); }
}
