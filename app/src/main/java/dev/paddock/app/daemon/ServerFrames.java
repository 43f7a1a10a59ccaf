package dev.paddock.app.daemon;

import dev.paddock.core.Text;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
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
 * The relay protocol (v1) from the daemon's side: what the server sends is parsed as strictly as the server parses
 * a tab (unknown types and fields, wrong types, bad ids, oversize frames and bad base64 are refused), and the
 * daemon's own frames are built here. See docs/browser-vm-sandbox.md, Relay protocol.
 */
final class ServerFrames {
    static final int VERSION = 1;
    static final int MAX_FRAME_CHARS = 1 << 20;
    /** Raw bytes per result chunk; base64 makes it a third larger, well under the frame limit. */
    static final int CHUNK_BYTES = 192 * 1024;
    /** Results this small travel inline in the result frame. */
    static final int INLINE_BYTES = 48 * 1024;
    static final Set<String> OPS = Set.of("bind", "exec", "kill", "stat", "list", "read_file", "write_file", "mkdir", "delete", "clear", "destroy",
            "export_tar", "import_tar");

    private static final JsonMapper JSON = JsonMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();
    private static final Pattern REQUEST_ID = Pattern.compile("req_[0-9a-z]{26}");
    private static final Pattern SANDBOX_ID = Pattern.compile("sbx_[0-9a-z]{26}");
    private static final Pattern RUNTIME_ID = Pattern.compile("rt_[0-9a-z]{26}");
    private static final Pattern CODE = Pattern.compile("[a-z][a-z0-9_]{0,63}");

    private ServerFrames() {}

    sealed interface Inbound permits Welcome, Heartbeat, ErrorFrame, Op, OpChunk {}

    record Welcome(String runtimeId, long heartbeatSeconds) implements Inbound {}

    record Heartbeat() implements Inbound {}

    record ErrorFrame(String code, String message, String requestId) implements Inbound {}

    /** {@code args} stays a JSON object: each op reads and checks its own arguments. */
    record Op(String requestId, String sandboxId, String op, JsonNode args, long timeoutSeconds) implements Inbound {}

    record OpChunk(String requestId, int seq, byte[] data) implements Inbound {}

    /** A frame the daemon refuses; {@code requestId} when the frame named a request that should fail. */
    static final class BadFrame extends Exception {
        final String requestId;

        BadFrame(String message, String requestId) {
            super(message);
            this.requestId = requestId;
        }
    }

    static Inbound parse(String text) throws BadFrame {
        if (text.length() > MAX_FRAME_CHARS) throw new BadFrame("frame is larger than " + MAX_FRAME_CHARS + " characters", null);
        JsonNode n;
        try {
            n = JSON.readTree(text);
        } catch (JacksonException e) {
            throw new BadFrame("frame is not valid JSON", null);
        }
        if (n == null || !n.isObject()) throw new BadFrame("frame must be a JSON object", null);
        JsonNode v = n.get("v");
        if (v == null || !v.isIntegralNumber() || v.intValue() != VERSION) throw new BadFrame("frame version must be " + VERSION, null);
        String type = string(n, "type", 40, true, null);
        return switch (type) {
            case "welcome" -> {
                allow(n, Set.of("v", "type", "runtime_id", "heartbeat_seconds"), null);
                String rt = string(n, "runtime_id", 40, true, null);
                if (!RUNTIME_ID.matcher(rt).matches()) throw new BadFrame("runtime_id is not a runtime id", null);
                yield new Welcome(rt, integer(n, "heartbeat_seconds", 1, 3600, null));
            }
            case "heartbeat" -> {
                allow(n, Set.of("v", "type"), null);
                yield new Heartbeat();
            }
            case "error" -> {
                allow(n, Set.of("v", "type", "code", "message", "request_id"), null);
                String code = string(n, "code", 64, true, null);
                if (!CODE.matcher(code).matches()) throw new BadFrame("error code must be snake_case", null);
                String rid = string(n, "request_id", 40, false, null);
                if (rid != null && !REQUEST_ID.matcher(rid).matches()) rid = null;
                yield new ErrorFrame(code, string(n, "message", 2000, true, null), rid);
            }
            case "sandbox.op.chunk" -> {
                String rid = requestId(n);
                allow(n, Set.of("v", "type", "request_id", "seq", "data"), rid);
                int seq = (int) integer(n, "seq", 0, Integer.MAX_VALUE, rid);
                byte[] data;
                try {
                    data = Base64.getDecoder().decode(string(n, "data", MAX_FRAME_CHARS, true, rid));
                } catch (IllegalArgumentException e) {
                    throw new BadFrame("chunk data is not base64", rid);
                }
                if (data.length > CHUNK_BYTES) throw new BadFrame("chunk is larger than " + CHUNK_BYTES + " bytes", rid);
                yield new OpChunk(rid, seq, data);
            }
            case "sandbox.op" -> {
                String rid = requestId(n);
                allow(n, Set.of("v", "type", "request_id", "sandbox_id", "op", "args", "timeout_seconds"), rid);
                String sbx = string(n, "sandbox_id", 40, true, rid);
                if (!SANDBOX_ID.matcher(sbx).matches()) throw new BadFrame("sandbox_id is not a sandbox id", rid);
                String op = string(n, "op", 20, true, rid);
                if (!OPS.contains(op)) throw new BadFrame("unknown op '" + Text.clip(op, 20) + "'", rid);
                JsonNode args = n.get("args");
                if (args == null || !args.isObject()) throw new BadFrame("args must be an object", rid);
                yield new Op(rid, sbx, op, args, integer(n, "timeout_seconds", 1, 7 * 24 * 3600, rid));
            }
            default -> throw new BadFrame("unknown frame type '" + Text.clip(type, 40) + "'", null);
        };
    }

    private static String requestId(JsonNode n) throws BadFrame {
        String rid = string(n, "request_id", 40, true, null);
        if (!REQUEST_ID.matcher(rid).matches()) throw new BadFrame("request_id is not a request id", null);
        return rid;
    }

    static void allow(JsonNode n, Set<String> allowed, String rid) throws BadFrame {
        for (String name : n.propertyNames()) {
            if (!allowed.contains(name)) throw new BadFrame("unknown field '" + Text.clip(name, 40) + "'", rid);
        }
    }

    static String string(JsonNode n, String field, int max, boolean required, String rid) throws BadFrame {
        JsonNode f = n.get(field);
        if (f == null || f.isNull()) {
            if (required) throw new BadFrame("field '" + field + "' is required", rid);
            return null;
        }
        if (!f.isString()) throw new BadFrame("field '" + field + "' must be a string", rid);
        if (f.stringValue().length() > max) throw new BadFrame("field '" + field + "' is longer than " + max + " characters", rid);
        return f.stringValue();
    }

    static long integer(JsonNode n, String field, long min, long max, String rid) throws BadFrame {
        JsonNode f = n.get(field);
        if (f == null || !f.isIntegralNumber() || !f.canConvertToLong() || f.longValue() < min || f.longValue() > max) {
            throw new BadFrame("field '" + field + "' must be an integer between " + min + " and " + max, rid);
        }
        return f.longValue();
    }

    // ---------------------------------------------------------------- outbound (daemon -> server)

    static String hello(String host, String driver, int capacity) {
        return JSON.writeValueAsString(JSON.createObjectNode().put("v", VERSION).put("type", "hello").put("engine", "daemon")
                .put("vm", "ready").put("host", host).put("driver", driver).put("capacity", capacity));
    }

    static String heartbeat() {
        return "{\"v\":1,\"type\":\"heartbeat\"}";
    }

    static String failed(String requestId, String code, String message) {
        ObjectNode o = JSON.createObjectNode().put("v", VERSION).put("type", "sandbox.result").put("request_id", requestId).put("ok", false);
        o.putObject("error").put("code", code).put("message", Text.clip(message, 900));
        return JSON.writeValueAsString(o);
    }

    static String chunk(String requestId, String stream, int seq, byte[] data, int off, int len) {
        return JSON.writeValueAsString(JSON.createObjectNode().put("v", VERSION).put("type", "sandbox.result.chunk")
                .put("request_id", requestId).put("stream", stream).put("seq", seq)
                .put("data", Base64.getEncoder().encodeToString(Arrays.copyOfRange(data, off, off + len))));
    }

    /**
     * The frames of one successful result: bulk bytes first as ordered chunks (inline when stdout and stderr are
     * small), then the result with {@code fields} (exit_code, entry, entries).
     */
    static List<String> result(String requestId, Map<String, Object> fields, Map<String, byte[]> streams) {
        List<String> frames = new ArrayList<>();
        long total = streams.values().stream().mapToLong(b -> b == null ? 0 : b.length).sum();
        boolean small = total <= INLINE_BYTES;
        Map<String, Object> inline = new LinkedHashMap<>();
        int seq = 0;
        for (Map.Entry<String, byte[]> s : streams.entrySet()) {
            byte[] bytes = s.getValue();
            if (bytes == null || bytes.length == 0) continue;
            if (small && !s.getKey().equals("data")) {
                inline.put(s.getKey(), Base64.getEncoder().encodeToString(bytes));
                continue;
            }
            for (int off = 0; off < bytes.length; off += CHUNK_BYTES) {
                frames.add(chunk(requestId, s.getKey(), seq++, bytes, off, Math.min(CHUNK_BYTES, bytes.length - off)));
            }
        }
        ObjectNode o = JSON.createObjectNode().put("v", VERSION).put("type", "sandbox.result").put("request_id", requestId)
                .put("ok", true).put("chunks", seq);
        inline.forEach((k, v) -> o.put(k, (String) v));
        fields.forEach((k, v) -> o.set(k, JSON.valueToTree(v)));
        frames.add(JSON.writeValueAsString(o));
        return frames;
    }
}
