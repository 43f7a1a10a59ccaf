package dev.paddock.server.agents;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The official TypeScript SDK, installed with npm into a directory the tests own ({@code target/node-sdk}, or
 * {@code PADDOCK_NODE_SDK_DIR}). Installs it on first use; needs node and npm on the PATH and the npm registry.
 */
final class NodeSdk {
    static final String PACKAGE = "@anthropic-ai/sdk@1.14.0";

    private NodeSdk() {}

    static synchronized Path dir() throws IOException, InterruptedException {
        String configured = System.getenv("PADDOCK_NODE_SDK_DIR");
        Path dir = configured == null || configured.isBlank() ? Path.of("target", "node-sdk").toAbsolutePath() : Path.of(configured);
        if (Files.isDirectory(dir.resolve("node_modules/@anthropic-ai/sdk"))) return dir;
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("package.json"), "{\"name\":\"paddock-node-sdk\",\"private\":true,\"type\":\"module\"}");
        Process npm = new ProcessBuilder("npm", "install", "--no-audit", "--no-fund", "--loglevel=error", PACKAGE)
                .directory(dir.toFile()).redirectErrorStream(true).redirectOutput(dir.resolve("npm-install.log").toFile()).start();
        if (!npm.waitFor(5, TimeUnit.MINUTES) || npm.exitValue() != 0) {
            npm.destroyForcibly();
            throw new IllegalStateException("npm install " + PACKAGE + " failed; see " + dir.resolve("npm-install.log"));
        }
        return dir;
    }
}
