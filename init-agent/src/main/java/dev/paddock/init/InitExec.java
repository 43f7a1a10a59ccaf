package dev.paddock.init;

import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.TerminalHandle;
import dev.paddock.core.spi.TerminalRequest;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.ExecResult;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

/**
 * A command running inside a sandbox, on its own connection to init. A virtual thread reads the output frames;
 * the timeout is enforced here by sending a kill (init kills on its own {@link #KILL_GRACE} later as a backstop).
 * Closing the connection also makes init kill the command's process group.
 */
public final class InitExec implements TerminalHandle {
    static final Duration KILL_GRACE = Duration.ofSeconds(2);
    private static final int STDIN_CHUNK = 64 * 1024;
    private static final int SIGKILL = 9;

    private final InitConnection connection;
    private final ExecOutput output;
    private final LongSupplier oomCounter;
    private final long oomBefore;
    private final long startNanos = System.nanoTime();
    private final CompletableFuture<ExecResult> result = new CompletableFuture<>();
    private final StdinStream stdin = new StdinStream();
    private final boolean terminal;
    private volatile boolean timedOut;
    private volatile boolean killed;
    /** Init reported that the command started (a start frame). */
    private volatile boolean started;
    /** Completes at the start frame, or when the stream ends without one. */
    private final CompletableFuture<Void> startedOrEnded = new CompletableFuture<>();
    private ScheduledFuture<?> timer;

    private InitExec(InitConnection connection, ExecOutput output, LongSupplier oomCounter, boolean terminal) {
        this.connection = connection;
        this.terminal = terminal;
        this.output = output == null ? ExecOutput.DISCARD : output;
        this.oomCounter = oomCounter;
        this.oomBefore = oomCounter.getAsLong();
    }

    static InitExec start(InitConnection c, byte[] payload, ExecRequest request, ExecOutput output, LongSupplier oomCounter) {
        InitExec exec = new InitExec(c, output, oomCounter, false);
        try {
            c.send(Frame.EXEC, payload);
        } catch (IOException e) {
            c.close();
            throw InitProtocolException.unreachable(e);
        }
        exec.timer = c.schedule(exec::onTimeout, request.timeout());
        Thread.ofVirtual().name("paddock-exec-reader").start(exec::readLoop);
        byte[] in = request.stdin();
        if (in != null && in.length > 0) {
            // a writer of its own: a command that does not read must not block exec()
            Thread.ofVirtual().name("paddock-exec-stdin").start(() -> exec.feed(in));
        } else {
            exec.feed(null);
        }
        return exec;
    }

    /**
     * Starts a stream whose stdin stays open until closed and which has no timeout: a command on a terminal
     * ({@link Frame#TERMINAL}) or a relay to a port (an {@link Frame#EXEC} of init's {@code connect}).
     */
    static InitExec startInteractive(InitConnection c, byte type, byte[] payload, ExecOutput output, LongSupplier oomCounter) {
        InitExec exec = new InitExec(c, output, oomCounter, type == Frame.TERMINAL);
        try {
            c.send(type, payload);
        } catch (IOException e) {
            c.close();
            throw InitProtocolException.unreachable(e);
        }
        Thread.ofVirtual().name("paddock-interactive-reader").start(exec::readLoop);
        return exec;
    }

    @Override
    public void resize(int rows, int cols) {
        if (!terminal) throw new IllegalStateException("only a terminal can be resized");
        TerminalRequest.requireSize(rows, cols);
        try {
            connection.send(Frame.RESIZE, ByteBuffer.allocate(8).putInt(rows).putInt(cols).array());
        } catch (IOException e) {
            throw InitProtocolException.unreachable(e);
        }
    }

    /** Sends the request's stdin then end-of-file. A command that ended early makes init drop the rest: not an error. */
    private void feed(byte[] in) {
        try {
            if (in != null) {
                for (int off = 0; off < in.length; off += STDIN_CHUNK) {
                    connection.send(Frame.STDIN, Arrays.copyOfRange(in, off, Math.min(in.length, off + STDIN_CHUNK)));
                }
            }
            stdin.close();
        } catch (IOException ignored) {
            // the reader reports how the command ended
        }
    }

    private void readLoop() {
        try {
            for (Frame f; (f = connection.read()) != null; ) {
                byte[] p = f.payload();
                switch (f.type()) {
                    case Frame.STARTED -> {
                        if (p.length != 4) throw InitProtocolException.malformed("start frame");
                        started = true;
                        startedOrEnded.complete(null);
                    }
                    case Frame.STDOUT -> output.stdout(p, 0, p.length);
                    case Frame.STDERR -> output.stderr(p, 0, p.length);
                    case Frame.EXIT -> { finish(p); return; }
                    case Frame.FAILED -> { result.completeExceptionally(InitClient.refused(f)); return; }
                    default -> throw InitProtocolException.malformed("frame type");
                }
            }
            ended(null);
        } catch (IOException | RuntimeException e) {
            ended(e);
        } finally {
            if (timer != null) timer.cancel(false);
            connection.close();
            startedOrEnded.complete(null);
        }
    }

    /**
     * Waits until init has started the command, so a terminal is answered only once it runs. A request init refused
     * is thrown as such; one init did not take within {@code timeout} (a frozen init) is cancelled, and init does
     * not start a request whose caller has hung up.
     */
    void awaitStart(Duration timeout, String what) {
        try {
            startedOrEnded.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            connection.close();
            throw InitProtocolException.noAnswer("the sandbox agent did not start " + what + " within " + timeout.toMillis() + " ms; it was cancelled and will not start");
        } catch (InterruptedException e) {
            connection.close();
            Thread.currentThread().interrupt();
            throw InitProtocolException.unreachable(e);
        } catch (ExecutionException e) {
            throw unwrap(e);
        }
        if (!started && result.state() == Future.State.FAILED) {
            throw result.exceptionNow() instanceof RuntimeException r ? r : InitProtocolException.unreachable(result.exceptionNow());
        }
    }

    private void finish(byte[] p) {
        if (p.length != 9) throw InitProtocolException.malformed("exit frame");
        ByteBuffer b = ByteBuffer.wrap(p);
        int code = b.getInt(), signal = b.getInt();
        boolean initTimedOut = b.get() != 0;
        result.complete(new ExecResult(code, signal, timedOut || initTimedOut, oomCounter.getAsLong() > oomBefore, elapsed()));
    }

    /**
     * The connection ended without an exit frame: after our own kill that is a kill (init kills the command when its
     * connection drops); after the timeout, init did not confirm the kill within the grace, so how the command ended
     * is not known and none is made up; otherwise the sandbox died.
     */
    private void ended(Exception cause) {
        if (result.isDone()) return;
        if (killed) {
            result.complete(new ExecResult(128 + SIGKILL, SIGKILL, timedOut, oomCounter.getAsLong() > oomBefore, elapsed()));
        } else if (timedOut) {
            result.completeExceptionally(InitProtocolException.noAnswer(started
                    ? "the command outlived its timeout and the sandbox agent did not confirm its kill; it may still be running"
                    : "the sandbox agent did not start the command within its timeout; it was cancelled and will not start"));
        } else {
            result.completeExceptionally(cause instanceof PaddockException p ? p
                    : InitProtocolException.unreachable(cause == null ? new IOException("the agent closed the connection") : cause));
        }
    }

    private void onTimeout() {
        timedOut = true;
        sendKill();
        // a frozen or wedged sandbox may never answer: give up on it after the grace
        connection.schedule(connection::close, KILL_GRACE.multipliedBy(2));
    }

    private Duration elapsed() {
        return Duration.ofNanos(System.nanoTime() - startNanos);
    }

    private void sendKill() {
        try {
            if (connection.trySend(Frame.KILL, new byte[0], Duration.ofMillis(200))) return;
        } catch (IOException ignored) {
            // fall through
        }
        connection.close(); // init kills the command when its connection drops
    }

    @Override
    public OutputStream stdin() {
        return stdin;
    }

    @Override
    public ExecResult await() throws InterruptedException {
        try {
            return result.get();
        } catch (ExecutionException e) {
            throw unwrap(e);
        }
    }

    @Override
    public ExecResult await(Duration wait) throws InterruptedException {
        try {
            return result.get(Math.max(0, wait.toNanos()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            return null;
        } catch (ExecutionException e) {
            throw unwrap(e);
        }
    }

    private static RuntimeException unwrap(ExecutionException e) {
        return e.getCause() instanceof RuntimeException r ? r : InitProtocolException.unreachable(e.getCause());
    }

    @Override
    public void kill() {
        if (result.isDone()) return;
        killed = true;
        sendKill();
    }

    /** Stdin as frames. The request's stdin (or nothing) is sent at start and then closed, so this is closed too. */
    private final class StdinStream extends OutputStream {
        private boolean closed;

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) throws IOException {
            if (closed) throw new IOException("stdin is closed: pass the input as ExecRequest.stdin");
            for (int i = 0; i < len; i += STDIN_CHUNK) {
                connection.send(Frame.STDIN, Arrays.copyOfRange(b, off + i, off + Math.min(len, i + STDIN_CHUNK)));
            }
        }

        @Override
        public synchronized void close() throws IOException {
            if (closed) return;
            closed = true;
            connection.send(Frame.STDIN_CLOSE, new byte[0]);
        }
    }
}
