package dev.paddock.init;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.ProcessInfo;
import dev.paddock.core.spi.TerminalRequest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

/**
 * Talks to one sandbox's init agent over its unix socket, one connection per request. Everything the agent
 * sends is treated as hostile: lengths and counts are checked before use and anything unexpected fails.
 */
public final class InitClient {
    /** Bound on one-shot requests so a frozen or wedged sandbox cannot hang a caller. */
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
    private static final int MAX_LOG_BYTES = Frame.MAX_PAYLOAD - 64;

    private final Path socket;

    public InitClient(Path socket) {
        this.socket = socket;
    }

    public Path socket() {
        return socket;
    }

    /** The agent's pid inside the sandbox (1) when it answers within {@code timeout}. */
    public int ping(Duration timeout) {
        Frame f = oneShot(Frame.PING, new byte[0], Frame.PONG, timeout);
        if (f.payload().length != 4) throw InitProtocolException.malformed("ping reply");
        return f.payloadBuffer().getInt();
    }

    /** Starts a command whose output streams to {@code output}; see {@link InitExec}. */
    public InitExec exec(ExecRequest request, ExecOutput output, LongSupplier oomCounter) {
        // init kills at the deadline plus a grace as a backstop; the handle kills at the deadline itself
        byte[] payload = CommandEncoder.encode(request, request.timeout().plus(InitExec.KILL_GRACE));
        return InitExec.start(InitConnection.open(socket), payload, request, output, oomCounter);
    }

    /** Starts a command on a new pty inside the sandbox; see {@link InitExec#startInteractive}. */
    public InitExec terminal(TerminalRequest request, ExecOutput output, LongSupplier oomCounter) {
        byte[] command = CommandEncoder.encode(request.command(), Duration.ZERO);
        byte[] payload = ByteBuffer.allocate(8 + command.length).putInt(request.rows()).putInt(request.cols()).put(command).array();
        InitExec exec = InitExec.startInteractive(InitConnection.open(socket), Frame.TERMINAL, payload, output, oomCounter);
        exec.awaitStart(REQUEST_TIMEOUT, "the terminal");
        return exec;
    }

    /**
     * A relay to {@code 127.0.0.1:port} of the sandbox's network namespace: init's own {@code connect tcp:PORT} run
     * inside like any command, so the connection is made in the sandbox, with nothing changed about its network.
     */
    public InitExec connectPort(int port, ExecOutput output, LongSupplier oomCounter) {
        if (port < 1 || port > 65535) throw new PaddockException(ErrorCode.INVALID_PORT, "port must be 1 to 65535, got " + port);
        ExecRequest relay = new ExecRequest(List.of(SandboxLayout.INIT_PATH, "connect", "tcp:" + port, "0"), Map.of(), "/", Duration.ZERO, null);
        return InitExec.startInteractive(InitConnection.open(socket), Frame.EXEC, CommandEncoder.encode(relay, Duration.ZERO), output, oomCounter);
    }

    /** Starts a detached command; returns its pid inside the sandbox. */
    public long startBackground(ExecRequest request) {
        Frame f = oneShot(Frame.BACKGROUND, CommandEncoder.encode(request, Duration.ZERO), Frame.BACKGROUND_STARTED, REQUEST_TIMEOUT);
        if (f.payload().length != 4) throw InitProtocolException.malformed("start reply");
        return Integer.toUnsignedLong(f.payloadBuffer().getInt());
    }

    public List<ProcessInfo> processes() {
        Frame f = oneShot(Frame.LIST, new byte[0], Frame.LIST, REQUEST_TIMEOUT);
        try {
            ByteBuffer b = f.payloadBuffer();
            int count = b.getInt();
            if (count < 0 || count > 1024) throw InitProtocolException.malformed("process list");
            List<ProcessInfo> out = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                long pid = Integer.toUnsignedLong(b.getInt());
                boolean running = b.get() != 0;
                int code = b.getInt();
                b.getInt(); // signal, folded into code (128 + signal)
                b.get();    // timed out: background processes have no timeout
                Instant started = Instant.ofEpochMilli(b.getLong());
                b.getLong(); // bytes of output so far
                int argvLength = b.getInt();
                if (argvLength < 0 || argvLength > b.remaining()) throw InitProtocolException.malformed("process list");
                List<String> argv = CommandEncoder.decodeArgv(b.slice(b.position(), argvLength));
                b.position(b.position() + argvLength);
                out.add(new ProcessInfo(pid, argv, started, running, running ? null : code));
            }
            return out;
        } catch (RuntimeException e) {
            if (e instanceof PaddockException p) throw p;
            throw InitProtocolException.malformed("process list");
        }
    }

    public byte[] logs(long pid, long offset, int maxBytes) {
        ByteBuffer req = ByteBuffer.allocate(16).putInt((int) pid).putLong(Math.max(0, offset)).putInt(Math.min(Math.max(0, maxBytes), MAX_LOG_BYTES));
        Frame f = oneShot(Frame.LOGS, req.array(), Frame.LOGS, REQUEST_TIMEOUT);
        if (f.payload().length < 8 || f.payload().length - 8 > maxBytes) throw InitProtocolException.malformed("log reply");
        byte[] out = new byte[f.payload().length - 8];
        System.arraycopy(f.payload(), 8, out, 0, out.length);
        return out;
    }

    public void signal(long pid, int signal) {
        ByteBuffer req = ByteBuffer.allocate(8).putInt((int) pid).putInt(signal);
        oneShot(Frame.SIGNAL, req.array(), Frame.OK, REQUEST_TIMEOUT);
    }

    private Frame oneShot(byte type, byte[] payload, byte expected, Duration timeout) {
        try (InitConnection c = InitConnection.open(socket)) {
            // set before the close, so a read that the close ends sees it (the future is not done until the close returns)
            AtomicBoolean fired = new AtomicBoolean();
            ScheduledFuture<?> watchdog = c.schedule(() -> {
                fired.set(true);
                c.close();
            }, timeout);
            try {
                c.send(type, payload);
                Frame f = c.read();
                if (f == null) throw new IOException("the agent closed the connection");
                if (f.type() == Frame.FAILED) throw refused(f);
                if (f.type() != expected) throw InitProtocolException.malformed("reply");
                return f;
            } catch (IOException e) {
                // the watchdog closed the connection: the agent is there but did not answer
                if (fired.get()) throw InitProtocolException.noAnswer("the sandbox agent did not answer within " + timeout.toMillis() + " ms");
                throw e;
            } finally {
                watchdog.cancel(false);
            }
        } catch (IOException e) {
            throw InitProtocolException.unreachable(e);
        }
    }

    static PaddockException refused(Frame f) {
        String msg = new String(f.payload(), 0, Math.min(f.payload().length, 200), StandardCharsets.UTF_8);
        if (msg.startsWith("no such background process")) return new PaddockException(ErrorCode.NOT_FOUND, "the sandbox has no background process with that pid");
        return new PaddockException(ErrorCode.SANDBOX_REFUSED, "the sandbox agent refused the request: " + Text.clip(msg, 200));
    }
}
