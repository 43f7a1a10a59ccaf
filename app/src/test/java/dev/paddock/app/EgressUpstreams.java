package dev.paddock.app;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.paddock.egress.tls.CertificateAuthority;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * Real upstream servers on the host's loopback, standing in for the internet: plain HTTP (also a tiny PyPI "simple"
 * index with one wheel) and HTTPS with a certificate for {@code localhost} from a test CA. Every request is recorded
 * with its headers.
 */
final class EgressUpstreams implements AutoCloseable {
    record Seen(String scheme, String path, Map<String, List<String>> headers) {
        String header(String name) {
            for (var e : headers.entrySet()) if (e.getKey().equalsIgnoreCase(name)) return e.getValue().getFirst();
            return null;
        }
    }

    static final String WHEEL = "tinypkg-0.1-py3-none-any.whl";

    final CertificateAuthority testCa = CertificateAuthority.ephemeral("Paddock test upstream CA");
    final List<Seen> seen = new CopyOnWriteArrayList<>();
    private final HttpServer http;
    private final HttpsServer https;
    private final byte[] wheel = wheel();

    EgressUpstreams() throws IOException {
        http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        http.createContext("/", ex -> handle("http", ex));
        http.start();
        https = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        https.setHttpsConfigurator(new HttpsConfigurator(testCa.serverContext("localhost")));
        https.createContext("/", ex -> handle("https", ex));
        https.start();
    }

    int httpPort() { return http.getAddress().getPort(); }

    int httpsPort() { return https.getAddress().getPort(); }

    Seen last(String path) {
        for (int i = seen.size() - 1; i >= 0; i--) if (seen.get(i).path().equals(path)) return seen.get(i);
        throw new AssertionError("no request for " + path + " reached the upstream; seen: " + seen.stream().map(Seen::path).toList());
    }

    boolean reached(String path) {
        return seen.stream().anyMatch(s -> s.path().equals(path));
    }

    Path writeCa(Path dir) throws IOException {
        Path f = dir.resolve("upstream-ca.pem");
        Files.writeString(f, testCa.certificatePem());
        return f;
    }

    private void handle(String scheme, HttpExchange ex) throws IOException {
        String path = ex.getRequestURI().getPath();
        seen.add(new Seen(scheme, path, Map.copyOf(ex.getRequestHeaders())));
        byte[] body;
        String type = "text/plain";
        if (path.equals("/simple/") ) {
            body = "<html><body><a href=\"/simple/tinypkg/\">tinypkg</a></body></html>".getBytes(StandardCharsets.UTF_8);
            type = "text/html";
        } else if (path.equals("/simple/tinypkg/")) {
            body = ("<html><body><a href=\"/files/" + WHEEL + "\">" + WHEEL + "</a></body></html>").getBytes(StandardCharsets.UTF_8);
            type = "text/html";
        } else if (path.equals("/files/" + WHEEL)) {
            body = wheel;
            type = "application/octet-stream";
        } else {
            body = ("ok " + scheme + " " + path + "\n").getBytes(StandardCharsets.UTF_8);
        }
        ex.getResponseHeaders().set("Content-Type", type);
        ex.sendResponseHeaders(200, body.length);
        ex.getResponseBody().write(body);
        ex.close();
    }

    /** A minimal valid wheel: one module, METADATA, WHEEL and RECORD. */
    private static byte[] wheel() {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (ZipOutputStream zip = new ZipOutputStream(bytes)) {
                put(zip, "tinypkg/__init__.py", "VALUE = 42\n");
                put(zip, "tinypkg-0.1.dist-info/METADATA", "Metadata-Version: 2.1\nName: tinypkg\nVersion: 0.1\n");
                put(zip, "tinypkg-0.1.dist-info/WHEEL", "Wheel-Version: 1.0\nGenerator: paddock-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n");
                put(zip, "tinypkg-0.1.dist-info/RECORD", "tinypkg/__init__.py,,\ntinypkg-0.1.dist-info/METADATA,,\ntinypkg-0.1.dist-info/WHEEL,,\ntinypkg-0.1.dist-info/RECORD,,\n");
            }
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void put(ZipOutputStream zip, String name, String text) throws IOException {
        zip.putNextEntry(new ZipEntry(name));
        zip.write(text.getBytes(StandardCharsets.UTF_8));
        zip.closeEntry();
    }

    @Override
    public void close() {
        http.stop(0);
        https.stop(0);
    }
}
