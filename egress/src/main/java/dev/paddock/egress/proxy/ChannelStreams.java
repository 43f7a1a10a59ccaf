package dev.paddock.egress.proxy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.util.function.LongConsumer;

/**
 * Plain streams over a blocking channel (TCP, unix-domain, or the decrypted side of an intercepted TLS session)
 * that report activity and count bytes. Reads and writes take no shared lock, so one thread may read while another
 * writes ({@code Channels.newInputStream} would serialise them on the channel's blocking lock).
 */
final class ChannelStreams {
    private ChannelStreams() {}

    static InputStream input(ByteChannel ch, Activity activity, LongConsumer counter) {
        return new InputStream() {
            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                int n = read(one, 0, 1);
                return n < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (len == 0) return 0;
                int n = ch.read(ByteBuffer.wrap(b, off, len));
                if (n > 0) {
                    activity.touch();
                    counter.accept(n);
                }
                return n;
            }

            @Override
            public void close() throws IOException { ch.close(); }
        };
    }

    static OutputStream output(ByteChannel ch, Activity activity, LongConsumer counter) {
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException { write(new byte[] {(byte) b}, 0, 1); }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                ByteBuffer buf = ByteBuffer.wrap(b, off, len);
                while (buf.hasRemaining()) {
                    ch.write(buf);
                    activity.touch();
                }
                counter.accept(len);
            }

            @Override
            public void close() throws IOException { ch.close(); }
        };
    }

    /** Counts and reports activity for streams that are not channels (TLS sockets). */
    static InputStream metered(InputStream in, Activity activity, LongConsumer counter) {
        return new InputStream() {
            @Override
            public int read() throws IOException {
                int b = in.read();
                if (b >= 0) { activity.touch(); counter.accept(1); }
                return b;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                int n = in.read(b, off, len);
                if (n > 0) { activity.touch(); counter.accept(n); }
                return n;
            }

            @Override
            public void close() throws IOException { in.close(); }
        };
    }

    static OutputStream metered(OutputStream out, Activity activity, LongConsumer counter) {
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException { out.write(b); activity.touch(); counter.accept(1); }

            @Override
            public void write(byte[] b, int off, int len) throws IOException { out.write(b, off, len); activity.touch(); counter.accept(len); }

            @Override
            public void flush() throws IOException { out.flush(); }

            @Override
            public void close() throws IOException { out.close(); }
        };
    }
}
