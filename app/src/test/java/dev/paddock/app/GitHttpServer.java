package dev.paddock.app;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A Git smart-HTTP server on loopback, as GitHub would be: real bare repositories under {@code <root>/<owner>/<repo>.git}
 * served by {@code git http-backend} as a CGI, behind a check of the {@code Authorization} header (Basic with the
 * password {@code token}, or Bearer {@code token}); anything else gets 401. Remembers every Authorization header it was
 * sent, so a test sees the token really travelled.
 */
final class GitHttpServer implements AutoCloseable {
    final Path root;
    final String token;
    final List<String> authorizations = new CopyOnWriteArrayList<>();
    private final HttpServer server;

    GitHttpServer(Path root, String token) throws IOException {
        this.root = root;
        this.token = token;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::handle);
        server.start();
    }

    /** The base url, as github_base_url. */
    String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/";
    }

    /** Makes {@code owner/repo.git} with one commit on {@code main} holding {@code files}. */
    void createRepository(String owner, String repo, Map<String, String> files) throws IOException, InterruptedException {
        Path work = Files.createDirectories(root.resolve(".work").resolve(owner + "-" + repo));
        for (Map.Entry<String, String> f : files.entrySet()) Files.writeString(work.resolve(f.getKey()), f.getValue());
        git(work, "init", "-q", "-b", "main");
        git(work, "add", ".");
        git(work, "-c", "user.name=test", "-c", "user.email=test@example.invalid", "commit", "-q", "-m", "first");
        Path bare = root.resolve(owner).resolve(repo + ".git");
        Files.createDirectories(bare.getParent());
        git(root, "clone", "-q", "--bare", work.toString(), bare.toString());
    }

    private static void git(Path cwd, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("git"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).directory(cwd.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) throw new IOException("git " + String.join(" ", args) + " failed: " + out);
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String auth = exchange.getRequestHeaders().getFirst("Authorization");
            if (auth != null) authorizations.add(auth);
            if (!authorized(auth)) {
                exchange.getResponseHeaders().add("WWW-Authenticate", "Basic realm=\"test\"");
                exchange.sendResponseHeaders(401, -1);
                return;
            }
            cgi(exchange);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private boolean authorized(String auth) {
        if (auth == null) return false;
        if (auth.equals("Bearer " + token)) return true;
        if (!auth.startsWith("Basic ")) return false;
        String decoded = new String(Base64.getDecoder().decode(auth.substring(6)), StandardCharsets.UTF_8);
        return decoded.endsWith(":" + token);
    }

    /** Runs git http-backend for the request and relays its CGI answer. */
    private void cgi(HttpExchange exchange) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder("git", "http-backend");
        Map<String, String> env = pb.environment();
        env.put("GIT_PROJECT_ROOT", root.toString());
        env.put("GIT_HTTP_EXPORT_ALL", "1");
        env.put("PATH_INFO", exchange.getRequestURI().getRawPath());
        env.put("QUERY_STRING", exchange.getRequestURI().getRawQuery() == null ? "" : exchange.getRequestURI().getRawQuery());
        env.put("REQUEST_METHOD", exchange.getRequestMethod());
        String type = exchange.getRequestHeaders().getFirst("Content-Type");
        env.put("CONTENT_TYPE", type == null ? "" : type);
        env.put("REMOTE_USER", "test");
        env.put("REMOTE_ADDR", "127.0.0.1");
        String encoding = exchange.getRequestHeaders().getFirst("Content-Encoding");
        if (encoding != null) env.put("HTTP_CONTENT_ENCODING", encoding);
        Process p = pb.start();
        try (OutputStream stdin = p.getOutputStream(); InputStream body = exchange.getRequestBody()) {
            body.transferTo(stdin);
        }
        byte[] out = p.getInputStream().readAllBytes();
        p.getErrorStream().readAllBytes();
        p.waitFor(30, TimeUnit.SECONDS);
        int split = indexOf(out, "\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        int skip = 4;
        if (split < 0) {
            split = indexOf(out, "\n\n".getBytes(StandardCharsets.US_ASCII));
            skip = 2;
        }
        int status = 200;
        for (String line : new String(out, 0, Math.max(split, 0), StandardCharsets.ISO_8859_1).split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon < 0) continue;
            String name = line.substring(0, colon).strip();
            String value = line.substring(colon + 1).strip();
            if (name.equalsIgnoreCase("Status")) status = Integer.parseInt(value.split(" ")[0]);
            else exchange.getResponseHeaders().add(name, value);
        }
        ByteArrayOutputStream rest = new ByteArrayOutputStream();
        if (split >= 0) rest.write(out, split + skip, out.length - split - skip);
        exchange.sendResponseHeaders(status, rest.size() == 0 ? -1 : rest.size());
        if (rest.size() > 0) {
            try (OutputStream o = exchange.getResponseBody()) {
                rest.writeTo(o);
            }
        }
    }

    private static int indexOf(byte[] data, byte[] pattern) {
        outer:
        for (int i = 0; i + pattern.length <= data.length; i++) {
            for (int j = 0; j < pattern.length; j++) if (data[i + j] != pattern[j]) continue outer;
            return i;
        }
        return -1;
    }

    /** Stops serving and deletes the repositories. */
    @Override
    public void close() throws IOException {
        server.stop(0);
        try (Stream<Path> files = Files.walk(root)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
