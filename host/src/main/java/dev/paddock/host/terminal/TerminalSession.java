package dev.paddock.host.terminal;

import dev.paddock.access.Principal;
import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecResult;
import dev.paddock.core.spi.TerminalHandle;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;

/**
 * One terminal: its command, the client attached to it (at most one) and, while nobody is attached, its output up
 * to a cap (the oldest bytes go first). Lives on after a detach or after its command ended until its grace period
 * ends (see {@link TerminalSessions}), so a client that reconnects sees what it missed.
 */
public final class TerminalSession implements ExecOutput {
    public enum Status { RUNNING, EXITED }

    private final String id;
    private final Principal owner;
    private final String sandboxId;
    private final List<String> argv;
    private final Instant createdAt;
    private final int bufferCap;
    private final ArrayDeque<byte[]> missed = new ArrayDeque<>();
    private long missedBytes;
    private boolean truncated;
    private TerminalHandle handle;
    private TerminalViewer viewer;
    private Integer exitCode;
    private boolean exited;
    private int rows;
    private int cols;
    /** When the session is due to end if nobody attaches (null while a client is attached). */
    private Instant idleSince;

    TerminalSession(String id, Principal owner, String sandboxId, List<String> argv, int rows, int cols, Instant createdAt, int bufferCap) {
        this.id = id;
        this.owner = owner;
        this.sandboxId = sandboxId;
        this.argv = List.copyOf(argv);
        this.rows = rows;
        this.cols = cols;
        this.createdAt = createdAt;
        this.bufferCap = bufferCap;
        this.idleSince = createdAt;
    }

    void started(TerminalHandle h) {
        synchronized (this) {
            handle = h;
        }
        Thread.ofVirtual().name("paddock-terminal-exit").start(this::awaitExit);
    }

    private void awaitExit() {
        Integer code;
        try {
            ExecResult r = handle.await();
            code = r.exitCode();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            code = null;
        } catch (RuntimeException e) {
            code = null; // the sandbox ended or became unreachable under the terminal
        }
        TerminalViewer v;
        synchronized (this) {
            exited = true;
            exitCode = code;
            v = viewer;
        }
        if (v != null) v.exited(code);
    }

    public String id() { return id; }

    public String sandboxId() { return sandboxId; }

    Principal owner() { return owner; }

    public synchronized View view() {
        return new View(id, sandboxId, argv, rows, cols, exited ? Status.EXITED : Status.RUNNING, exitCode, viewer != null, createdAt);
    }

    /** What the API shows of a terminal. */
    public record View(String id, String sandboxId, List<String> argv, int rows, int cols, Status status, Integer exitCode,
                       boolean attached, Instant createdAt) {}

    @Override
    public void stdout(byte[] data, int offset, int length) {
        byte[] copy = Arrays.copyOfRange(data, offset, offset + length);
        TerminalViewer v;
        synchronized (this) {
            v = viewer;
            if (v == null) {
                keep(copy);
                return;
            }
        }
        v.output(copy);
    }

    @Override
    public void stderr(byte[] data, int offset, int length) {
        stdout(data, offset, length);
    }

    private void keep(byte[] copy) {
        missed.addLast(copy);
        missedBytes += copy.length;
        while (missedBytes > bufferCap && !missed.isEmpty()) {
            byte[] first = missed.removeFirst();
            missedBytes -= first.length;
            truncated = true;
        }
    }

    /**
     * Attaches {@code v} in place of any earlier client (which is told it was replaced) and hands it, in order,
     * what the terminal wrote while nobody was attached and, if the command has ended, its exit.
     */
    void attach(TerminalViewer v) {
        TerminalViewer old;
        List<byte[]> replay;
        boolean hadTruncation;
        boolean ended;
        Integer code;
        synchronized (this) {
            old = viewer;
            viewer = v;
            idleSince = null;
            replay = List.copyOf(missed);
            missed.clear();
            missedBytes = 0;
            hadTruncation = truncated;
            truncated = false;
            ended = exited;
            code = exitCode;
            // replayed under the lock, so output arriving meanwhile comes after it
            if (old != null) old.replaced();
            if (hadTruncation) v.output("\r\n[paddock: earlier output was dropped while no client was attached]\r\n".getBytes(StandardCharsets.UTF_8));
            for (byte[] b : replay) v.output(b);
            if (ended) v.exited(code);
        }
    }

    /** Detaches {@code v} if it is still the attached client; the grace period starts. */
    synchronized void detach(TerminalViewer v, Instant now) {
        if (viewer != v) return;
        viewer = null;
        idleSince = now;
    }

    /** Whether nobody has been attached since before {@code cutoff}. */
    synchronized boolean idleSince(Instant cutoff) {
        return viewer == null && idleSince != null && idleSince.isBefore(cutoff);
    }

    public void input(byte[] data) throws IOException {
        TerminalHandle h = running();
        h.stdin().write(data);
        h.stdin().flush();
    }

    public void resize(int rows, int cols) {
        TerminalHandle h = running();
        h.resize(rows, cols);
        synchronized (this) {
            this.rows = rows;
            this.cols = cols;
        }
    }

    private synchronized TerminalHandle running() {
        if (exited || handle == null) throw new PaddockException(ErrorCode.TERMINAL_ENDED, "terminal " + id + " has ended" + (exitCode == null ? "" : " with exit code " + exitCode));
        return handle;
    }

    /** Kills the command (and everything it started on the terminal). */
    void kill() {
        TerminalHandle h;
        synchronized (this) {
            h = handle;
        }
        if (h != null) h.kill();
    }
}
