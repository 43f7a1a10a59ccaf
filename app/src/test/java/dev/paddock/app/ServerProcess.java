package dev.paddock.app;

import static org.awaitility.Awaitility.await;

import dev.paddock.app.client.PaddockClient;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code paddock serve} as a child JVM on the test's own classpath (so it runs the code under test even before
 * the shaded jar is packaged), with the bwrap driver and a fixed admin key.
 */
final class ServerProcess {
    final Path dataDir;
    final String apiKey;
    final Path log;
    /** The {@code store_url} setting; null: SQLite in the data directory. */
    final String storeUrl;
    /** Further settings as environment variables (e.g. PADDOCK_NODE_LEASE). */
    final Map<String, String> env = new HashMap<>();
    /** How long a start may take before the test gives up on it. */
    Duration startTimeout = Duration.ofSeconds(30);
    private Process process;
    private String url;

    ServerProcess(Path dataDir, String apiKey) {
        this(dataDir, apiKey, null);
    }

    ServerProcess(Path dataDir, String apiKey, String storeUrl) {
        this.dataDir = dataDir;
        this.apiKey = apiKey;
        this.storeUrl = storeUrl;
        this.log = dataDir.resolveSibling(dataDir.getFileName() + ".log");
    }

    /** Starts the server and waits until it answers its health check. */
    PaddockClient start() throws IOException {
        Path urlFile = dataDir.resolve("paddock.url");
        Files.deleteIfExists(urlFile); // a killed server leaves its URL behind
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(List.of(java, "--enable-native-access=ALL-UNNAMED", "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED", "-cp", classPath(),
                "dev.paddock.app.Main", "serve", "--data-dir", dataDir.toString(), "--port", "0", "--driver", "bwrap"));
        pb.environment().put("PADDOCK_API_KEY", apiKey);
        if (storeUrl != null) pb.environment().put("PADDOCK_STORE_URL", storeUrl);
        pb.environment().put("PADDOCK_WARM_POOL_SIZE", "0"); // the crash checks count backend sandboxes: no pooled extras
        pb.environment().putAll(env);
        pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        process = pb.start();
        await().atMost(startTimeout).pollInterval(Duration.ofMillis(50)).until(() -> {
            if (!process.isAlive()) throw new IllegalStateException("paddock serve exited with " + process.exitValue() + ":\n" + logTail());
            return Files.exists(urlFile);
        });
        url = Files.readString(urlFile).trim();
        PaddockClient client = new PaddockClient(url, apiKey);
        client.get("/v1/health");
        return client;
    }

    boolean alive() {
        return process != null && process.isAlive();
    }

    /** The server's process id, to signal it. */
    long pid() {
        return process.pid();
    }

    /** SIGKILL: no shutdown hook runs, nothing is flushed or closed. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    /** SIGTERM: the normal stop. */
    void stop() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroy();
            process.waitFor();
        }
    }

    String logTail() {
        try {
            String all = Files.readString(log, StandardCharsets.UTF_8);
            return all.substring(Math.max(0, all.length() - 4000));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** Surefire runs tests from a manifest-only jar; the real test classpath is in its own property. */
    private static String classPath() {
        String cp = System.getProperty("surefire.test.class.path");
        if (cp == null || cp.isBlank()) cp = System.getProperty("java.class.path");
        return String.join(File.pathSeparator, List.of(cp.split(File.pathSeparator)));
    }
}
