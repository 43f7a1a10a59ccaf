package dev.paddock.bench;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real Paddock server for a harness: {@code bin/paddock serve} from the built jar on a temp data dir and a free
 * port, with settings given as {@code PADDOCK_*} variables, and the REST calls the harnesses time.
 */
final class BenchServer implements AutoCloseable {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final Pattern ID = Pattern.compile("\"id\"\\s*:\\s*\"((?:sbx|cp)_[0-9a-z]+)\"");
    private static final Pattern EXIT = Pattern.compile("\"exit_code\"\\s*:\\s*(-?\\d+)");

    final Path dataDir;
    private final Process process;
    private final String base;
    private final String key;

    private BenchServer(Path dataDir, Process process, String base, String key) {
        this.dataDir = dataDir;
        this.process = process;
        this.base = base;
        this.key = key;
    }

    /** Starts a server with {@code settings} (keys as in {@code paddock serve}, e.g. {@code driver}) and waits until it answers. */
    static BenchServer start(Path repo, Map<String, String> settings) throws Exception {
        return start(repo, settings, "pdk_bench_" + Long.toHexString(System.nanoTime()) + Long.toHexString(Double.doubleToLongBits(Math.random())));
    }

    /** As {@link #start(Path, Map)}, with a given admin key: the nodes of one cluster share theirs. */
    static BenchServer start(Path repo, Map<String, String> settings, String key) throws Exception {
        Path dataDir = Files.createTempDirectory(Path.of("/tmp"), "pbench");
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        ProcessBuilder pb = new ProcessBuilder(repo.resolve("bin/paddock").toString(), "serve", "--port", String.valueOf(port),
                "--data-dir", dataDir.toString());
        pb.environment().put("PADDOCK_API_KEY", key);
        settings.forEach((k, v) -> pb.environment().put("PADDOCK_" + k.toUpperCase(Locale.ROOT), v));
        pb.redirectErrorStream(true).redirectOutput(dataDir.resolve("server.log").toFile());
        BenchServer server = new BenchServer(dataDir, pb.start(), "http://127.0.0.1:" + port, key);
        try {
            server.awaitHealthy();
        } catch (Exception e) {
            server.close();
            throw e;
        }
        return server;
    }

    /** The server's base URL, e.g. {@code http://127.0.0.1:40123}. */
    String url() { return base; }

    /** The server's process id (bin/paddock execs the JVM). */
    long pid() { return process.pid(); }

    /** The admin key the server was started with. */
    String key() { return key; }

    String create(String request) throws Exception {
        return idIn(post("/v1/sandboxes", request));
    }

    void execTrue(String id) throws Exception {
        String body = post("/v1/sandboxes/" + id + "/exec", "{\"argv\":[\"true\"]}");
        Matcher m = EXIT.matcher(body);
        if (!m.find() || !m.group(1).equals("0")) throw new IllegalStateException("exec answered " + body);
    }

    void delete(String id) throws Exception {
        send(HttpRequest.newBuilder(URI.create(base + "/v1/sandboxes/" + id)).DELETE());
    }

    String get(String path) throws Exception {
        return send(HttpRequest.newBuilder(URI.create(base + path)).GET());
    }

    String post(String path, String json) throws Exception {
        return send(HttpRequest.newBuilder(URI.create(base + path)).header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    static String idIn(String body) {
        Matcher m = ID.matcher(body);
        if (!m.find()) throw new IllegalStateException("no id in " + body);
        return m.group(1);
    }

    /** Deletes every sandbox the server still has (the harness's own), so none outlives the run. */
    void deleteAll() throws Exception {
        Matcher m = ID.matcher(get("/v1/sandboxes?limit=1000"));
        while (m.find()) delete(m.group(1));
    }

    private String send(HttpRequest.Builder b) throws Exception {
        HttpResponse<String> r = HTTP.send(b.header("x-api-key", key).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() >= 300) throw new IllegalStateException(r.statusCode() + " " + r.body());
        return r.body();
    }

    private void awaitHealthy() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180); // a start on a busy host takes a while
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) throw new IllegalStateException("server exited with " + process.exitValue() + "; see " + dataDir.resolve("server.log"));
            try {
                HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/v1/health")).build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) return;
            } catch (IOException notYet) {
                // server still starting
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("server did not become healthy within 180 s");
    }

    @Override
    public void close() throws Exception {
        process.destroy();
        process.waitFor(30, TimeUnit.SECONDS);
    }
}
