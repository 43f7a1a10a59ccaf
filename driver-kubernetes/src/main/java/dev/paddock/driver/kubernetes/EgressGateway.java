package dev.paddock.driver.kubernetes;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TCP door of sandbox pods to Paddock's egress proxy. A pod cannot reach the proxy's per-sandbox unix socket (it
 * runs on another node), so it dials this listener with its proxy credential, {@code Proxy-Authorization: Basic}
 * of its sandbox id and a random per-sandbox token; the gateway checks the pair, drops the header and hands the
 * connection, bytes unchanged, to that sandbox's own unix socket. Everything the proxy does (the sandbox's rules, the
 * address guard, credential injection, the audit) is then exactly what it does for a bwrap sandbox; a connection
 * without a known credential is answered 407 and goes nowhere.
 *
 * <p>Where pods dial a Service in front of every server, a connection may land on a server that does not hold its
 * sandbox's proxy listener (another replica made the sandbox, or took it over). The gateway then asks {@link Holders}
 * for the holding server's gateway and the pod's credential, checks the credential itself, and relays the connection
 * unchanged to that gateway with a {@value #HOP_HEADER} header, which the holder drops; a connection that already
 * carries it is never relayed again, so a stale holder answers 407 rather than sending it round.
 */
final class EgressGateway implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EgressGateway.class);
    static final int MAX_HEAD_BYTES = 64 * 1024;
    /**
     * The most time a connection may take to send its whole request head, counted from its accept: a per-read timeout
     * alone lets a client that drips a byte now and then hold a connection slot for days (slowloris), and enough of
     * them would take every slot, so no pod's egress would pass.
     */
    static final Duration HEAD_DEADLINE = Duration.ofSeconds(30);
    private static final int MAX_CONNECTIONS = 1024;
    private static final byte[] END_OF_HEAD = {'\r', '\n', '\r', '\n'};
    private static final SecureRandom RANDOM = new SecureRandom();

    /** Marks a connection relayed by another server's gateway (at most one hop). */
    static final String HOP_HEADER = "Paddock-Egress-Relayed";

    private record Route(byte[] token, Path socket) {}

    /** A sandbox's credential and the gateway (another server's) that holds its proxy listener. */
    record Holder(byte[] token, String host, int port) {
        boolean sameGateway(Holder other) {
            return host.equals(other.host) && port == other.port;
        }
    }

    /**
     * Finds the holder of a sandbox this gateway does not route, or null (unknown, ended, or held here); {@code fresh}
     * asks past any cached answer (the holder it named could not be reached: another server may have taken over).
     */
    @FunctionalInterface
    interface Holders {
        Holder find(String sandboxId, boolean fresh);
    }

    private final ServerSocket server;
    private final Map<String, Route> routes = new ConcurrentHashMap<>();
    private final Semaphore slots = new Semaphore(MAX_CONNECTIONS);
    private final Duration headDeadline;
    private volatile boolean closed;
    private volatile Holders holders = (id, fresh) -> null;

    EgressGateway(String host, int port) {
        this(host, port, HEAD_DEADLINE);
    }

    EgressGateway(String host, int port, Duration headDeadline) {
        this.headDeadline = headDeadline;
        try {
            server = new ServerSocket();
            server.setReuseAddress(true);
            server.bind(new InetSocketAddress(host, port), 128);
        } catch (IOException e) {
            throw new PaddockException(ErrorCode.DRIVER_UNAVAILABLE, "the kubernetes driver cannot listen for sandbox egress on " + host + ":" + port
                    + ": " + e.getMessage(), e);
        }
        Thread.ofVirtual().name("k8s-egress-accept").start(this::acceptLoop);
    }

    /** The port listened on (the one asked for, or the free one found for 0). */
    int port() {
        return server.getLocalPort();
    }

    /** A new per-sandbox proxy token: 32 random bytes, URL-safe so it fits in a proxy URL's password. */
    static String newToken() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** Lets connections carrying {@code sandboxId}'s token through to {@code socket}. */
    void route(String sandboxId, String token, Path socket) {
        routes.put(sandboxId, new Route(token.getBytes(StandardCharsets.US_ASCII), socket));
    }

    void holders(Holders lookup) {
        this.holders = lookup;
    }

    void unroute(String sandboxId) {
        routes.remove(sandboxId);
    }

    boolean routes(String sandboxId) {
        return routes.containsKey(sandboxId);
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                if (!closed) LOG.warn("the sandbox egress gateway stopped accepting: {}", e.toString());
                return;
            }
            if (!slots.tryAcquire()) {
                closeQuietly(client);
                continue;
            }
            Thread.ofVirtual().name("k8s-egress").start(() -> {
                try (client) {
                    serve(client);
                } catch (IOException e) {
                    // the client or the proxy went away: nothing to answer
                } finally {
                    slots.release();
                }
            });
        }
    }

    private void serve(Socket client) throws IOException {
        long deadline = System.nanoTime() + headDeadline.toNanos();
        InputStream in = client.getInputStream();
        OutputStream out = client.getOutputStream();
        byte[] buffer = new byte[MAX_HEAD_BYTES];
        int filled = 0;
        int end;
        while ((end = indexOf(buffer, filled, END_OF_HEAD)) < 0) {
            if (filled == buffer.length) {
                answer(out, "431 Request Header Fields Too Large", "the request head is over " + MAX_HEAD_BYTES + " bytes");
                return;
            }
            long left = (deadline - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                answer(out, "408 Request Timeout", "the request head did not arrive in " + headDeadline.toSeconds() + " seconds");
                return;
            }
            client.setSoTimeout((int) Math.min(Integer.MAX_VALUE, left));
            int n;
            try {
                n = in.read(buffer, filled, buffer.length - filled);
            } catch (SocketTimeoutException e) {
                answer(out, "408 Request Timeout", "the request head did not arrive in " + headDeadline.toSeconds() + " seconds");
                return;
            }
            if (n < 0) return;
            filled += n;
        }
        int headLength = end + END_OF_HEAD.length;
        String head = new String(buffer, 0, headLength, StandardCharsets.ISO_8859_1);
        StringBuilder forwarded = new StringBuilder(head.length());
        String credential = null;
        boolean relayed = false;
        for (String line : head.substring(0, end).split("\r\n", -1)) {
            int colon = line.indexOf(':');
            String name = colon > 0 ? line.substring(0, colon).strip() : "";
            if (name.equalsIgnoreCase("proxy-authorization")) {
                credential = line.substring(colon + 1).strip();
            } else if (name.equalsIgnoreCase(HOP_HEADER)) {
                relayed = true;
            } else {
                forwarded.append(line).append("\r\n");
            }
        }
        forwarded.append("\r\n");
        String[] idAndToken = credential(credential);
        Route route = idAndToken == null ? null : authorised(idAndToken[0], idAndToken[1]);
        if (route == null) {
            Holder holder = idAndToken == null || relayed ? null : holderOf(idAndToken[0], idAndToken[1], false);
            if (holder == null) {
                answer(out, "407 Proxy Authentication Required", "this egress proxy needs the sandbox's proxy credential (HTTP_PROXY carries it)");
                return;
            }
            if (relay(client, in, out, holder, buffer, end, filled)) return;
            Holder now = holderOf(idAndToken[0], idAndToken[1], true);
            if (now == null || now.sameGateway(holder) || !relay(client, in, out, now, buffer, end, filled)) {
                answer(out, "502 Bad Gateway", "the server holding this sandbox's egress proxy cannot be reached");
            }
            return;
        }
        try (SocketChannel proxy = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            try {
                proxy.connect(UnixDomainSocketAddress.of(route.socket()));
            } catch (IOException e) {
                answer(out, "502 Bad Gateway", "the sandbox's egress proxy listener is not open");
                return;
            }
            client.setSoTimeout(0); // from here the proxy's own idle and total timeouts hold
            writeAll(proxy, forwarded.toString().getBytes(StandardCharsets.ISO_8859_1), 0, forwarded.length());
            writeAll(proxy, buffer, headLength, filled - headLength);
            pipe(client, in, out, proxy);
        }
    }

    /**
     * Hands the connection, its head as it came plus the hop header, to the gateway holding the sandbox's listener;
     * false, with nothing sent, when that gateway cannot be reached.
     */
    private static boolean relay(Socket client, InputStream in, OutputStream out, Holder holder, byte[] buffer, int end, int filled) throws IOException {
        try (SocketChannel next = SocketChannel.open()) {
            try {
                next.connect(new InetSocketAddress(holder.host(), holder.port()));
            } catch (IOException e) {
                return false;
            }
            client.setSoTimeout(0);
            writeAll(next, buffer, 0, end + 2);
            byte[] hop = (HOP_HEADER + ": 1\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
            writeAll(next, hop, 0, hop.length);
            writeAll(next, buffer, end + END_OF_HEAD.length, filled - end - END_OF_HEAD.length);
            pipe(client, in, out, next);
            return true;
        }
    }

    /** Copies both ways until either side closes. */
    private static void pipe(Socket client, InputStream in, OutputStream out, SocketChannel other) throws IOException {
        Thread upstream = Thread.ofVirtual().name("k8s-egress-up").start(() -> clientToProxy(in, other));
        try {
            ByteBuffer chunk = ByteBuffer.allocate(16 * 1024);
            while (other.read(chunk) >= 0) {
                out.write(chunk.array(), 0, chunk.position());
                out.flush();
                chunk.clear();
            }
        } catch (IOException e) {
            // either side closed
        } finally {
            client.shutdownOutput();
            upstream.interrupt();
        }
    }

    private static void clientToProxy(InputStream in, SocketChannel proxy) {
        byte[] chunk = new byte[16 * 1024];
        try {
            int n;
            while ((n = in.read(chunk)) >= 0) writeAll(proxy, chunk, 0, n);
            proxy.shutdownOutput();
        } catch (IOException e) {
            // either side closed
        }
    }

    /** The sandbox id and token of a {@code Basic} proxy credential, or null for anything else. */
    private static String[] credential(String credential) {
        if (credential == null || !credential.toLowerCase(Locale.ROOT).startsWith("basic ")) return null;
        byte[] decoded;
        try {
            decoded = Base64.getDecoder().decode(credential.substring(6).strip());
        } catch (IllegalArgumentException e) {
            return null;
        }
        int colon = indexOf(decoded, decoded.length, new byte[] {':'});
        if (colon <= 0) return null;
        return new String[] {new String(decoded, 0, colon, StandardCharsets.US_ASCII),
                new String(decoded, colon + 1, decoded.length - colon - 1, StandardCharsets.US_ASCII)};
    }

    /** The route of the sandbox whose token this is, compared in constant time; null for any other. */
    private Route authorised(String sandboxId, String token) {
        Route route = routes.get(sandboxId);
        if (route == null) return null;
        return MessageDigest.isEqual(route.token(), token.getBytes(StandardCharsets.US_ASCII)) ? route : null;
    }

    /** The other server holding the sandbox, where the token is its pod's (checked here, before any relay); else null. */
    private Holder holderOf(String sandboxId, String token, boolean fresh) {
        Holder holder;
        try {
            holder = holders.find(sandboxId, fresh);
        } catch (RuntimeException e) {
            LOG.warn("cannot find which server holds the egress of sandbox {}: {}", sandboxId, e.toString());
            return null;
        }
        return holder != null && MessageDigest.isEqual(holder.token(), token.getBytes(StandardCharsets.US_ASCII)) ? holder : null;
    }

    private static void answer(OutputStream out, String status, String why) throws IOException {
        byte[] body = (why + "\n").getBytes(StandardCharsets.UTF_8);
        String head = "HTTP/1.1 " + status + "\r\n"
                + (status.startsWith("407") ? "Proxy-Authenticate: Basic realm=\"paddock\"\r\n" : "")
                + "Content-Type: text/plain; charset=utf-8\r\nContent-Length: " + body.length + "\r\nConnection: close\r\n\r\n";
        out.write(head.getBytes(StandardCharsets.ISO_8859_1));
        out.write(body);
        out.flush();
    }

    private static void writeAll(SocketChannel ch, byte[] bytes, int offset, int length) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(bytes, offset, length);
        while (b.hasRemaining()) ch.write(b);
    }

    private static int indexOf(byte[] haystack, int length, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= length; i++) {
            for (int j = 0; j < needle.length; j++) if (haystack[i + j] != needle[j]) continue outer;
            return i;
        }
        return -1;
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
