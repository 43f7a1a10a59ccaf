package dev.paddock.host.terminal;

import dev.paddock.access.Principal;
import dev.paddock.core.ErrorCode;
import dev.paddock.core.Ids;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.TerminalHandle;
import dev.paddock.core.spi.TerminalRequest;
import dev.paddock.host.RuntimeHost;
import java.io.IOException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The terminals of this server (in memory: a restart of the server ends them). A terminal outlives its client
 * for {@code grace} (a reconnect within it finds the session and the output it missed, up to {@code bufferBytes});
 * after that, or {@code grace} after its command ended, it is killed and forgotten. A client attaches with a
 * single-use attach token that lives {@link #TOKEN_LIFETIME}, issued against an API key, so that no API key
 * ever travels in a WebSocket URL.
 */
public final class TerminalSessions implements AutoCloseable {
    public static final Duration TOKEN_LIFETIME = Duration.ofSeconds(60);
    public static final int MAX_PER_SANDBOX = 16;
    /** Unused attach tokens kept per terminal; a new one beyond this revokes the oldest. */
    public static final int MAX_TOKENS_PER_TERMINAL = 8;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final RuntimeHost host;
    private final Duration grace;
    private final int bufferBytes;
    private final Clock clock;
    private final Map<String, TerminalSession> sessions = new ConcurrentHashMap<>();
    private final Map<String, Token> tokens = new ConcurrentHashMap<>();
    private final Map<String, Integer> opening = new ConcurrentHashMap<>();
    private final ScheduledExecutorService sweeper = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("paddock-terminal-sweeper").factory());

    private record Token(String sessionId, Instant expiresAt) {}

    /** An attach token and when it stops working. */
    public record AttachToken(String token, Instant expiresAt) {}

    public TerminalSessions(RuntimeHost host, Duration grace, int bufferBytes, Clock clock) {
        if (grace.isNegative() || bufferBytes < 0) throw new IllegalArgumentException("grace and buffer must not be negative");
        this.host = host;
        this.grace = grace;
        this.bufferBytes = bufferBytes;
        this.clock = clock;
        long every = Math.max(1, Math.min(grace.toMillis() / 4, 10_000));
        sweeper.scheduleWithFixedDelay(this::sweep, every, every, TimeUnit.MILLISECONDS);
    }

    public Duration grace() {
        return grace;
    }

    /** Starts a command on a new terminal in the caller's sandbox. */
    public TerminalSession open(Principal caller, String sandboxId, TerminalRequest request) {
        host.get(caller, sandboxId); // another tenant's sandbox is not found, before anything else is said of it
        reserve(sandboxId);
        try {
            TerminalSession s = new TerminalSession(Ids.newId("pty"), caller, sandboxId, request.argv(), request.rows(), request.cols(), clock.instant(), bufferBytes);
            TerminalHandle h = host.openTerminal(caller, sandboxId, request, s);
            s.started(h);
            sessions.put(s.id(), s);
            return s;
        } finally {
            opening.computeIfPresent(sandboxId, (id, n) -> n <= 1 ? null : n - 1);
        }
    }

    /** Counts a terminal being opened, so that opens racing each other cannot pass the limit together. */
    private synchronized void reserve(String sandboxId) {
        long open = sessions.values().stream().filter(s -> s.sandboxId().equals(sandboxId)).count()
                + opening.getOrDefault(sandboxId, 0);
        if (open >= MAX_PER_SANDBOX) {
            throw new PaddockException(ErrorCode.TOO_MANY_TERMINALS, "sandbox " + sandboxId + " has " + MAX_PER_SANDBOX
                    + " terminals; end one (DELETE /v1/sandboxes/" + sandboxId + "/pty/{pty_id}) first");
        }
        opening.merge(sandboxId, 1, Integer::sum);
    }

    public List<TerminalSession> list(Principal caller, String sandboxId) {
        host.get(caller, sandboxId); // the caller's sandbox, or 404
        return sessions.values().stream()
                .filter(s -> s.sandboxId().equals(sandboxId) && s.owner().tenantId().equals(caller.tenantId()))
                .sorted(Comparator.comparing(TerminalSession::id)).toList();
    }

    public TerminalSession get(Principal caller, String sandboxId, String ptyId) {
        Ids.require("pty", ptyId, "terminal id");
        TerminalSession s = sessions.get(ptyId);
        if (s == null || !s.sandboxId().equals(sandboxId) || !s.owner().tenantId().equals(caller.tenantId())) {
            throw PaddockException.notFound("terminal", ptyId);
        }
        return s;
    }

    /** A new single-use attach token for the caller's terminal. */
    public AttachToken issueToken(Principal caller, String sandboxId, String ptyId) {
        TerminalSession s = get(caller, sandboxId, ptyId);
        byte[] raw = new byte[32];
        RANDOM.nextBytes(raw);
        String token = "ptt_" + Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
        Instant expires = clock.instant().plus(TOKEN_LIFETIME);
        synchronized (tokens) {
            // unused tokens are bounded per terminal: minting more revokes the oldest, so no client can grow memory
            List<Map.Entry<String, Token>> unused = tokens.entrySet().stream()
                    .filter(e -> e.getValue().sessionId().equals(s.id()))
                    .sorted(Comparator.comparing((Map.Entry<String, Token> e) -> e.getValue().expiresAt())).toList();
            for (int i = 0; i <= unused.size() - MAX_TOKENS_PER_TERMINAL; i++) tokens.remove(unused.get(i).getKey());
            tokens.put(token, new Token(s.id(), expires));
        }
        return new AttachToken(token, expires);
    }

    /** The terminal an attach token is for; the token is used up. */
    public TerminalSession redeem(String sandboxId, String ptyId, String token) {
        Token t = token == null ? null : tokens.remove(token);
        TerminalSession s = t == null ? null : sessions.get(t.sessionId());
        if (t == null || s == null || t.expiresAt().isBefore(clock.instant()) || !s.id().equals(ptyId) || !s.sandboxId().equals(sandboxId)) {
            throw new PaddockException(ErrorCode.INVALID_TERMINAL_TOKEN,
                    "the attach token is unknown, used or expired; get a new one with POST /v1/sandboxes/{id}/pty/{pty_id}/attach_tokens");
        }
        return s;
    }

    /** Attaches a client (replacing any other); use for the caller that presented an API key or a redeemed token. */
    public void attach(TerminalSession s, TerminalViewer v) {
        host.touch(s.owner(), s.sandboxId());
        s.attach(v);
    }

    public void detach(TerminalSession s, TerminalViewer v) {
        s.detach(v, clock.instant());
    }

    /** Counts typing as use of the sandbox (no idle suspend under a terminal in use). */
    public void input(TerminalSession s, byte[] data) throws IOException {
        host.touch(s.owner(), s.sandboxId());
        s.input(data);
    }

    public void kill(Principal caller, String sandboxId, String ptyId) {
        TerminalSession s = get(caller, sandboxId, ptyId);
        sessions.remove(s.id());
        s.kill();
    }

    /** Ends terminals nobody attached to within the grace period, and forgets expired tokens. */
    void sweep() {
        Instant now = clock.instant();
        Instant cutoff = now.minus(grace);
        for (TerminalSession s : sessions.values()) {
            if (s.idleSince(cutoff)) {
                sessions.remove(s.id());
                s.kill();
            }
        }
        tokens.values().removeIf(t -> t.expiresAt().isBefore(now));
    }

    @Override
    public void close() {
        sweeper.shutdownNow();
        sessions.values().forEach(TerminalSession::kill);
        sessions.clear();
    }
}
