package dev.paddock.init;

import java.nio.ByteBuffer;

/**
 * One message of the init protocol: {@code [type u8][length u32 big endian][payload]}. The type letters are
 * shared with init-agent/src/main/c/paddock-init.c; keep the two in step.
 */
public record Frame(byte type, byte[] payload) {
    /** Largest payload either side accepts; anything longer is a protocol violation. */
    public static final int MAX_PAYLOAD = 1 << 20;
    public static final int HEADER = 5;

    // host -> init, first frame of a connection
    public static final byte EXEC = 'E';
    public static final byte BACKGROUND = 'B';
    public static final byte PING = 'Q';
    public static final byte LIST = 'L';
    public static final byte LOGS = 'G';
    public static final byte SIGNAL = 'K';
    /** A command on a new pty: rows u32, cols u32, then the command as for {@link #EXEC}. */
    public static final byte TERMINAL = 'Y';
    // host -> init while a command runs
    public static final byte STDIN = 'I';
    public static final byte STDIN_CLOSE = 'C';
    public static final byte KILL = 'X';
    /** A terminal's new size: rows u32, cols u32 (a terminal's connection only). */
    public static final byte RESIZE = 'W';
    // init -> host
    public static final byte STARTED = 'S';
    public static final byte STDOUT = 'O';
    public static final byte STDERR = 'R';
    public static final byte EXIT = 'T';
    public static final byte FAILED = 'F';
    public static final byte PONG = 'q';
    public static final byte BACKGROUND_STARTED = 'P';
    public static final byte OK = 'K';

    public ByteBuffer encode() {
        ByteBuffer b = ByteBuffer.allocate(HEADER + payload.length);
        b.put(type).putInt(payload.length).put(payload).flip();
        return b;
    }

    public ByteBuffer payloadBuffer() {
        return ByteBuffer.wrap(payload);
    }
}
