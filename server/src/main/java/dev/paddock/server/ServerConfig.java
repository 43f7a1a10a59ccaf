package dev.paddock.server;

import java.time.Duration;

/**
 * HTTP server settings. {@code host} defaults to loopback: exposing Paddock beyond the machine is an explicit
 * choice. {@code port} 0 binds a free port (tests). {@code maxJsonBytes} caps JSON request bodies, which are read
 * into memory; {@code maxUploadBytes} caps streamed uploads (file content, tar archives), which never are.
 * {@code consoleResource} is the classpath folder served at {@code /} (the web console); it may be absent.
 * {@code idleTimeout} is how long a connection may stay silent while the server waits on it, e.g. for the rest of
 * a request body (a body that stops arriving answers 408 then); uploads that keep sending are never cut.
 */
public record ServerConfig(String host, int port, long maxJsonBytes, long maxUploadBytes, String consoleResource, String version,
                           Duration idleTimeout) {
    public static final String DEFAULT_HOST = "127.0.0.1";
    public static final int DEFAULT_PORT = 7070;
    public static final long DEFAULT_MAX_JSON_BYTES = 1L << 20;
    public static final long DEFAULT_MAX_UPLOAD_BYTES = 1L << 30;
    public static final String DEFAULT_CONSOLE = "/console";
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(30);

    public ServerConfig {
        if (host == null || host.isBlank()) host = DEFAULT_HOST;
        if (port < 0 || port > 65535) throw new IllegalArgumentException("port must be between 0 and 65535, got " + port);
        if (maxJsonBytes <= 0) maxJsonBytes = DEFAULT_MAX_JSON_BYTES;
        if (maxUploadBytes <= 0) maxUploadBytes = DEFAULT_MAX_UPLOAD_BYTES;
        if (consoleResource == null || consoleResource.isBlank()) consoleResource = DEFAULT_CONSOLE;
        if (version == null || version.isBlank()) version = defaultVersion();
        if (idleTimeout == null || idleTimeout.isNegative() || idleTimeout.isZero()) idleTimeout = DEFAULT_IDLE_TIMEOUT;
    }

    public static ServerConfig defaults() {
        return new ServerConfig(DEFAULT_HOST, DEFAULT_PORT, DEFAULT_MAX_JSON_BYTES, DEFAULT_MAX_UPLOAD_BYTES, DEFAULT_CONSOLE, null, DEFAULT_IDLE_TIMEOUT);
    }

    public ServerConfig withHost(String h) {
        return new ServerConfig(h, port, maxJsonBytes, maxUploadBytes, consoleResource, version, idleTimeout);
    }

    public ServerConfig withPort(int p) {
        return new ServerConfig(host, p, maxJsonBytes, maxUploadBytes, consoleResource, version, idleTimeout);
    }

    public ServerConfig withLimits(long json, long upload) {
        return new ServerConfig(host, port, json, upload, consoleResource, version, idleTimeout);
    }

    public ServerConfig withConsoleResource(String folder) {
        return new ServerConfig(host, port, maxJsonBytes, maxUploadBytes, folder, version, idleTimeout);
    }

    public ServerConfig withVersion(String v) {
        return new ServerConfig(host, port, maxJsonBytes, maxUploadBytes, consoleResource, v, idleTimeout);
    }

    public ServerConfig withIdleTimeout(Duration d) {
        return new ServerConfig(host, port, maxJsonBytes, maxUploadBytes, consoleResource, version, d);
    }

    private static String defaultVersion() {
        String v = ServerConfig.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }
}
