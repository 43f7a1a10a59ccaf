package dev.paddock.egress.proxy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;

import dev.paddock.egress.tls.CertificateAuthority;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;

/**
 * Real HTTP and HTTPS servers on loopback. They record the headers each request arrived with, so tests can see
 * exactly what left the proxy (headers, and the first 64 KiB of the body). {@code /redirect?to=URL} answers 302
 * to URL. The HTTPS server presents a certificate for {@code secure.test} from its own test CA.
 */
public final class Upstreams implements AutoCloseable {
    record Seen(String method, String path, String query, Map<String, List<String>> headers, long bodyBytes, String bodyStart) {
        String header(String name) {
            for (var e : headers.entrySet()) if (e.getKey().equalsIgnoreCase(name)) return e.getValue().getFirst();
            return null;
        }
    }

    final CertificateAuthority upstreamCa = CertificateAuthority.ephemeral("upstream test CA");
    final HttpServer http;
    final HttpsServer https;
    final List<Seen> seen = new CopyOnWriteArrayList<>();

    Upstreams() throws IOException {
        http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        https = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        https.setHttpsConfigurator(new HttpsConfigurator(upstreamCa.serverContext("secure.test")));
        for (var server : List.of(http, https)) {
            server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
            server.createContext("/", this::handle);
            server.start();
        }
    }

    public int httpPort() { return http.getAddress().getPort(); }

    int httpsPort() { return https.getAddress().getPort(); }

    Seen last() { return seen.getLast(); }

    private void handle(HttpExchange ex) throws IOException {
        long body = 0;
        var start = new java.io.ByteArrayOutputStream();
        try (InputStream in = ex.getRequestBody()) {
            byte[] buf = new byte[65536];
            int n;
            while ((n = in.read(buf)) > 0) {
                if (body < 65536) start.write(buf, 0, (int) Math.min(n, 65536 - body));
                body += n;
            }
        }
        var headers = new ConcurrentHashMap<String, List<String>>();
        ex.getRequestHeaders().forEach((k, v) -> headers.put(k, List.copyOf(v)));
        String path = ex.getRequestURI().getRawPath();
        String query = ex.getRequestURI().getRawQuery();
        seen.add(new Seen(ex.getRequestMethod(), path, query, headers, body, start.toString(StandardCharsets.ISO_8859_1)));
        if (path.equals("/redirect") && query != null && query.startsWith("to=")) {
            // a redirect the proxy must relay as is, never follow
            ex.getResponseHeaders().set("Location", java.net.URLDecoder.decode(query.substring(3), StandardCharsets.UTF_8));
            ex.sendResponseHeaders(302, -1);
            ex.close();
            return;
        }
        if (path.startsWith("/bytes/")) {
            long n = Long.parseLong(path.substring(7));
            ex.getResponseHeaders().set("Content-Type", "application/octet-stream");
            ex.sendResponseHeaders(200, 0); // chunked
            try (OutputStream out = ex.getResponseBody()) {
                byte[] chunk = new byte[65536];
                for (long left = n; left > 0; left -= chunk.length) out.write(chunk, 0, (int) Math.min(chunk.length, left));
            }
            return;
        }
        byte[] reply = ("ok " + ex.getRequestMethod() + " " + path + " body=" + body + "\n").getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "text/plain");
        ex.sendResponseHeaders(200, reply.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(reply);
        }
    }

    @Override
    public void close() {
        http.stop(0);
        https.stop(0);
    }
}
