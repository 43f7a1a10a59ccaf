package dev.paddock.server.routes;

import dev.paddock.core.spi.ExecOutput;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Hands a command's output from the driver's threads to the thread writing the event stream. The queue is bounded:
 * a slow client slows the command (as a full pipe would) instead of filling the server's memory. Once closed,
 * output is dropped so a driver thread never waits on a client that left.
 */
final class EventQueue implements ExecOutput {
    record Chunk(String stream, byte[] data) {}

    private final BlockingQueue<Chunk> queue = new ArrayBlockingQueue<>(256);
    private volatile boolean closed;

    @Override
    public void stdout(byte[] data, int offset, int length) {
        put(new Chunk("stdout", Arrays.copyOfRange(data, offset, offset + length)));
    }

    @Override
    public void stderr(byte[] data, int offset, int length) {
        put(new Chunk("stderr", Arrays.copyOfRange(data, offset, offset + length)));
    }

    Chunk poll(Duration wait) throws InterruptedException {
        return queue.poll(wait.toMillis(), TimeUnit.MILLISECONDS);
    }

    Chunk pollNow() {
        return queue.poll();
    }

    void close() {
        closed = true;
        queue.clear();
    }

    private void put(Chunk c) {
        try {
            while (!closed) {
                if (queue.offer(c, 100, TimeUnit.MILLISECONDS)) return;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
