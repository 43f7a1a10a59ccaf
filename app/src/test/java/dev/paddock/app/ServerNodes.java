package dev.paddock.app;

import dev.paddock.driver.bwrap.BwrapConfig;
import dev.paddock.driver.bwrap.BwrapDriver;
import dev.paddock.store.StoreLocation;
import dev.paddock.store.testing.TestPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * {@code paddock serve} processes with the bwrap driver on one fresh PostgreSQL database: the nodes of one Paddock,
 * each on a data directory of its own under /tmp. Closing wakes a node the test froze, stops every node, destroys
 * the sandboxes a stopped or killed node leaves running (they outlive their server by design) and removes the data
 * directories and logs.
 */
final class ServerNodes implements AutoCloseable {
    final StoreLocation.Postgres db = TestPostgres.freshDatabase();
    final List<ServerProcess> servers = new ArrayList<>();
    private final String prefix;
    private final String apiKey;

    /** {@code prefix}: of the data directories' names, to tell the tests' leftovers apart. */
    ServerNodes(String prefix, String apiKey) {
        this.prefix = prefix;
        this.apiKey = apiKey;
    }

    /** A node not started yet, with {@code env} as further settings. */
    ServerProcess node(Map<String, String> env) throws IOException {
        ServerProcess s = new ServerProcess(Files.createTempDirectory(Path.of("/tmp"), prefix), apiKey, TestPostgres.storeUrl(db));
        s.startTimeout = Duration.ofSeconds(120); // several JVMs start together on a shared machine
        s.env.putAll(env);
        servers.add(s);
        return s;
    }

    /** The last lines of every node's log, for a failure's report. */
    String logTails() {
        StringBuilder all = new StringBuilder();
        for (ServerProcess s : servers) all.append("--- log of ").append(s.dataDir).append(":\n").append(s.logTail()).append('\n');
        return all.toString();
    }

    /**
     * Prints every node's log tail when a test fails, before its clean-up removes the logs: a test with
     * {@code @RegisterExtension} of this shows in its report what the servers said.
     */
    static TestExecutionExceptionHandler logsOnFailure(Supplier<ServerNodes> nodes) {
        return (context, failure) -> {
            ServerNodes cluster = nodes.get();
            if (cluster != null) System.err.println(cluster.logTails());
            throw failure;
        };
    }

    /** Stops one node (waking it first if the test froze it) and removes all it left behind. */
    void remove(ServerProcess s) throws Exception {
        if (s.alive()) new ProcessBuilder("kill", "-CONT", Long.toString(s.pid())).start().waitFor();
        s.stop();
        destroyLeftovers(s.dataDir);
        BwrapServer.removeDataDir(s.dataDir);
        Files.deleteIfExists(s.log);
        servers.remove(s);
    }

    @Override
    public void close() throws Exception {
        Exception failed = null;
        for (ServerProcess s : List.copyOf(servers)) {
            try {
                remove(s);
            } catch (Exception e) {
                if (failed == null) failed = e;
                else failed.addSuppressed(e);
            }
        }
        if (failed != null) throw failed;
    }

    private static void destroyLeftovers(Path dataDir) {
        try (BwrapDriver driver = new BwrapDriver(BwrapConfig.defaults(dataDir))) {
            driver.list().forEach(driver::destroy);
        } catch (Exception e) {
            System.err.println("could not destroy leftover sandboxes in " + dataDir + ": " + e.getMessage());
        }
    }
}
