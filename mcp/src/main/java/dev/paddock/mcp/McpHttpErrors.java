package dev.paddock.mcp;

import dev.paddock.core.ErrorCode;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/** The API's error shape for answers of the {@code /mcp} endpoint itself (before or instead of the MCP transport). */
final class McpHttpErrors {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private McpHttpErrors() {}

    static void write(HttpServletResponse resp, int status, ErrorCode code, String message) throws IOException {
        if (resp.isCommitted()) return;
        resp.reset();
        resp.setStatus(status);
        resp.setContentType("application/json");
        resp.setCharacterEncoding("UTF-8");
        resp.setHeader("Cache-Control", "no-store");
        if (status == 413) resp.setHeader("Connection", "close"); // the body may still be coming: the connection ends after it
        byte[] body = body(code, message);
        resp.setContentLength(body.length);
        try {
            resp.getOutputStream().write(body);
        } catch (IllegalStateException e) {
            resp.getWriter().write(new String(body, StandardCharsets.UTF_8)); // the transport took the writer already
        }
        resp.flushBuffer();
    }

    static byte[] body(ErrorCode code, String message) {
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("type", code.type().wireName());
        error.put("code", code.wire());
        error.put("message", message);
        return JSON.writeValueAsString(Map.of("type", "error", "error", error)).getBytes(StandardCharsets.UTF_8);
    }

    /** The error the transport meant with {@code status}, in words of this endpoint (its own text is not passed on). */
    static void forStatus(HttpServletResponse resp, int status) throws IOException {
        switch (status) {
            case 400 -> write(resp, 400, ErrorCode.INVALID_MCP_REQUEST,
                    "the request is not a valid MCP message for this endpoint (a JSON-RPC request, notification or response; "
                            + "send Mcp-Session-Id after initialize)");
            case 404 -> write(resp, 404, ErrorCode.MCP_SESSION_NOT_FOUND, "no such MCP session (it ended or was never opened); initialize again");
            case 405 -> write(resp, 405, ErrorCode.METHOD_NOT_ALLOWED, "this method is not allowed on /mcp");
            case 406 -> write(resp, 406, ErrorCode.NOT_ACCEPTABLE, "send Accept: application/json, text/event-stream");
            case 413 -> write(resp, 413, ErrorCode.REQUEST_TOO_LARGE, "the MCP request body is over this server's limit");
            case 415 -> write(resp, 415, ErrorCode.UNSUPPORTED_MEDIA_TYPE, "send Content-Type: application/json");
            default -> {
                if (status >= 500) write(resp, status, status == 503 ? ErrorCode.UNAVAILABLE : ErrorCode.INTERNAL, "the MCP request failed on the server");
                else write(resp, status, ErrorCode.BAD_REQUEST, "the MCP request was refused (HTTP " + status + ")");
            }
        }
    }
}
