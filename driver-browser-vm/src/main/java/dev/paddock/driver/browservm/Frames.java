package dev.paddock.driver.browservm;

import dev.paddock.core.Ids;
import dev.paddock.core.Text;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The relay's wire format, version 1: JSON text frames with {@code v} and {@code type}. This class parses what a
 * tab sends — strictly: unknown types or fields, wrong types, oversized values and bad base64 are all refused — and
 * builds what the server sends. Everything from a tab is hostile input.
 */
public final class Frames {
    public static final int VERSION = 1;
    /** Largest frame either side may send; bulk data travels in chunks well below it. */
    public static final int MAX_FRAME_CHARS = 1 << 20;
    /** Raw bytes per chunk frame (base64 makes it a third larger). */
    public static final int CHUNK_BYTES = 192 * 1024;

    private static final JsonMapper JSON = JsonMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();
    private static final Pattern ENGINE = Pattern.compile("[a-z0-9][a-z0-9-]{0,31}");
    private static final Pattern CODE = Pattern.compile("[a-z][a-z0-9_]{0,63}");

    private Frames() {}

    // ---------------------------------------------------------------- inbound (tab -> server)

    public sealed interface Inbound permits Hello, Heartbeat, Chunk, Result {}

    /**
     * {@code mirrors}: the sandboxes whose workspace this browser keeps in OPFS (a reopened tab offers to adopt them).
     * {@code host}, {@code driver} and {@code capacity} are a paired daemon's: its machine's name, the local driver
     * it runs sandboxes with, and how many it runs at once (null from a tab).
     */
    public record Hello(String engine, String vm, String sandboxId, String bootMode, Long bootMillis, List<String> mirrors,
                        String host, String driver, Integer capacity) implements Inbound {
        public Hello(String engine, String vm, String sandboxId, String bootMode, Long bootMillis, List<String> mirrors) {
            this(engine, vm, sandboxId, bootMode, bootMillis, mirrors, null, null, null);
        }

        public Hello(String engine, String vm, String sandboxId, String bootMode, Long bootMillis) {
            this(engine, vm, sandboxId, bootMode, bootMillis, List.of());
        }
    }

    /** The engine a paired daemon names in its hello. */
    public static final String DAEMON_ENGINE = "daemon";
    /** Most sandboxes one paired daemon may announce. */
    public static final int MAX_DAEMON_CAPACITY = 64;
    private static final Pattern HOST = Pattern.compile("[A-Za-z0-9][A-Za-z0-9.-]{0,252}");

    /** At most this many OPFS mirrors are listed in a hello. */
    public static final int MAX_MIRRORS = 32;

    public record Heartbeat() implements Inbound {}

    public record Chunk(String requestId, String stream, int seq, byte[] data) implements Inbound {}

    public record Entry(String path, String name, String type, long size, int mode, long mtime, String linkTarget) {}

    public record Result(String requestId, boolean ok, Integer exitCode, byte[] stdout, byte[] stderr, int chunks,
                         Entry entry, List<Entry> entries, String path, String errorCode, String errorMessage) implements Inbound {}

    static Inbound parse(String text) throws FrameException {
        if (text.length() > MAX_FRAME_CHARS) throw bad("frame_too_large", "frame is larger than " + MAX_FRAME_CHARS + " characters", null);
        JsonNode n;
        try {
            n = JSON.readTree(text);
        } catch (JacksonException e) {
            throw bad("malformed_frame", "frame is not valid JSON", null);
        }
        if (n == null || !n.isObject()) throw bad("malformed_frame", "frame must be a JSON object", null);
        JsonNode v = n.get("v");
        if (v == null || !v.isIntegralNumber()) throw bad("malformed_frame", "frame has no version field v", null);
        if (v.intValue() != VERSION) throw bad("unsupported_version", "frame version " + Text.clip(v.asString(), 10) + " is not supported; this server speaks v" + VERSION, null);
        String type = string(n, "type", 40, true, null);
        return switch (type) {
            case "hello" -> hello(n);
            case "heartbeat" -> { allow(n, Set.of("v", "type"), null); yield new Heartbeat(); }
            case "sandbox.result.chunk" -> chunk(n);
            case "sandbox.result" -> result(n);
            default -> throw bad("unknown_frame_type", "unknown frame type '" + Text.clip(type, 40) + "'", null);
        };
    }

    private static Hello hello(JsonNode n) throws FrameException {
        allow(n, Set.of("v", "type", "engine", "vm", "sandbox_id", "boot_mode", "boot_ms", "mirrors", "host", "driver", "capacity"), null);
        String engine = string(n, "engine", 32, true, null);
        if (!ENGINE.matcher(engine).matches()) throw bad("malformed_frame", "engine must be a short lower-case name", null);
        String vm = oneOf(n, "vm", Set.of("booting", "ready", "failed"), true, null);
        String sandboxId = string(n, "sandbox_id", 40, false, null);
        if (sandboxId != null && !Ids.isValid("sbx", sandboxId)) throw bad("malformed_frame", "sandbox_id is not a sandbox id", null);
        String bootMode = oneOf(n, "boot_mode", Set.of("state", "cold"), false, null);
        Long bootMs = n.has("boot_ms") && !n.get("boot_ms").isNull() ? nonNegative(n, "boot_ms", Long.MAX_VALUE, null) : null;
        List<String> mirrors = new ArrayList<>();
        JsonNode m = n.get("mirrors");
        if (m != null && !m.isNull()) {
            if (!m.isArray() || m.size() > MAX_MIRRORS) throw bad("malformed_frame", "mirrors must be an array of at most " + MAX_MIRRORS + " sandbox ids", null);
            for (JsonNode e : m) {
                if (!e.isString() || !Ids.isValid("sbx", e.asString())) throw bad("malformed_frame", "mirrors must hold sandbox ids", null);
                if (!mirrors.contains(e.asString())) mirrors.add(e.asString());
            }
        }
        String host = string(n, "host", 253, false, null);
        if (host != null && !HOST.matcher(host).matches()) throw bad("malformed_frame", "host must be a host name", null);
        String driver = string(n, "driver", 32, false, null);
        if (driver != null && !ENGINE.matcher(driver).matches()) throw bad("malformed_frame", "driver must be a short lower-case name", null);
        Integer capacity = null;
        if (n.has("capacity") && !n.get("capacity").isNull()) {
            capacity = (int) nonNegative(n, "capacity", MAX_DAEMON_CAPACITY, null);
            if (capacity < 1) throw bad("malformed_frame", "capacity must be between 1 and " + MAX_DAEMON_CAPACITY, null);
        }
        return new Hello(engine, vm, sandboxId, bootMode, bootMs, List.copyOf(mirrors), host, driver, capacity);
    }

    private static Chunk chunk(JsonNode n) throws FrameException {
        String rid = requestId(n);
        allow(n, Set.of("v", "type", "request_id", "stream", "seq", "data"), rid);
        String stream = oneOf(n, "stream", Set.of("stdout", "stderr", "data"), true, rid);
        int seq = (int) nonNegative(n, "seq", Integer.MAX_VALUE, rid);
        byte[] data = base64(n, "data", true, rid);
        if (data.length > CHUNK_BYTES) throw bad("malformed_frame", "chunk is larger than " + CHUNK_BYTES + " bytes", rid);
        return new Chunk(rid, stream, seq, data);
    }

    private static Result result(JsonNode n) throws FrameException {
        String rid = requestId(n);
        allow(n, Set.of("v", "type", "request_id", "ok", "exit_code", "stdout", "stderr", "chunks", "entry", "entries", "path", "error"), rid);
        JsonNode ok = n.get("ok");
        if (ok == null || !ok.isBoolean()) throw bad("malformed_frame", "ok must be true or false", rid);
        Integer exit = null;
        if (n.has("exit_code") && !n.get("exit_code").isNull()) exit = (int) nonNegative(n, "exit_code", 255, rid);
        byte[] stdout = base64(n, "stdout", false, rid);
        byte[] stderr = base64(n, "stderr", false, rid);
        int chunks = n.has("chunks") ? (int) nonNegative(n, "chunks", 1 << 20, rid) : 0;
        Entry entry = n.has("entry") && !n.get("entry").isNull() ? entry(n.get("entry"), rid) : null;
        List<Entry> entries = null;
        if (n.has("entries") && !n.get("entries").isNull()) {
            JsonNode arr = n.get("entries");
            if (!arr.isArray() || arr.size() > 100_000) throw bad("malformed_frame", "entries must be an array of at most 100000 entries", rid);
            entries = new ArrayList<>(arr.size());
            for (JsonNode e : arr) entries.add(entry(e, rid));
        }
        String path = string(n, "path", 4096, false, rid);
        String errCode = null, errMessage = null;
        if (n.has("error") && !n.get("error").isNull()) {
            JsonNode e = n.get("error");
            if (!e.isObject()) throw bad("malformed_frame", "error must be an object", rid);
            allow(e, Set.of("code", "message"), rid);
            errCode = string(e, "code", 64, true, rid);
            if (!CODE.matcher(errCode).matches()) throw bad("malformed_frame", "error.code must be snake_case", rid);
            errMessage = string(e, "message", 1000, true, rid);
        }
        if (!ok.booleanValue() && errCode == null) throw bad("malformed_frame", "a failed result needs an error", rid);
        return new Result(rid, ok.booleanValue(), exit, stdout, stderr, chunks, entry, entries, path, errCode, errMessage);
    }

    private static Entry entry(JsonNode e, String rid) throws FrameException {
        if (!e.isObject()) throw bad("malformed_frame", "an entry must be an object", rid);
        allow(e, Set.of("path", "name", "type", "size", "mode", "mtime", "link_target"), rid);
        return new Entry(string(e, "path", 4096, true, rid), string(e, "name", 255, true, rid),
                oneOf(e, "type", Set.of("file", "directory", "symlink", "other"), true, rid),
                nonNegative(e, "size", Long.MAX_VALUE, rid), (int) nonNegative(e, "mode", 07777, rid),
                nonNegative(e, "mtime", Long.MAX_VALUE, rid), string(e, "link_target", 4096, false, rid));
    }

    private static String requestId(JsonNode n) throws FrameException {
        String rid = string(n, "request_id", 40, true, null);
        if (!Ids.isValid("req", rid)) throw bad("malformed_frame", "request_id is not a request id", null);
        return rid;
    }

    private static void allow(JsonNode n, Set<String> allowed, String rid) throws FrameException {
        for (String name : n.propertyNames()) {
            if (!allowed.contains(name)) throw bad("malformed_frame", "unknown field '" + Text.clip(name, 40) + "'", rid);
        }
    }

    private static String string(JsonNode n, String field, int max, boolean required, String rid) throws FrameException {
        JsonNode f = n.get(field);
        if (f == null || f.isNull()) {
            if (required) throw bad("malformed_frame", "field '" + field + "' is required", rid);
            return null;
        }
        if (!f.isString()) throw bad("malformed_frame", "field '" + field + "' must be a string", rid);
        String s = f.stringValue();
        if (s.length() > max) throw bad("malformed_frame", "field '" + field + "' is longer than " + max + " characters", rid);
        return s;
    }

    private static String oneOf(JsonNode n, String field, Set<String> values, boolean required, String rid) throws FrameException {
        String s = string(n, field, 40, required, rid);
        if (s != null && !values.contains(s)) throw bad("malformed_frame", "field '" + field + "' must be one of " + values, rid);
        return s;
    }

    private static long nonNegative(JsonNode n, String field, long max, String rid) throws FrameException {
        JsonNode f = n.get(field);
        if (f == null || !f.isIntegralNumber() || f.canConvertToLong() && (f.longValue() < 0 || f.longValue() > max) || !f.canConvertToLong()) {
            throw bad("malformed_frame", "field '" + field + "' must be an integer between 0 and " + max, rid);
        }
        return f.longValue();
    }

    private static byte[] base64(JsonNode n, String field, boolean required, String rid) throws FrameException {
        String s = string(n, field, MAX_FRAME_CHARS, required, rid);
        if (s == null) return null;
        try {
            return Base64.getDecoder().decode(s);
        } catch (IllegalArgumentException e) {
            throw bad("malformed_frame", "field '" + field + "' is not base64", rid);
        }
    }

    private static FrameException bad(String code, String message, String rid) {
        return new FrameException(code, message, rid);
    }

    // ---------------------------------------------------------------- outbound (server -> tab)

    static String welcome(String runtimeId, long heartbeatSeconds) {
        return JSON.writeValueAsString(Map.of("v", VERSION, "type", "welcome", "runtime_id", runtimeId, "heartbeat_seconds", heartbeatSeconds));
    }

    static String heartbeat() {
        return "{\"v\":1,\"type\":\"heartbeat\"}";
    }

    static String error(String code, String message, String requestId) {
        ObjectNode o = JSON.createObjectNode().put("v", VERSION).put("type", "error").put("code", code).put("message", message);
        if (requestId != null) o.put("request_id", requestId);
        return JSON.writeValueAsString(o);
    }

    static String op(String requestId, String sandboxId, String op, Map<String, Object> args, long timeoutSeconds) {
        ObjectNode o = JSON.createObjectNode().put("v", VERSION).put("type", "sandbox.op").put("request_id", requestId)
                .put("sandbox_id", sandboxId).put("op", op).put("timeout_seconds", timeoutSeconds);
        o.set("args", JSON.valueToTree(args));
        return JSON.writeValueAsString(o);
    }

    static String opChunk(String requestId, int seq, byte[] data, int off, int len) {
        return JSON.writeValueAsString(JSON.createObjectNode().put("v", VERSION).put("type", "sandbox.op.chunk")
                .put("request_id", requestId).put("seq", seq)
                .put("data", Base64.getEncoder().encodeToString(Arrays.copyOfRange(data, off, off + len))));
    }
}
