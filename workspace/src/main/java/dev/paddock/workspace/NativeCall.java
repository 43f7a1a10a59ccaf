package dev.paddock.workspace;

import dev.paddock.core.OffCarrier;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * C library calls through the FFM API, the one place that builds them: a downcall whose errno is captured
 * (the JVM may overwrite errno between the call and our read of it), the EINTR retry, and close.
 *
 * <p>A downcall pins the carrier of a virtual thread for as long as it runs, and the server's requests run on
 * virtual threads over as many carriers as there are cores: two requests in fsync or a slow openat (a bulk archive
 * import on a 2-core host) held every carrier and stalled every other request, health included, for most of a
 * minute. So every call runs through {@link OffCarrier}.
 */
public final class NativeCall {
    private NativeCall() {}

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle CLOSE = downcall("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));

    /** The C library function {@code name}; its handle takes the errno capture segment as first argument. */
    public static MethodHandle downcall(String name, FunctionDescriptor descriptor) {
        return downcall(name, descriptor, -1);
    }

    /** Like {@link #downcall(String, FunctionDescriptor)} for a variadic function with {@code firstVariadic} fixed arguments. */
    @SuppressWarnings("restricted") // the point of this class; the JVM needs --enable-native-access
    public static MethodHandle downcall(String name, FunctionDescriptor descriptor, int firstVariadic) {
        Linker.Option capture = Linker.Option.captureCallState("errno");
        MemorySegment symbol = LINKER.defaultLookup().findOrThrow(name);
        return firstVariadic < 0
                ? LINKER.downcallHandle(symbol, descriptor, capture)
                : LINKER.downcallHandle(symbol, descriptor, capture, Linker.Option.firstVariadicArg(firstVariadic));
    }

    /**
     * One invocation of a downcall: {@code state} is the errno capture segment, {@code arena} lives for the call.
     * Every segment the call touches comes from {@code arena} (results are copied out inside the call): it may run
     * on another thread than the caller's, where the caller's confined segments are out of reach.
     */
    @FunctionalInterface
    public interface Call {
        long invoke(MemorySegment state, Arena arena) throws Throwable;
    }

    /** Runs a call, retrying on EINTR; a negative result becomes an {@link Errno}. Off the carrier when on a virtual thread. */
    public static long call(String name, Call call) {
        return OffCarrier.run(() -> callHere(name, call));
    }

    private static long callHere(String name, Call call) {
        for (;;) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment state = arena.allocate(CAPTURE);
                long result = call.invoke(state, arena);
                if (result >= 0) return result;
                int errno = (int) ERRNO.get(state, 0L);
                if (errno != Errno.EINTR) throw new Errno(name, errno);
            } catch (RuntimeException e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException(name + " could not be called", t);
            }
        }
    }

    /** close(2), never retried: Linux frees the descriptor even when close is interrupted. */
    public static void close(int fd) {
        OffCarrier.run(() -> {
            try (Arena arena = Arena.ofConfined()) {
                return (int) CLOSE.invokeExact(arena.allocate(CAPTURE), fd);
            } catch (Throwable t) {
                throw new IllegalStateException("close could not be called", t);
            }
        });
    }
}
