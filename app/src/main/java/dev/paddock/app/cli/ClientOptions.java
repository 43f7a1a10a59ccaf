package dev.paddock.app.cli;

import dev.paddock.app.client.PaddockClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * Where the server is and which key to use. Each comes from the flag, then the environment
 * ({@code PADDOCK_URL}, {@code PADDOCK_API_KEY}), then the local data directory ({@code admin.key} and the URL
 * that {@code paddock serve} wrote there), then the default {@code http://127.0.0.1:7070}.
 */
public final class ClientOptions {
    public static final String DEFAULT_URL = "http://127.0.0.1:7070";
    public static final String URL_FILE = "paddock.url";
    public static final String ADMIN_KEY_FILE = "admin.key";

    @Option(names = "--url", paramLabel = "URL", description = "Paddock server URL (default: $PADDOCK_URL, the local server, " + DEFAULT_URL + ")")
    String url;

    @Option(names = "--api-key", paramLabel = "KEY", description = "API key (default: $PADDOCK_API_KEY, then <data-dir>/admin.key)")
    String apiKey;

    @Option(names = "--data-dir", paramLabel = "DIR", description = "local data directory to find admin.key in (default: $PADDOCK_DATA_DIR or ~/.paddock)")
    Path dataDir;

    @Option(names = "--json", description = "print the API's JSON answer as it is, for scripts")
    boolean json;

    @Option(names = "--http-timeout", paramLabel = "DURATION", description = "how long to wait for the server's answer, "
            + "and the longest silence in a stream (default: $PADDOCK_HTTP_TIMEOUT, else 2m)")
    String httpTimeout;

    /** Where the key came from, for a helpful hint when the server refuses it. */
    String keySource;

    public boolean json() { return json; }

    public PaddockClient client(CliContext ctx) {
        return new PaddockClient(resolveUrl(ctx), resolveKey(ctx), resolveTimeout(ctx));
    }

    Duration resolveTimeout(CliContext ctx) {
        String t = httpTimeout != null ? httpTimeout : ctx.env("PADDOCK_HTTP_TIMEOUT");
        if (t == null) return PaddockClient.DEFAULT_ANSWER_TIMEOUT;
        try {
            return Units.duration(t);
        } catch (IllegalArgumentException e) {
            throw CliException.usage((httpTimeout != null ? "--http-timeout: " : "PADDOCK_HTTP_TIMEOUT: ") + e.getMessage());
        }
    }

    String resolveUrl(CliContext ctx) {
        String u = url != null ? url : ctx.env("PADDOCK_URL");
        if (u == null) u = readSmallFile(dataDir(ctx).resolve(URL_FILE));
        if (u == null) u = DEFAULT_URL;
        u = u.trim();
        if (!u.startsWith("http://") && !u.startsWith("https://")) {
            throw CliException.usage("server URL '" + u + "' must start with http:// or https://");
        }
        return u;
    }

    String resolveKey(CliContext ctx) {
        if (apiKey != null) {
            keySource = "--api-key";
            return apiKey.trim();
        }
        String env = ctx.env("PADDOCK_API_KEY");
        if (env != null) {
            keySource = "PADDOCK_API_KEY";
            return env.trim();
        }
        Path file = dataDir(ctx).resolve(ADMIN_KEY_FILE);
        String fromFile = readSmallFile(file);
        if (fromFile != null) {
            keySource = file.toString();
            return fromFile.trim();
        }
        keySource = null;
        return null;
    }

    public boolean hasKey() { return keySource != null; }

    /** A hint for a 401: which key was sent, or how to give one. */
    public String missingKeyHint(CliContext ctx) {
        if (keySource == null) {
            return "no API key found: pass --api-key, set PADDOCK_API_KEY, or run where "
                    + dataDir(ctx).resolve(ADMIN_KEY_FILE) + " is readable";
        }
        return "the key from " + keySource + " was refused";
    }

    /** The local data directory: --data-dir, else $PADDOCK_DATA_DIR, else ~/.paddock. */
    public Path localDataDir(CliContext ctx) {
        return dataDir(ctx).toAbsolutePath().normalize();
    }

    private Path dataDir(CliContext ctx) {
        return dataDir != null ? dataDir : ctx.defaultDataDir();
    }

    private static String readSmallFile(Path p) {
        try {
            if (!Files.isRegularFile(p) || Files.size(p) > 4096) return null;
            String s = Files.readString(p, StandardCharsets.UTF_8).trim();
            return s.isEmpty() ? null : s;
        } catch (IOException | SecurityException e) {
            return null; // unreadable (not ours): behave as if absent
        }
    }
}
