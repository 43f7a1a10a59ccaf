package dev.paddock.egress.proxy;

import java.io.Closeable;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Field;
import java.nio.channels.SocketChannel;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The bytes of a CONNECT tunnel moved by the kernel: {@code splice(2)} from one socket into a pipe and from the pipe
 * into the other socket, so they are never copied into this process (a user-space relay copies each byte twice
 * more and made the proxy CPU-bound). Each direction runs on a platform thread of its own blocked in
 * {@code splice}: a native call would pin a virtual thread's carrier. The relay works on duplicates of the
 * channels' descriptors, so a channel closed meanwhile (the watchdog, the other direction failing) can never leave
 * a descriptor number that a later open reuses; closing the relay shuts both sockets down, which wakes both
 * threads. Needs {@code --add-opens java.base/sun.nio.ch=ALL-UNNAMED} to read the descriptors; without it
 * {@link #tryRun} declines and the proxy copies through a buffer as before. It also declines past
 * {@link #MAX_SPLICED} tunnels at once: two platform threads (and two pids) per tunnel would not scale to thousands
 * of idle keep-alive tunnels, which copy on virtual threads instead.
 */
final class SpliceRelay implements Closeable {
    private static final Logger log = LoggerFactory.getLogger(SpliceRelay.class);
    /** Bytes asked for per splice; the pipe is grown to hold as much. */
    private static final int CHUNK = 1 << 20;
    /** No SPLICE_F_MORE: it would let TCP hold back a partial segment, a delay for interactive traffic. */
    private static final int SPLICE_F_MOVE = 1;
    private static final int O_CLOEXEC = 0x80000, F_GETFL = 3, F_SETFL = 4, F_SETPIPE_SZ = 1031, O_NONBLOCK = 0x800;
    private static final int SHUT_WR = 1, SHUT_RDWR = 2;
    private static final int EINTR = 4;
    private static final long STACK = 256 * 1024;
    static final int MAX_SPLICED = 64;
    private static final Semaphore SLOTS = new Semaphore(MAX_SPLICED);

    private static final Field FD_VAL;
    private static final MethodHandle SPLICE, PIPE2, FCNTL, DUP, SHUTDOWN, CLOSE;
    private static final StructLayout CAPTURE;
    private static final VarHandle ERRNO;

    static {
        Field fd = null;
        MethodHandle splice = null, pipe2 = null, fcntl = null, dup = null, shutdown = null, close = null;
        StructLayout capture = null;
        VarHandle errno = null;
        try {
            fd = Class.forName("sun.nio.ch.SocketChannelImpl").getDeclaredField("fdVal");
            fd.setAccessible(true);
            Linker linker = Linker.nativeLinker();
            capture = Linker.Option.captureStateLayout();
            errno = capture.varHandle(MemoryLayout.PathElement.groupElement("errno"));
            Linker.Option err = Linker.Option.captureCallState("errno");
            var libc = linker.defaultLookup();
            splice = linker.downcallHandle(libc.findOrThrow("splice"),
                    FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT), err);
            pipe2 = linker.downcallHandle(libc.findOrThrow("pipe2"), FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
            fcntl = linker.downcallHandle(libc.findOrThrow("fcntl"), FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT),
                    Linker.Option.firstVariadicArg(2));
            dup = linker.downcallHandle(libc.findOrThrow("dup"), FunctionDescriptor.of(JAVA_INT, JAVA_INT));
            shutdown = linker.downcallHandle(libc.findOrThrow("shutdown"), FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
            close = linker.downcallHandle(libc.findOrThrow("close"), FunctionDescriptor.of(JAVA_INT, JAVA_INT));
        } catch (ReflectiveOperationException | RuntimeException e) {
            // not Linux, no native access, or sun.nio.ch not opened: the buffer relay serves instead
            log.info("egress tunnels copy through the proxy (splice relay unavailable: {})", e.toString());
            fd = null;
        }
        FD_VAL = fd;
        SPLICE = splice;
        PIPE2 = pipe2;
        FCNTL = fcntl;
        DUP = dup;
        SHUTDOWN = shutdown;
        CLOSE = close;
        CAPTURE = capture;
        ERRNO = errno;
    }

    /** Whether a tunnel between these two channels can be spliced in this JVM. */
    static boolean available(SocketChannel a, SocketChannel b) {
        return FD_VAL != null && FD_VAL.getDeclaringClass().isInstance(a) && FD_VAL.getDeclaringClass().isInstance(b);
    }

    /** Counts what one direction moved; called after each splice out of the pipe. */
    interface Moved {
        void add(int bytes);
    }

    private final int client, upstream;
    private boolean closed;

    private SpliceRelay(int client, int upstream) {
        this.client = client;
        this.upstream = upstream;
    }

    /**
     * Relays both directions until both ends have finished or the relay is closed (attach it to the connection's
     * activity so the watchdog's close stops it); half-closes each destination at its source's end of stream. False,
     * having done nothing, where this JVM cannot splice or {@link #MAX_SPLICED} tunnels are spliced already.
     */
    static boolean tryRun(SocketChannel client, SocketChannel upstream, Activity activity, Moved up, Moved down) throws IOException {
        if (!available(client, upstream) || !SLOTS.tryAcquire()) return false;
        try {
            run(client, upstream, activity, up, down);
            return true;
        } finally {
            SLOTS.release();
        }
    }

    private static void run(SocketChannel client, SocketChannel upstream, Activity activity, Moved up, Moved down) throws IOException {
        SpliceRelay relay = open(client, upstream);
        activity.attach(relay);
        try {
            Thread downward = Thread.ofPlatform().daemon().name("egress-splice-down").stackSize(STACK)
                    .start(() -> relay.pump(relay.upstream, relay.client, activity, down));
            Thread upward = Thread.ofPlatform().daemon().name("egress-splice-up").stackSize(STACK)
                    .start(() -> relay.pump(relay.client, relay.upstream, activity, up));
            joinUninterruptibly(upward);
            joinUninterruptibly(downward);
        } finally {
            relay.release();
        }
    }

    private static SpliceRelay open(SocketChannel client, SocketChannel upstream) throws IOException {
        int c = dup(fdOf(client));
        int u;
        try {
            u = dup(fdOf(upstream));
        } catch (IOException e) {
            closeFd(c);
            throw e;
        }
        // a channel marks itself closed before it closes its descriptor: open after the dup means the dup is of this
        // channel's socket, not of a number that a close (the watchdog's) freed and an open elsewhere reused
        if (!client.isOpen() || !upstream.isOpen()) {
            closeFd(c);
            closeFd(u);
            throw new IOException("the tunnel was closed before it started");
        }
        // the duplicates share the sockets' status flags: the JDK set them non-blocking for virtual threads, and
        // these threads block in the kernel instead; the channels are not read or written any more
        blocking(c);
        blocking(u);
        return new SpliceRelay(c, u);
    }

    private void pump(int from, int to, Activity activity, Moved moved) {
        int[] pipe = null;
        try {
            pipe = pipe();
            for (;;) {
                long n = splice(from, pipe[1], CHUNK);
                if (n == 0) break;
                while (n > 0) {
                    long m = splice(pipe[0], to, n);
                    if (m == 0) throw new IOException("splice into the socket made no progress");
                    n -= m;
                    moved.add((int) m);
                    activity.touch();
                }
            }
            shutdown(to, SHUT_WR);
        } catch (IOException e) {
            // one side failed or the relay was closed: stop the other direction too
            activity.closeAll();
        } finally {
            if (pipe != null) {
                closeFd(pipe[0]);
                closeFd(pipe[1]);
            }
        }
    }

    /** Shuts both sockets down (waking both threads); the descriptors stay open until the relay has ended. */
    @Override
    public synchronized void close() {
        if (closed) return;
        shutdown(client, SHUT_RDWR);
        shutdown(upstream, SHUT_RDWR);
    }

    private synchronized void release() {
        if (closed) return;
        closed = true;
        closeFd(client);
        closeFd(upstream);
    }

    private static int fdOf(SocketChannel ch) throws IOException {
        try {
            return FD_VAL.getInt(ch);
        } catch (IllegalAccessException | IllegalArgumentException e) {
            throw new IOException("no descriptor for " + ch.getClass().getName(), e);
        }
    }

    private static long splice(int in, int out, long len) throws IOException {
        for (;;) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment state = arena.allocate(CAPTURE);
                long n = (long) SPLICE.invokeExact(state, in, MemorySegment.NULL, out, MemorySegment.NULL, len, SPLICE_F_MOVE);
                if (n >= 0) return n;
                int errno = (int) ERRNO.get(state, 0L);
                if (errno != EINTR) throw new IOException("splice failed: errno " + errno);
            } catch (IOException | RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IOException("splice could not be called", t);
            }
        }
    }

    private static int[] pipe() throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment fds = arena.allocate(JAVA_INT, 2);
            if ((int) PIPE2.invokeExact(fds, O_CLOEXEC) != 0) throw new IOException("pipe2 failed");
            int[] pipe = {fds.getAtIndex(JAVA_INT, 0), fds.getAtIndex(JAVA_INT, 1)};
            int ignored = (int) FCNTL.invokeExact(pipe[1], F_SETPIPE_SZ, CHUNK); // best effort: the default 64 KiB works too
            return pipe;
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("pipe2 could not be called", t);
        }
    }

    private static int dup(int fd) throws IOException {
        try {
            int d = (int) DUP.invokeExact(fd);
            if (d < 0) throw new IOException("dup failed");
            // dup does not copy close-on-exec: set it, so no child process started meanwhile inherits the socket
            int ignored = (int) FCNTL.invokeExact(d, 2 /* F_SETFD */, 1 /* FD_CLOEXEC */);
            return d;
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("dup could not be called", t);
        }
    }

    private static void blocking(int fd) throws IOException {
        try {
            int flags = (int) FCNTL.invokeExact(fd, F_GETFL, 0);
            if (flags < 0 || (int) FCNTL.invokeExact(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) throw new IOException("fcntl failed");
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("fcntl could not be called", t);
        }
    }

    private static void shutdown(int fd, int how) {
        try {
            int ignored = (int) SHUTDOWN.invokeExact(fd, how);
        } catch (Throwable t) {
            // not connected any more: nothing to shut down
        }
    }

    private static void closeFd(int fd) {
        try {
            int ignored = (int) CLOSE.invokeExact(fd);
        } catch (Throwable t) {
            // Linux frees the descriptor even when close fails
        }
    }

    private static void joinUninterruptibly(Thread t) {
        boolean interrupted = false;
        while (true) {
            try {
                t.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
    }
}
