package dev.paddock.browser;

import dev.paddock.core.spi.ExecHandle;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecResult;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A running live view of a browser sandbox: the agent's CDP screencast, relayed line by line. Each line is parsed as
 * hostile JSON and only {@code frame} (base64 JPEG), {@code url}, {@code title} and {@code error} are passed on; a
 * line longer than {@link #MAX_LINE} or not a JSON object ends the cast. Closing it ends the relay (the agent stops
 * casting when its connection closes) and the heartbeat that kept the sandbox awake while watched.
 */
public final class Screencast implements AutoCloseable {
    static final int MAX_LINE = 8 << 20;
    private static final Pattern BASE64 = Pattern.compile("[A-Za-z0-9+/=]+");

    private final Heartbeat heartbeat;
    private ExecHandle handle;
    private boolean closed;

    Screencast(Heartbeat heartbeat) {
        this.heartbeat = heartbeat;
    }

    synchronized void attach(ExecHandle h) {
        this.handle = h;
        if (closed) h.kill(); // a bad line came before the exec call returned
    }

    /** Null while the cast runs; how the relay ended once it did. */
    public ExecResult ended(Duration wait) throws InterruptedException {
        ExecHandle h;
        synchronized (this) {
            h = handle;
        }
        return h.await(wait);
    }

    @Override
    public synchronized void close() {
        closed = true;
        try {
            if (handle != null) handle.kill();
        } finally {
            heartbeat.close();
        }
    }

    /** Splits the relay's stdout into lines and hands each checked one to {@code sink}. */
    static ExecOutput lines(ObjectMapper json, Consumer<ObjectNode> sink, Runnable onBadLine) {
        return new ExecOutput() {
            private final ByteArrayOutputStream line = new ByteArrayOutputStream();
            private boolean bad;

            @Override
            public synchronized void stdout(byte[] d, int o, int l) {
                for (int i = o; i < o + l && !bad; i++) {
                    if (d[i] != '\n') {
                        line.write(d[i]);
                        if (line.size() > MAX_LINE) fail();
                        continue;
                    }
                    ObjectNode checked = check(json, line.toString(StandardCharsets.UTF_8));
                    line.reset();
                    if (checked == null) fail(); else sink.accept(checked);
                }
            }

            @Override
            public void stderr(byte[] d, int o, int l) {}

            private void fail() {
                bad = true;
                line.reset();
                onBadLine.run();
            }
        };
    }

    private static ObjectNode check(ObjectMapper json, String text) {
        JsonNode raw;
        try {
            raw = json.readTree(text);
        } catch (RuntimeException e) {
            return null;
        }
        if (raw == null || !raw.isObject()) return null;
        ObjectNode out = json.createObjectNode();
        JsonNode frame = raw.get("frame");
        if (frame != null) {
            if (!frame.isString() || !BASE64.matcher(frame.asString()).matches()) return null;
            out.put("frame", frame.asString());
        }
        for (String f : new String[] {"url", "title", "error"}) {
            JsonNode v = raw.get(f);
            if (v != null && v.isString()) out.put(f, clip(v.asString()));
        }
        return out;
    }

    private static String clip(String s) {
        return s.length() <= 4096 ? s : s.substring(0, 4096);
    }
}
