package dev.paddock.server.routes.terminal;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.spi.TerminalRequest;
import dev.paddock.server.http.ApiJson;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/** The terminal request body and the socket's control messages, checked field by field. */
final class TerminalBodies {
    private static final int MAX_ARGS = 256;

    private TerminalBodies() {}

    /** {"command": [...], "cwd": "/…", "env": {...}, "rows": 24, "cols": 80}; every field optional. */
    static TerminalRequest request(JsonNode body) {
        if (body != null && !body.isObject() && !body.isNull()) throw invalid("body", "must be a JSON object");
        List<String> argv = null;
        JsonNode command = body == null ? null : body.get("command");
        if (command != null && !command.isNull()) {
            if (!command.isArray() || command.isEmpty() || command.size() > MAX_ARGS) throw invalid("command", "must be a non-empty array of at most " + MAX_ARGS + " strings");
            argv = new ArrayList<>();
            for (JsonNode a : command) {
                if (!a.isString()) throw invalid("command", "must hold strings only");
                if (a.asString().indexOf('\0') >= 0) throw invalid("command", "must not contain NUL characters");
                argv.add(a.asString());
            }
            if (argv.getFirst().isEmpty()) throw invalid("command", "must name a program first");
        }
        String cwd = text(body, "cwd");
        if (cwd != null && (!cwd.startsWith("/") || cwd.indexOf('\0') >= 0)) throw new PaddockException(ErrorCode.INVALID_CWD, "field 'cwd' must be an absolute path inside the sandbox");
        Map<String, String> env = new LinkedHashMap<>();
        JsonNode e = body == null ? null : body.get("env");
        if (e != null && !e.isNull()) {
            if (!e.isObject() || e.size() > 256) throw invalid("env", "must be an object of at most 256 string values");
            for (var entry : e.properties()) {
                if (!entry.getValue().isString()) throw invalid("env." + entry.getKey(), "must be a string");
                if (!entry.getKey().matches("[A-Za-z_][A-Za-z0-9_]{0,255}")) throw invalid("env", "has an invalid variable name '" + Text.clip(entry.getKey(), 60) + "'");
                if (entry.getValue().asString().indexOf('\0') >= 0) throw invalid("env." + entry.getKey(), "must not contain NUL characters");
                env.put(entry.getKey(), entry.getValue().asString());
            }
        }
        return new TerminalRequest(argv, env, cwd, size(body, "rows", 24), size(body, "cols", 80));
    }

    sealed interface Control {
        record Input(String data) implements Control {}

        record Resize(int rows, int cols) implements Control {}
    }

    static Control control(ApiJson json, String text) {
        JsonNode m;
        try {
            m = json.read(text.getBytes(StandardCharsets.UTF_8), JsonNode.class);
        } catch (RuntimeException e) {
            throw new PaddockException(ErrorCode.INVALID_JSON, "a control message must be a JSON object");
        }
        if (m == null || !m.isObject()) throw new PaddockException(ErrorCode.INVALID_JSON, "a control message must be a JSON object");
        String type = text(m, "type");
        if ("input".equals(type)) {
            String data = text(m, "data");
            if (data == null) throw new PaddockException(ErrorCode.MISSING_FIELD, "an input message needs 'data'");
            return new Control.Input(data);
        }
        if ("resize".equals(type)) return new Control.Resize(size(m, "rows", -1), size(m, "cols", -1));
        throw invalid("type", "must be \"input\" or \"resize\"");
    }

    private static int size(JsonNode body, String field, int fallback) {
        JsonNode n = body == null ? null : body.get(field);
        if (n == null || n.isNull()) {
            if (fallback < 0) throw new PaddockException(ErrorCode.MISSING_FIELD, "field '" + field + "' is required");
            return fallback;
        }
        if (!n.isIntegralNumber() || n.asLong() < 1 || n.asLong() > TerminalRequest.MAX_SIZE) {
            throw new PaddockException(ErrorCode.INVALID_TERMINAL_SIZE, "field '" + field + "' must be a whole number from 1 to " + TerminalRequest.MAX_SIZE);
        }
        return n.asInt();
    }

    private static String text(JsonNode body, String field) {
        JsonNode n = body == null ? null : body.get(field);
        if (n == null || n.isNull()) return null;
        if (!n.isString()) throw invalid(field, "must be a string");
        return n.asString();
    }

    private static PaddockException invalid(String field, String message) {
        return new PaddockException(ErrorCode.INVALID_FIELD, "field '" + field + "' " + message);
    }
}
