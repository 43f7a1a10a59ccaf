package dev.paddock.bench;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.SecureRandom;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Several servers as one: throughput of sandbox creates and execs with 1, 2 and 3 `paddock serve` nodes on one
 * PostgreSQL, beside one server on SQLite, in the same run. Clients spread their requests over the servers round-robin,
 * so most calls for a sandbox reach a node that does not hold it and are forwarded. Then the fan-out of a session's
 * events: a message posted to one node, followed on every node. Needs {@code PADDOCK_TEST_POSTGRES_URL} (scripts/bench
 * starts a throwaway cluster). Writes its section of docs/BENCHMARKS.md. Run with {@code scripts/bench NodesBench}.
 */
public final class NodesBench {
    private static final int CLIENTS = 6;
    private static final int EXECS_PER_SANDBOX = 4;
    private static final Duration RUN = Duration.ofSeconds(20);
    private static final int MESSAGES = 20;
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final Pattern ID = Pattern.compile("\"id\"\\s*:\\s*\"([a-z]+_[0-9a-z]+)\"");

    private final Path repo;
    private final String postgres;
    private final List<String> rows = new ArrayList<>();
    private final List<String> fanOut = new ArrayList<>();

    private NodesBench(Path repo, String postgres) {
        this.repo = repo;
        this.postgres = postgres;
    }

    public static void main(String[] args) {
        BenchReport.runAndExit(() -> {
            Path repo = Path.of(args.length > 0 ? args[0] : ".").toAbsolutePath().normalize();
            String postgres = System.getenv("PADDOCK_TEST_POSTGRES_URL");
            if (postgres == null || postgres.isBlank()) throw new IllegalStateException("NodesBench needs PADDOCK_TEST_POSTGRES_URL (scripts/bench starts one)");
            NodesBench bench = new NodesBench(repo, postgres);
            String report = bench.run();
            BenchReport.writeSection(repo, "nodes", report);
            System.out.println(report);
        });
    }

    private String run() throws Exception {
        rows.add(throughput("SQLite, 1 server", null, 1));
        for (int n = 1; n <= 3; n++) rows.add(throughput("PostgreSQL, " + n + (n == 1 ? " server" : " servers"), freshDatabase("bench_nodes_" + n), n));
        return report();
    }

    /** Starts {@code n} servers (nodes when {@code storeUrl} is set), drives the load, stops them. */
    private String throughput(String label, String storeUrl, int n) throws Exception {
        List<BenchServer> servers = start(storeUrl, n);
        try {
            Load load = drive(servers);
            if (storeUrl != null && n > 1) fanOut.add(fanOut(servers));
            return String.format(Locale.ROOT, "| %s | %.1f | %.1f | %.1f | %.1f | %d |", label, load.creates / seconds(), load.execs / seconds(),
                    BenchReport.median(load.execMs()), BenchReport.percentile(load.execMs(), 0.9), load.errors.get());
        } finally {
            for (BenchServer s : servers) {
                try {
                    s.deleteAll();
                } catch (Exception e) {
                    // the next server lists what is left
                }
            }
            for (BenchServer s : servers) s.close();
        }
    }

    private List<BenchServer> start(String storeUrl, int n) throws Exception {
        String key = "pdk_bench_" + Long.toHexString(System.nanoTime());
        String secret = HexFormat.of().formatHex(new SecureRandom().generateSeed(24));
        List<BenchServer> servers = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Map<String, String> settings = new HashMap<>(Map.of("warm_pool_size", "0", "model_base_url", "http://127.0.0.1:9",
                    "model_retry_budget", "1s"));
            if (storeUrl != null) {
                settings.put("store_url", storeUrl);
                settings.put("cluster_secret", secret);
            }
            servers.add(BenchServer.start(repo, settings, key));
        }
        return servers;
    }

    private record Load(long creates, long execs, List<Double> latencies, AtomicLong errors) {
        double[] execMs() { return latencies.stream().mapToDouble(Double::doubleValue).toArray(); }
    }

    /** {@link #CLIENTS} clients for {@link #RUN}: create, {@link #EXECS_PER_SANDBOX} execs, delete, each call to the next server. */
    private static Load drive(List<BenchServer> servers) throws Exception {
        AtomicLong creates = new AtomicLong();
        AtomicLong execs = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        List<Double> latencies = Collections.synchronizedList(new ArrayList<>());
        long end = System.nanoTime() + RUN.toNanos();
        ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
        List<Future<?>> clients = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
            int first = c;
            clients.add(pool.submit(() -> {
                int next = first;
                while (System.nanoTime() < end) {
                    try {
                        String id = servers.get(next++ % servers.size()).create("{}");
                        creates.incrementAndGet();
                        for (int e = 0; e < EXECS_PER_SANDBOX; e++) {
                            long t0 = System.nanoTime();
                            servers.get(next++ % servers.size()).execTrue(id);
                            latencies.add((System.nanoTime() - t0) / 1e6);
                            execs.incrementAndGet();
                        }
                        servers.get(next++ % servers.size()).delete(id);
                    } catch (Exception e) {
                        errors.incrementAndGet();
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : clients) f.get();
        pool.shutdown();
        return new Load(creates.get(), execs.get(), latencies, errors);
    }

    /** Milliseconds from posting a session's user.message on the first node to its arrival on each node's event stream. */
    private String fanOut(List<BenchServer> servers) throws Exception {
        BenchServer first = servers.getFirst();
        String agent = id(first.post("/v1/agents", "{\"name\":\"bench\",\"model\":\"claude-sonnet-4-5\"}"));
        String env = id(first.post("/v1/environments", "{\"name\":\"bench-" + System.nanoTime() + "\",\"config\":{\"type\":\"cloud\",\"networking\":{\"type\":\"limited\"}}}"));
        String session = id(first.post("/v1/sessions", "{\"agent\":\"" + agent + "\",\"environment_id\":\"" + env + "\"}"));
        Map<String, Long> arrivals = new ConcurrentHashMap<>();
        List<Thread> followers = new ArrayList<>();
        CountDownLatch open = new CountDownLatch(servers.size());
        List<double[]> delays = new ArrayList<>();
        for (int i = 0; i < servers.size(); i++) {
            int node = i;
            delays.add(new double[MESSAGES]);
            followers.add(Thread.ofVirtual().start(() -> follow(servers.get(node), session, node, arrivals, open)));
        }
        if (!open.await(30, TimeUnit.SECONDS)) throw new IllegalStateException("the event streams did not open");
        for (int m = 0; m < MESSAGES; m++) {
            String marker = "fanout-" + m + "-" + System.nanoTime();
            long sent = System.nanoTime();
            first.post("/v1/sessions/" + session + "/events", "{\"events\":[{\"type\":\"user.message\",\"content\":[{\"type\":\"text\",\"text\":\"" + marker + "\"}]}]}");
            long deadline = sent + TimeUnit.SECONDS.toNanos(10);
            for (int i = 0; i < servers.size(); i++) {
                Long at;
                while ((at = arrivals.get(i + ":" + marker)) == null && System.nanoTime() < deadline) Thread.sleep(1);
                delays.get(i)[m] = at == null ? Double.NaN : (at - sent) / 1e6;
            }
        }
        followers.forEach(Thread::interrupt);
        StringBuilder row = new StringBuilder("| " + servers.size() + " |");
        for (double[] d : delays) row.append(String.format(Locale.ROOT, " %.1f / %.1f |", BenchReport.median(d), BenchReport.percentile(d, 0.9)));
        for (int i = servers.size(); i < 3; i++) row.append(" – |");
        return row.toString();
    }

    /** Reads one node's event stream of the session and notes when each marker arrives. */
    private static void follow(BenchServer server, String session, int node, Map<String, Long> arrivals, CountDownLatch open) {
        Pattern marker = Pattern.compile("fanout-\\d+-\\d+");
        try {
            HttpResponse<InputStream> r = HTTP.send(HttpRequest.newBuilder(URI.create(server.url() + "/v1/sessions/" + session + "/events/stream"))
                    .header("x-api-key", server.key()).header("accept", "text/event-stream").build(), HttpResponse.BodyHandlers.ofInputStream());
            open.countDown();
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
                for (String line; (line = lines.readLine()) != null; ) {
                    if (!line.startsWith("data:") || !line.contains("user.message")) continue;
                    Matcher m = marker.matcher(line);
                    if (m.find()) arrivals.putIfAbsent(node + ":" + m.group(), System.nanoTime());
                }
            }
        } catch (Exception e) {
            // the run is over (interrupted) or the stream broke: missing arrivals show as NaN
        }
    }

    /** A new empty database on the cluster of {@link #postgres}, as a URL the servers take for {@code store_url}. */
    private String freshDatabase(String name) throws Exception {
        URI uri = URI.create(postgres);
        String[] user = uri.getUserInfo().split(":", 2);
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://" + uri.getHost() + ":" + uri.getPort() + uri.getPath(), user[0], user[1]);
             Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
            st.execute("CREATE DATABASE " + name);
        }
        return "postgresql://" + uri.getUserInfo() + "@" + uri.getHost() + ":" + uri.getPort() + "/" + name;
    }

    private static String id(String body) {
        Matcher m = ID.matcher(body);
        if (!m.find()) throw new IllegalStateException("no id in " + body);
        return m.group(1);
    }

    private static double seconds() {
        return RUN.toMillis() / 1000.0;
    }

    private String report() throws Exception {
        StringBuilder sb = new StringBuilder("## Several servers on one PostgreSQL (NodesBench)\n\n");
        sb.append(BenchReport.machine()).append(". ").append(CLIENTS).append(" clients for ").append(RUN.toSeconds())
                .append(" s each: create a sandbox, ").append(EXECS_PER_SANDBOX).append(" × exec `true`, delete, every call to the next")
                .append(" server round-robin (so with several servers most calls are forwarded to the node that holds the sandbox).")
                .append(" Every server is a whole `paddock serve` process on this one machine, bubblewrap, no warm pool.\n\n");
        sb.append("| store, servers | creates/s | execs/s | exec median ms | exec p90 ms | errors |\n|---|---:|---:|---:|---:|---:|\n");
        rows.forEach(r -> sb.append(r).append('\n'));
        sb.append("\nSession event fan-out: a `user.message` posted to the first node, ms until it arrives on each node's")
                .append(" `/v1/sessions/{id}/events/stream` (median / p90 of ").append(MESSAGES).append(").\n\n");
        sb.append("| servers | node 1 (posted to) | node 2 | node 3 |\n|---:|---:|---:|---:|\n");
        fanOut.forEach(r -> sb.append(r).append('\n'));
        sb.append("\nAll servers share this machine's cores, so more servers here add forwarding hops, not capacity: the figures")
                .append(" show what a node costs, and a cluster scales only with machines. A follower on another node reads the")
                .append(" store (at once after a local append, else every 250 ms), which is the fan-out delay.\n");
        return sb.toString();
    }
}
