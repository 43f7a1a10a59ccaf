package dev.paddock.store;

import dev.paddock.core.Ids;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.SandboxState;
import dev.paddock.core.store.SandboxRecord;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/** Builders for records used across the store tests. */
final class TestData {
    static final Fence FENCE = new Fence("host-a", 1);

    private TestData() {}

    static Instant now() {
        return Instant.now().truncatedTo(ChronoUnit.MICROS);
    }

    static SandboxRecord sandbox(String tenant) {
        return sandbox(Ids.newId("sbx"), tenant, SandboxState.CREATING);
    }

    static SandboxRecord sandbox(String id, String tenant, SandboxState state) {
        Instant at = now();
        return new SandboxRecord(id, tenant, "bwrap", state, SandboxSpec.defaults(id, tenant), FENCE, null,
                null, null, null, at, at, null, null);
    }
}
