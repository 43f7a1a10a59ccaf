package dev.paddock.server.routes;

import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecResult;
import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Hands a command's output, and then how it ended (or why that could not be known), from the driver's threads to the thread writing the event
 * stream, in that order. The queue is bounded: a slow client slows the command (as a full pipe would) instead of
 * filling the server's memory. Once closed, everything is dropped so a driver thread never waits on a client that left.
 */
final class EventQueue implements ExecOutput {
    sealed interface Item permits Chunk, Exit, Failed {}

    record Chunk(String stream, byte[] data) implements Item {}

    /** The last item: the command ended. */
    record Exit(ExecResult result) implements Item {}

    /** The last item: waiting for the command failed (e.g. its sandbox became unreachable). */
    record Failed(RuntimeException error) implements Item {}

    private final BlockingQueue<Item> queue = new ArrayBlockingQueue<>(256);
    private volatile boolean closed;

    @Override
    public void stdout(byte[] data, int offset, int length) {
        put(new Chunk("stdout", Arrays.copyOfRange(data, offset, offset + length)));
    }

    @Override
    public void stderr(byte[] data, int offset, int length) {
        put(new Chunk("stderr", Arrays.copyOfRange(data, offset, offset + length)));
    }

    /** Called once the command has ended, after all of its output. */
    void exited(ExecResult result) {
        put(new Exit(result));
    }

    /** Called instead of {@link #exited} when the wait for the end failed. */
    void failed(RuntimeException error) {
        put(new Failed(error));
    }

    BlockingQueue<Item> items() {
        return queue;
    }

    void close() {
        closed = true;
        queue.clear();
    }

    private void put(Item item) {
        try {
            while (!closed) {
                if (queue.offer(item, 100, TimeUnit.MILLISECONDS)) return;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
