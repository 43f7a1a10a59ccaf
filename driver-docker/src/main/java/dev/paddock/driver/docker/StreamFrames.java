package dev.paddock.driver.docker;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The engine's multiplexed output of a container without a terminal (logs, exec): frames of an 8-byte header
 * (stream, three zero bytes, big-endian length) and the payload. Read here as one text, stdout and stderr in order.
 */
final class StreamFrames {
    private StreamFrames() {}

    static String text(byte[] raw) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int i = 0;
        while (i + 8 <= raw.length) {
            int len = ((raw[i + 4] & 0xff) << 24) | ((raw[i + 5] & 0xff) << 16) | ((raw[i + 6] & 0xff) << 8) | (raw[i + 7] & 0xff);
            if (raw[i] > 2 || raw[i + 1] != 0 || len < 0 || i + 8 + len > raw.length) {
                return new String(raw, StandardCharsets.UTF_8); // not framed: the output of a terminal
            }
            out.write(raw, i + 8, len);
            i += 8 + len;
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
