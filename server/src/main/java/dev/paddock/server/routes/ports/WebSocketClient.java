package dev.paddock.server.routes.ports;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Locale;

/**
 * The client side of RFC 6455 over a relay's byte streams, for a WebSocket to a server inside a sandbox: the
 * opening handshake (the answer checked like any response head, and its accept key verified) and frames (ours
 * masked; theirs read as hostile: at most {@link #MAX_MESSAGE} bytes per message, control frames small and whole).
 */
final class WebSocketClient {
    static final int MAX_MESSAGE = 1 << 20;
    static final int TEXT = 1, BINARY = 2, CLOSE = 8, PING = 9, PONG = 10, CONTINUATION = 0;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final InputStream in;
    private final OutputStream out;

    /** One whole message (or control frame) from the server. */
    record Message(int opcode, byte[] payload) {}

    WebSocketClient(InputStream in, OutputStream out) {
        this.in = in;
        this.out = out;
    }

    /** Sends the opening handshake for {@code target} and checks the server's answer (101 with the right accept key). */
    void handshake(String target, int port, String origin) throws IOException {
        byte[] nonce = new byte[16];
        RANDOM.nextBytes(nonce);
        String key = Base64.getEncoder().encodeToString(nonce);
        if (target.chars().anyMatch(c -> c <= 0x20 || c == 0x7f)) throw new PaddockException(ErrorCode.BAD_REQUEST, "the path holds characters a request line cannot carry");
        String head = "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: " + key + "\r\nSec-WebSocket-Version: 13\r\n"
                + (origin == null ? "" : "Origin: " + origin + "\r\n") + "\r\n";
        synchronized (out) {
            out.write(head.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
        }
        ResponseHead answer = ResponseHead.read(in);
        if (answer == null) throw ResponseHead.invalid("the server on port " + port + " closed the connection without answering the WebSocket handshake");
        if (answer.status() != 101) throw ResponseHead.invalid("the server on port " + port + " answered the WebSocket handshake with " + answer.status());
        String accept = answer.values("Sec-WebSocket-Accept").stream().findFirst().orElse("");
        if (!accept.equals(acceptKey(key))) throw ResponseHead.invalid("the server on port " + port + " answered the WebSocket handshake with a wrong accept key");
    }

    static String acceptKey(String key) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-1").digest((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").getBytes(StandardCharsets.US_ASCII));
            return Base64.getEncoder().encodeToString(d);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Sends one whole message or control frame, masked as a client must. */
    void send(int opcode, byte[] payload) throws IOException {
        ByteArrayOutputStream f = new ByteArrayOutputStream(payload.length + 14);
        f.write(0x80 | opcode);
        int n = payload.length;
        if (n < 126) f.write(0x80 | n);
        else if (n < 65536) { f.write(0x80 | 126); f.write(n >>> 8); f.write(n); }
        else { f.write(0x80 | 127); for (int i = 7; i >= 0; i--) f.write((int) ((long) n >>> (8 * i))); }
        byte[] mask = new byte[4];
        RANDOM.nextBytes(mask);
        f.write(mask, 0, 4);
        for (int i = 0; i < n; i++) f.write(payload[i] ^ mask[i & 3]);
        synchronized (out) {
            f.writeTo(out);
            out.flush();
        }
    }

    /** The next whole message or control frame; null at the end of the stream. */
    Message read() throws IOException {
        ByteArrayOutputStream message = null;
        int messageOpcode = 0;
        while (true) {
            int b0 = in.read();
            if (b0 < 0) return null;
            int b1 = readByte();
            boolean fin = (b0 & 0x80) != 0;
            int opcode = b0 & 0x0f;
            if ((b0 & 0x70) != 0) throw protocol("reserved bits set");
            long len = b1 & 0x7f;
            if (len == 126) len = (readByte() << 8) | readByte();
            else if (len == 127) {
                len = 0;
                for (int i = 0; i < 8; i++) len = (len << 8) | readByte();
            }
            byte[] mask = null;
            if ((b1 & 0x80) != 0) { mask = new byte[4]; for (int i = 0; i < 4; i++) mask[i] = (byte) readByte(); }
            boolean control = opcode >= 8;
            if (control && (len > 125 || !fin)) throw protocol("a control frame is fragmented or too long");
            if (len < 0 || len > MAX_MESSAGE || (message != null && message.size() + len > MAX_MESSAGE)) throw protocol("a message is over " + MAX_MESSAGE + " bytes");
            byte[] payload = in.readNBytes((int) len);
            if (payload.length != len) return null;
            if (mask != null) for (int i = 0; i < payload.length; i++) payload[i] ^= mask[i & 3];
            if (control) return new Message(opcode, payload);
            if (opcode == CONTINUATION) {
                if (message == null) throw protocol("a continuation frame without a message");
            } else if (opcode == TEXT || opcode == BINARY) {
                if (message != null) throw protocol("a new message inside a fragmented one");
                message = new ByteArrayOutputStream();
                messageOpcode = opcode;
            } else {
                throw protocol("unknown opcode " + opcode);
            }
            message.write(payload);
            if (fin) return new Message(messageOpcode, message.toByteArray());
        }
    }

    private int readByte() throws IOException {
        int b = in.read();
        if (b < 0) throw protocol("the stream ended inside a frame");
        return b;
    }

    private static IOException protocol(String what) {
        return new IOException("WebSocket protocol error from the server inside the sandbox: " + what.toLowerCase(Locale.ROOT));
    }
}
