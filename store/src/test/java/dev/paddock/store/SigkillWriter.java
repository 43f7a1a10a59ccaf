package dev.paddock.store;

import java.nio.file.Path;
import java.util.Map;

/** Child process of {@link DurabilityTest}: appends events forever, printing each id once the store acknowledged it. */
public final class SigkillWriter {
    static final String SANDBOX = "sandbox ";
    static final String ACK = "ack ";

    private SigkillWriter() {}

    public static void main(String[] args) {
        JdbcStore store = JdbcStore.openSqlite(Path.of(args[0]));
        var sandbox = TestData.sandbox("tenant-1");
        store.sandboxes().insert(sandbox);
        System.out.println(SANDBOX + sandbox.id());
        System.out.flush();
        for (long i = 0; ; i++) {
            String id = store.events().append(sandbox.id(), TestData.FENCE, "tick", Map.of("i", i)).id();
            System.out.println(ACK + id);
            System.out.flush();
        }
    }
}
