package dev.paddock.app;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Package registries on the host's loopback, standing in for the public ones (which this workplace reaches only at
 * addresses the egress proxy rightly refuses): an npm registry with one package, {@code tinynpm} (its main exports
 * 42), and a flat apt repository with one package, {@code paddock-hello} (a {@code /usr/bin/paddock-hello} that
 * prints {@code hello-from-apt}), built here with tar and dpkg-deb.
 */
final class LocalPackageRepos implements AutoCloseable {
    private final HttpServer http;
    private final Map<String, byte[]> files = new ConcurrentHashMap<>();
    private final Path work;

    LocalPackageRepos() throws Exception {
        http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        http.createContext("/", this::handle);
        http.start();
        work = Files.createTempDirectory("paddock-repos");
        npm();
        apt();
    }

    int port() { return http.getAddress().getPort(); }

    String npmRegistry() { return "http://localhost:" + port() + "/npm/"; }

    /** A sources file naming the flat repository, trusted (it is unsigned: the test decides to trust it). */
    Path aptSources() throws IOException {
        Path f = work.resolve("local.list");
        Files.writeString(f, "deb [trusted=yes] http://localhost:" + port() + "/apt ./\n");
        return f;
    }

    private void npm() throws Exception {
        Path pkg = Files.createDirectories(work.resolve("npm/package"));
        Files.writeString(pkg.resolve("package.json"), "{\"name\":\"tinynpm\",\"version\":\"1.0.0\",\"main\":\"index.js\"}");
        Files.writeString(pkg.resolve("index.js"), "module.exports = 42;\n");
        byte[] tgz = run(work.resolve("npm"), "tar", "-czf", "-", "package");
        String tarball = "http://localhost:" + port() + "/npm/tinynpm/-/tinynpm-1.0.0.tgz";
        files.put("/npm/tinynpm/-/tinynpm-1.0.0.tgz", tgz);
        files.put("/npm/tinynpm", ("{\"name\":\"tinynpm\",\"dist-tags\":{\"latest\":\"1.0.0\"},\"versions\":{\"1.0.0\":{\"name\":\"tinynpm\","
                + "\"version\":\"1.0.0\",\"main\":\"index.js\",\"dist\":{\"tarball\":\"" + tarball + "\",\"shasum\":\"" + hex("SHA-1", tgz) + "\"}}}}")
                .getBytes(StandardCharsets.UTF_8));
    }

    private void apt() throws Exception {
        Path root = work.resolve("deb/paddock-hello");
        Files.createDirectories(root.resolve("DEBIAN"));
        Files.createDirectories(root.resolve("usr/bin"));
        Files.writeString(root.resolve("DEBIAN/control"), "Package: paddock-hello\nVersion: 1.0\nArchitecture: all\n"
                + "Maintainer: Paddock tests <tests@paddock.invalid>\nDescription: a test package\n");
        Path bin = root.resolve("usr/bin/paddock-hello");
        Files.writeString(bin, "#!/bin/sh\necho hello-from-apt\n");
        bin.toFile().setExecutable(true, false);
        run(work.resolve("deb"), "dpkg-deb", "--root-owner-group", "--build", "paddock-hello", "paddock-hello_1.0_all.deb");
        byte[] deb = Files.readAllBytes(work.resolve("deb/paddock-hello_1.0_all.deb"));
        files.put("/apt/paddock-hello_1.0_all.deb", deb);
        byte[] packages = (Files.readString(root.resolve("DEBIAN/control")).strip() + "\nFilename: ./paddock-hello_1.0_all.deb\nSize: "
                + deb.length + "\nSHA256: " + hex("SHA-256", deb) + "\n\n").getBytes(StandardCharsets.UTF_8);
        files.put("/apt/Packages", packages);
        files.put("/apt/Release", ("Origin: paddock-tests\nLabel: paddock-tests\nSuite: local\nCodename: local\nArchitectures: all amd64\n"
                + "SHA256:\n " + hex("SHA-256", packages) + " " + packages.length + " Packages\n").getBytes(StandardCharsets.UTF_8));
    }

    private void handle(HttpExchange ex) throws IOException {
        byte[] body = files.get(ex.getRequestURI().normalize().getPath()); // apt asks for a flat repository's "./Packages"
        if (body == null) {
            ex.sendResponseHeaders(404, -1);
        } else {
            ex.sendResponseHeaders(200, body.length);
            ex.getResponseBody().write(body);
        }
        ex.close();
    }

    private static byte[] run(Path dir, String... argv) throws Exception {
        Process p = new ProcessBuilder(argv).directory(dir.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (p.waitFor() != 0) throw new IllegalStateException(String.join(" ", argv) + " failed");
        return out;
    }

    private static String hex(String algorithm, byte[] data) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance(algorithm).digest(data));
    }

    @Override
    public void close() throws IOException {
        http.stop(0);
        new ProcessBuilder("rm", "-rf", work.toString()).start();
    }
}
