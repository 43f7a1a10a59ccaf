package dev.paddock.egress.proxy;

import dev.paddock.core.Text;
import dev.paddock.core.egress.EgressDecision;
import dev.paddock.core.egress.HostName;
import dev.paddock.egress.policy.BlockedAddressException;
import dev.paddock.egress.policy.CheckedTarget;
import dev.paddock.egress.policy.RuleDecision;
import dev.paddock.egress.tls.TlsServerChannel;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves one client connection from a sandbox: plain HTTP forward requests (keep-alive), or one CONNECT, which
 * becomes an end-to-end tunnel or, for credential hosts, an intercepted TLS session: the only place a secret is
 * injected (plain HTTP to a credential host is refused, so nothing secret ever leaves in cleartext). Everything
 * from the client is treated as hostile; any failure ends in a 4xx/5xx answer or a closed connection, and one
 * audit record.
 */
final class ProxyConnection implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(ProxyConnection.class);
    private static final int TUNNEL_BUFFER = 256 * 1024;
    /**
     * Send buffer asked for on the sandbox side of a tunnel. Unix-domain sockets default to ~208 KiB, less than one
     * {@link #TUNNEL_BUFFER} copy, so the downstream pump blocked mid-write on every chunk and the two cores spent
     * the transfer switching between it and the reader. The kernel caps this at net.core.wmem_max.
     */
    private static final int TUNNEL_CLIENT_SEND_BUFFER = 2 * 1024 * 1024;
    /** Audit reason of a plain-HTTP request to a host that a credential rule names. */
    static final String CREDENTIAL_HOST_NEEDS_HTTPS = "credential_host_needs_https";

    private final ProxyContext ctx;
    private final SandboxEgress sandbox;
    private final SocketChannel client;
    private Activity activity;

    ProxyConnection(ProxyContext ctx, SandboxEgress sandbox, SocketChannel client) {
        this.ctx = ctx;
        this.sandbox = sandbox;
        this.client = client;
    }

    @Override
    public void run() {
        activity = ctx.watchdog().start();
        activity.attach(client);
        try {
            HeadInput in = new HeadInput(ChannelStreams.input(client, activity, n -> { }));
            OutputStream out = new BufferedOutputStream(ChannelStreams.output(client, activity, n -> { }), 16 * 1024);
            serve(in, out);
        } catch (IOException e) {
            log.debug("egress connection for {} ended: {}", sandbox.sandboxId(), e.getClass().getSimpleName());
        } catch (RuntimeException | Error e) {
            log.warn("egress connection for {} failed", sandbox.sandboxId(), e);
        } finally {
            lingerClose();
            ctx.watchdog().finish(activity);
            activity.closeAll();
        }
    }

    /**
     * Half-closes and briefly drains what the client still sends, so an error answer is not destroyed by a TCP
     * reset (closing with unread input resets the connection). Bounded in time and bytes.
     */
    private void lingerClose() {
        try {
            if (!client.isOpen()) return;
            client.shutdownOutput();
            client.configureBlocking(false);
            ByteBuffer sink = ByteBuffer.allocate(8192);
            long deadline = System.nanoTime() + 1_000_000_000L;
            long drained = 0;
            while (System.nanoTime() < deadline && drained < 256 * 1024) {
                int n = client.read(sink);
                if (n < 0) return;
                if (n == 0) Thread.sleep(10);
                drained += n;
                sink.clear();
            }
        } catch (IOException | RuntimeException e) {
            // already closed or reset: nothing to drain
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void serve(HeadInput in, OutputStream out) throws IOException {
        while (true) {
            HttpHeads.Request req;
            try {
                req = ctx.heads().readRequest(in);
            } catch (ProtocolException e) {
                AuditBuilder audit = new AuditBuilder(sandbox.sandboxId());
                audit.outcome(EgressDecision.ERROR, e.code).status = e.status;
                audit.emit(ctx.sink());
                sendError(out, e.status, "malformed request: " + e.getMessage());
                return;
            }
            if (req == null) return;
            if (req.method().equals("CONNECT")) {
                connect(req, in, out);
                return;
            }
            if (!forward(req, in, out, null, null)) return;
        }
    }

    /**
     * Forwards one request and streams the response back. {@code tunnel}/{@code checked} are set for requests
     * inside an intercepted TLS tunnel. Returns true when the client connection may carry another request.
     */
    private boolean forward(HttpHeads.Request req, HeadInput in, OutputStream out, Target tunnel, CheckedTarget checked) throws IOException {
        AuditBuilder audit = new AuditBuilder(sandbox.sandboxId());
        audit.method = req.method();
        audit.mode = tunnel == null ? "http" : "tls_intercept";
        boolean responseStarted = false;
        Upstream upstream = null;
        try {
            Target t = tunnel == null ? Target.absoluteHttp(req.target()) : Target.insideTunnel(req.target(), tunnel.host(), tunnel.port());
            audit.host = t.host();
            audit.port = t.port();
            audit.url = t.auditUrl();
            RuleDecision decision = sandbox.rules().decideCanonical(t.host(), t.port());
            if (!decision.allowed()) {
                deny(out, audit, decision.rule(), t, describe(decision.rule()));
                return false;
            }
            if (tunnel == null && sandbox.credentials().namesHost(t.host())) {
                // the client would send its credential (or the placeholder) in cleartext; nothing is injected either
                deny(out, audit, CREDENTIAL_HOST_NEEDS_HTTPS, t, "a credential rule names this host and secrets travel only over HTTPS: use https://");
                return false;
            }
            if (tunnel != null) Target.requireHostHeaders(req.headers().all("host"), tunnel.host(), tunnel.port());
            if (checked == null) {
                try {
                    checked = ctx.guard().check(t.host(), t.port());
                } catch (BlockedAddressException e) {
                    deny(out, audit, e.reason(), t, e.getMessage());
                    return false;
                }
            }
            audit.resolvedAddress = checked.addresses().getFirst().getHostAddress();
            BodyFraming requestBody = BodyFraming.forRequest(req);
            Headers headers = req.headers().forwardable();
            boolean expectContinue = headers.first("expect") != null && headers.first("expect").equalsIgnoreCase("100-continue");
            headers.remove("expect");
            headers.set("Host", t.hostHeader(tunnel == null ? 80 : 443));
            headers.set("Connection", "close");
            if (requestBody instanceof BodyFraming.Chunked) headers.set("Transfer-Encoding", "chunked");
            SandboxCredentials.Injection injection;
            try {
                injection = tunnel == null
                        ? sandbox.credentials().inspectPlain(req.target(), headers)
                        : sandbox.credentials().applyOverTls(t.host(), t.port(), req.target(), headers);
            } catch (SandboxCredentials.UnavailableException e) {
                audit.outcome(EgressDecision.ERROR, e.code).status = 502;
                sendError(out, 502, "credential for " + t.host() + " is unavailable: " + e.getMessage());
                return false;
            }

            try {
                upstream = Upstream.connect(checked, ctx.config().connectTimeout(), activity, audit.meter,
                        tunnel == null ? null : ctx.config().upstreamTlsOrDefault());
            } catch (SSLException e) {
                audit.outcome(EgressDecision.ERROR, "upstream_tls_failed").status = 502;
                sendError(out, 502, "TLS with " + t.host() + " failed: its certificate is not trusted or does not match");
                return false;
            } catch (IOException e) {
                audit.outcome(EgressDecision.ERROR, "upstream_unreachable").status = 502;
                sendError(out, 502, "cannot connect to " + t.host() + ":" + t.port());
                return false;
            }
            audit.resolvedAddress = upstream.address;

            if (expectContinue && !(requestBody instanceof BodyFraming.None)) {
                out.write(HeadInput.latin1("HTTP/1.1 100 Continue\r\n\r\n"));
                out.flush();
            }
            StringBuilder head = new StringBuilder(256);
            head.append(req.method()).append(' ').append(t.originForm()).append(" HTTP/1.1\r\n");
            headers.writeTo(head);
            head.append("\r\n");
            OutputStream up = new BufferedOutputStream(upstream.out, 16 * 1024);
            up.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
            // recorded once the head is on its way: a request refused or failed before this carried nothing
            audit.injected.addAll(injection.injected());
            audit.leaked.addAll(injection.leaked());
            BodyFraming.copy(requestBody, in, up, ctx.config().maxLineBytes(), 400);

            HeadInput upIn = new HeadInput(upstream.in);
            HttpHeads.Response resp = ctx.heads().readResponse(upIn);
            while (resp.status() < 200) {
                if (resp.status() == 101) throw new ProtocolException(502, "upstream_upgrade", "the upstream switched protocols, which this proxy does not relay");
                resp = ctx.heads().readResponse(upIn);
            }
            BodyFraming responseBody = BodyFraming.forResponse(req.method(), resp);
            boolean keepAlive = !req.http10() && !req.headers().hasToken("connection", "close")
                    && !(responseBody instanceof BodyFraming.UntilClose);
            Headers respHeaders = resp.headers().forwardable();
            if (responseBody instanceof BodyFraming.Chunked) {
                respHeaders.remove("content-length");
                respHeaders.set("Transfer-Encoding", "chunked");
            }
            respHeaders.set("Connection", keepAlive ? "keep-alive" : "close");
            StringBuilder rh = new StringBuilder(256);
            rh.append("HTTP/1.1 ").append(resp.status()).append(' ').append(resp.reason()).append("\r\n");
            respHeaders.writeTo(rh);
            rh.append("\r\n");
            responseStarted = true;
            out.write(rh.toString().getBytes(StandardCharsets.ISO_8859_1));
            BodyFraming.copy(responseBody, upIn, out, ctx.config().maxLineBytes(), 502);
            audit.status = resp.status();
            audit.outcome(injection.leaked().isEmpty() ? EgressDecision.ALLOWED : EgressDecision.PLACEHOLDER_TO_UNLISTED_HOST, decision.rule());
            return keepAlive;
        } catch (ProtocolException e) {
            audit.outcome(EgressDecision.ERROR, e.code);
            if (!responseStarted) {
                audit.status = e.status;
                sendError(out, e.status, e.getMessage());
            }
            return false;
        } catch (IOException e) {
            audit.outcome(EgressDecision.ERROR, activity.expired() != null ? activity.expired() : "connection_failed");
            return false;
        } finally {
            if (upstream != null) upstream.close();
            audit.emit(ctx.sink());
        }
    }

    private void connect(HttpHeads.Request req, HeadInput in, OutputStream out) throws IOException {
        AuditBuilder audit = new AuditBuilder(sandbox.sandboxId());
        audit.method = "CONNECT";
        audit.mode = "connect_tunnel";
        boolean intercepted = false;
        try {
            Target t = Target.connectAuthority(req.target());
            audit.host = t.host();
            audit.port = t.port();
            RuleDecision decision = sandbox.rules().decideCanonical(t.host(), t.port());
            if (!decision.allowed()) {
                deny(out, audit, decision.rule(), t, describe(decision.rule()));
                return;
            }
            CheckedTarget checked;
            try {
                checked = ctx.guard().check(t.host(), t.port());
            } catch (BlockedAddressException e) {
                deny(out, audit, e.reason(), t, e.getMessage());
                return;
            }
            audit.resolvedAddress = checked.addresses().getFirst().getHostAddress();
            if (ctx.ca() != null && sandbox.credentials().covers(t.host(), t.port())) {
                intercepted = true;
                intercept(t, checked, in, out, decision);
                return;
            }
            tunnel(t, checked, in, out, audit, decision);
        } catch (ProtocolException e) {
            audit.outcome(EgressDecision.ERROR, e.code).status = e.status;
            sendError(out, e.status, e.getMessage());
        } finally {
            if (!intercepted) audit.emit(ctx.sink());
        }
    }

    private void tunnel(Target t, CheckedTarget checked, HeadInput in, OutputStream out, AuditBuilder audit, RuleDecision decision) throws IOException {
        Upstream upstream;
        try {
            upstream = Upstream.connect(checked, ctx.config().connectTimeout(), activity, audit.meter, null);
        } catch (IOException e) {
            audit.outcome(EgressDecision.ERROR, "upstream_unreachable").status = 502;
            sendError(out, 502, "cannot connect to " + t.host() + ":" + t.port());
            return;
        }
        try {
            audit.resolvedAddress = upstream.address;
            out.write(HeadInput.latin1("HTTP/1.1 200 Connection established\r\n\r\n"));
            out.flush();
            audit.status = 200;
            audit.outcome(EgressDecision.ALLOWED, decision.rule());
            byte[] early = in.drainBuffered();
            if (early.length > 0) {
                writeFully(upstream.channel, ByteBuffer.wrap(early));
                audit.meter.addUp(early.length);
            }
            SocketChannel up = upstream.channel;
            widenSendBuffer(client);
            if (!SpliceRelay.tryRun(client, up, activity, audit.meter::addUp, audit.meter::addDown)) {
                Thread downstream = Thread.ofVirtual().name("egress-tunnel-down").start(() -> pump(up, client, audit.meter, false));
                pump(client, up, audit.meter, true);
                try {
                    downstream.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            if (activity.expired() != null) audit.outcome(EgressDecision.ALLOWED, decision.rule() + ";closed_by_" + activity.expired());
        } finally {
            upstream.close();
        }
    }

    /**
     * Copies one direction until end of stream, then half-closes the destination so the other direction can finish;
     * for a JVM where {@link SpliceRelay} cannot work.
     */
    private void pump(SocketChannel from, SocketChannel to, Meter meter, boolean upward) {
        ByteBuffer buf = ByteBuffer.allocateDirect(TUNNEL_BUFFER);
        try {
            while (from.read(buf) >= 0) {
                buf.flip();
                int n = buf.remaining();
                writeFully(to, buf);
                if (upward) meter.addUp(n); else meter.addDown(n);
                activity.touch();
                buf.clear();
            }
            to.shutdownOutput();
        } catch (IOException e) {
            // one side failed: tear down both so the other direction stops too
            activity.closeAll();
        }
    }

    /**
     * Best effort: a larger queue towards the sandbox lets the pump run ahead of the reader. Only unix-domain
     * clients are touched: on TCP sockets (the upstream, or a TCP listener) a fixed buffer would switch off the
     * kernel's autotuning, which usually grows further on its own.
     */
    private static void widenSendBuffer(SocketChannel ch) {
        try {
            if (ch.getLocalAddress() instanceof UnixDomainSocketAddress
                    && ch.getOption(StandardSocketOptions.SO_SNDBUF) < TUNNEL_CLIENT_SEND_BUFFER) {
                ch.setOption(StandardSocketOptions.SO_SNDBUF, TUNNEL_CLIENT_SEND_BUFFER);
            }
        } catch (IOException | UnsupportedOperationException e) {
            // the default buffer still works, only slower
        }
    }

    private static void writeFully(ByteChannel ch, ByteBuffer buf) throws IOException {
        while (buf.hasRemaining()) ch.write(buf);
    }

    private void intercept(Target t, CheckedTarget checked, HeadInput in, OutputStream out, RuleDecision decision) throws IOException {
        out.write(HeadInput.latin1("HTTP/1.1 200 Connection established\r\n\r\n"));
        out.flush();
        SSLEngine engine = ctx.ca().serverContext(t.host()).createSSLEngine();
        engine.setUseClientMode(false);
        SSLParameters params = engine.getSSLParameters();
        params.setApplicationProtocols(new String[] {"http/1.1"});
        params.setProtocols(new String[] {"TLSv1.3", "TLSv1.2"});
        engine.setSSLParameters(params);
        TlsServerChannel tls = new TlsServerChannel(engine, in, ChannelStreams.output(client, activity, n -> { }));
        try {
            tls.handshake();
        } catch (IOException e) {
            AuditBuilder audit = new AuditBuilder(sandbox.sandboxId());
            audit.method = "CONNECT";
            audit.mode = "tls_intercept";
            audit.host = t.host();
            audit.port = t.port();
            audit.resolvedAddress = checked.addresses().getFirst().getHostAddress();
            audit.outcome(EgressDecision.ERROR, "client_tls_failed").emit(ctx.sink());
            return;
        }
        HeadInput tin = new HeadInput(ChannelStreams.input(tls, activity, n -> { }));
        OutputStream tout = new BufferedOutputStream(ChannelStreams.output(tls, activity, n -> { }), 16 * 1024);
        boolean sniMatches = sniNamesTarget(engine, t.host());
        try {
            while (true) {
                HttpHeads.Request req;
                try {
                    req = ctx.heads().readRequest(tin);
                } catch (ProtocolException e) {
                    AuditBuilder audit = new AuditBuilder(sandbox.sandboxId());
                    audit.mode = "tls_intercept";
                    audit.host = t.host();
                    audit.port = t.port();
                    audit.outcome(EgressDecision.ERROR, e.code).status = e.status;
                    audit.emit(ctx.sink());
                    sendError(tout, e.status, "malformed request: " + e.getMessage());
                    return;
                }
                if (req == null) return;
                if (req.method().equals("CONNECT")) {
                    sendError(tout, 400, "CONNECT inside a tunnel is not supported");
                    return;
                }
                if (!sniMatches) {
                    // the client's TLS named another server than its CONNECT: nothing goes upstream for it
                    AuditBuilder audit = new AuditBuilder(sandbox.sandboxId());
                    audit.method = req.method();
                    audit.mode = "tls_intercept";
                    audit.host = t.host();
                    audit.port = t.port();
                    audit.outcome(EgressDecision.ERROR, "tunnel_host_mismatch").status = 400;
                    audit.emit(ctx.sink());
                    sendError(tout, 400, "the TLS server name (SNI) must be the CONNECT target's host");
                    return;
                }
                if (!forward(req, tin, tout, t, checked)) return;
            }
        } finally {
            tls.close();
        }
    }

    /** True when the client sent no SNI (e.g. for an IP literal) or one naming {@code host}. */
    private static boolean sniNamesTarget(SSLEngine engine, String host) {
        if (!(engine.getSession() instanceof ExtendedSSLSession session)) return true;
        for (SNIServerName name : session.getRequestedServerNames()) {
            if (!(name instanceof SNIHostName sni)) return false;
            if (!HostName.normalize(sni.getAsciiName()).map(host::equals).orElse(false)) return false;
        }
        return true;
    }

    private void deny(OutputStream out, AuditBuilder audit, String reason, Target t, String why) throws IOException {
        audit.outcome(EgressDecision.DENIED, reason).status = 403;
        sendError(out, 403, "blocked " + HostName.forAuthority(t.host()) + ":" + t.port() + ": " + why + " (" + reason + ")");
    }

    private static String describe(String rule) {
        return switch (rule) {
            case "network_mode_none" -> "this sandbox has no network access";
            case "host_not_allowed" -> "the host is not in the sandbox's allowed_hosts";
            default -> "refused by the network policy";
        };
    }

    /** A short text/plain proxy error; the connection is closed afterwards. */
    static void sendError(OutputStream out, int status, String message) {
        String body = "paddock egress proxy: " + Text.clip(message, 300) + "\n";
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        String head = "HTTP/1.1 " + status + " " + reason(status) + "\r\n"
                + "Content-Type: text/plain; charset=utf-8\r\n"
                + "Content-Length: " + bytes.length + "\r\n"
                + "X-Paddock-Egress: " + (status == 403 ? "denied" : "error") + "\r\n"
                + "Connection: close\r\n\r\n";
        try {
            out.write(head.getBytes(StandardCharsets.ISO_8859_1));
            out.write(bytes);
            out.flush();
        } catch (IOException e) {
            // the client is gone; nothing more to tell it
        }
    }

    private static String reason(int status) {
        return switch (status) {
            case 400 -> "Bad Request";
            case 403 -> "Forbidden";
            case 414 -> "URI Too Long";
            case 431 -> "Request Header Fields Too Large";
            case 502 -> "Bad Gateway";
            case 504 -> "Gateway Timeout";
            default -> "Error";
        };
    }
}
