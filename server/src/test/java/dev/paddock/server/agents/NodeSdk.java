package dev.paddock.server.agents;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The official TypeScript SDK, installed with npm into a directory the tests own ({@code target/node-sdk}, or
 * {@code PADDOCK_NODE_SDK_DIR}), with the TypeScript compiler. Installs them on first use; needs node and npm on the
 * PATH and the npm registry.
 */
final class NodeSdk {
    static final String PACKAGE = "@anthropic-ai/sdk@1.14.0";
    /** The compiler that checks events against the SDK's declared types (SdkTypes). */
    static final String TYPESCRIPT = "typescript@5.9.3";

    private NodeSdk() {}

    static synchronized Path dir() throws IOException, InterruptedException {
        String configured = System.getenv("PADDOCK_NODE_SDK_DIR");
        Path dir = configured == null || configured.isBlank() ? Path.of("target", "node-sdk").toAbsolutePath() : Path.of(configured);
        if (Files.isDirectory(dir.resolve("node_modules/@anthropic-ai/sdk")) && Files.isDirectory(dir.resolve("node_modules/typescript"))) return dir;
        Files.createDirectories(dir);
        if (!Files.exists(dir.resolve("package.json"))) {
            Files.writeString(dir.resolve("package.json"), "{\"name\":\"paddock-node-sdk\",\"private\":true,\"type\":\"module\"}");
        }
        Process npm = new ProcessBuilder("npm", "install", "--no-audit", "--no-fund", "--loglevel=error", PACKAGE, TYPESCRIPT)
                .directory(dir.toFile()).redirectErrorStream(true).redirectOutput(dir.resolve("npm-install.log").toFile()).start();
        if (!npm.waitFor(5, TimeUnit.MINUTES) || npm.exitValue() != 0) {
            npm.destroyForcibly();
            throw new IllegalStateException("npm install " + PACKAGE + " " + TYPESCRIPT + " failed; see " + dir.resolve("npm-install.log"));
        }
        return dir;
    }
}
