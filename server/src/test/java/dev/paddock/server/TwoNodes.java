package dev.paddock.server;

import dev.paddock.access.ApiKeys;
import dev.paddock.core.nodes.NodeCapacity;
import dev.paddock.core.nodes.NodeRecord;
import dev.paddock.core.nodes.NodeState;
import dev.paddock.driver.subprocess.SubprocessDriver;
import dev.paddock.host.HostConfig;
import dev.paddock.host.HostOwner;
import dev.paddock.host.RuntimeHost;
import dev.paddock.host.ports.PortForwards;
import dev.paddock.host.terminal.TerminalSessions;
import dev.paddock.server.routes.TerminalsAndPorts;
import dev.paddock.store.JdbcStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Nodes of one cluster in this process, for the cluster tests: one real SQLite store, and per node a joined record
 * (label {@code zone}), a runtime host on the subprocess driver in its own data directory and an HTTP server on
 * loopback whose URL the store names. Closing stops them in reverse order and closes the store.
 */
final class TwoNodes implements AutoCloseable {
    final Path dir;
    final JdbcStore store;
    final ApiKeys keys;
    private final List<AutoCloseable> parts = new ArrayList<>();

    /** The server of one node, made from its started host. */
    @FunctionalInterface
    interface ServerOf {
        PaddockServer make(String nodeId, RuntimeHost host) throws Exception;
    }

    TwoNodes(String name) throws Exception {
        dir = Files.createTempDirectory(name);
        store = JdbcStore.openSqlite(dir.resolve("paddock.db"));
        keys = new ApiKeys(store.apiKeys(), Clock.systemUTC());
    }

    /** Joins node {@code id}, starts its host and its server; returns the started server. */
    PaddockServer node(String id, String zone, ServerOf serverOf) throws Exception {
        Instant now = Instant.now();
        Path data = Files.createDirectories(dir.resolve(id));
        NodeRecord joined = store.nodes().join(new NodeRecord(id, 0, "", List.of("subprocess"), Map.of("zone", zone),
                new NodeCapacity(1L << 30, 10_000, 0), NodeState.ACTIVE, now, now, now.plusSeconds(3600), data.resolve("checkpoints").toString()));
        RuntimeHost host = new RuntimeHost(HostConfig.defaults(data).withDefaultDriver("subprocess"), store,
                List.of(new SubprocessDriver(data)), null, Clock.systemUTC(), HostOwner.node(id, joined.epoch()));
        host.start();
        parts.add(host);
        PaddockServer server = serverOf.make(id, host);
        int port = server.start();
        parts.add(server::stop);
        store.nodes().setUrl(id, joined.epoch(), "http://127.0.0.1:" + port);
        return server;
    }

    /** Closed with the nodes, before the host it was made for. */
    <T extends AutoCloseable> T closeLater(T part) {
        parts.add(part);
        return part;
    }

    /** The terminal and port routes on {@code host}. */
    static TerminalsAndPorts terminalsAndPorts(RuntimeHost host) {
        return new TerminalsAndPorts(new TerminalSessions(host, Duration.ofMinutes(1), 64 * 1024, Clock.systemUTC()),
                new PortForwards(host, keyId -> false, Clock.systemUTC()));
    }

    @Override
    public void close() throws Exception {
        for (int i = parts.size() - 1; i >= 0; i--) parts.get(i).close();
        store.close();
    }
}
