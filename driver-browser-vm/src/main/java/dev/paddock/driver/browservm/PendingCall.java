package dev.paddock.driver.browservm;

import java.io.ByteArrayOutputStream;
import java.util.concurrent.CompletableFuture;

/**
 * One op waiting for its result. Chunks must arrive in order per stream and stay under {@code maxBytes} in total:
 * a tab that sends more fails only its own call.
 */
final class PendingCall {
    final String requestId;
    final String sandboxId;
    final CompletableFuture<Reply> future = new CompletableFuture<>();
    /** Set when the op never left: the socket was closed or died under the send. */
    volatile boolean undelivered;
    private final long maxBytes;
    private final ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    private final ByteArrayOutputStream data = new ByteArrayOutputStream();
    private int nextSeq;
    private long total;

    PendingCall(String requestId, String sandboxId, long maxBytes) {
        this.requestId = requestId;
        this.sandboxId = sandboxId;
        this.maxBytes = maxBytes;
    }

    synchronized void chunk(Frames.Chunk c) throws FrameException {
        if (c.seq() != nextSeq) throw new FrameException("malformed_frame", "chunk " + c.seq() + " arrived, expected " + nextSeq, requestId);
        nextSeq++;
        total += c.data().length;
        if (total > maxBytes) throw new FrameException("output_too_large", "the result is larger than " + maxBytes + " bytes", requestId);
        (switch (c.stream()) { case "stdout" -> stdout; case "stderr" -> stderr; default -> data; }).write(c.data(), 0, c.data().length);
    }

    synchronized Reply finish(Frames.Result r) throws FrameException {
        if (r.chunks() != nextSeq) throw new FrameException("malformed_frame", "result announces " + r.chunks() + " chunks, " + nextSeq + " arrived", requestId);
        long inline = (r.stdout() == null ? 0 : r.stdout().length) + (r.stderr() == null ? 0 : r.stderr().length);
        if (total + inline > maxBytes) throw new FrameException("output_too_large", "the result is larger than " + maxBytes + " bytes", requestId);
        if (r.stdout() != null) stdout.write(r.stdout(), 0, r.stdout().length);
        if (r.stderr() != null) stderr.write(r.stderr(), 0, r.stderr().length);
        return new Reply(r.exitCode(), stdout.toByteArray(), stderr.toByteArray(), data.toByteArray(), r.entry(), r.entries(), r.path());
    }
}
