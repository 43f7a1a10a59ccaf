package dev.paddock.egress.proxy;

import dev.paddock.core.egress.HeaderNames;
import java.io.IOException;

/** Strict parsing of HTTP/1.x request and response heads under size limits. */
final class HttpHeads {
    record Request(String method, String target, String version, Headers headers) {
        boolean http10() { return version.equals("HTTP/1.0"); }
    }

    record Response(String version, int status, String reason, Headers headers) {}

    private static final int MAX_LEADING_EMPTY_LINES = 4;

    private final int maxLine;
    private final int maxHead;
    private final int maxHeaders;

    HttpHeads(EgressConfig config) {
        this.maxLine = config.maxLineBytes();
        this.maxHead = config.maxHeadBytes();
        this.maxHeaders = config.maxHeaders();
    }

    /** The next request head, or null when the client closed the connection between requests. */
    Request readRequest(HeadInput in) throws IOException {
        var tooLong = new ProtocolException(414, "request_line_too_long", "the request line is longer than " + maxLine + " bytes");
        String line = in.readLine(maxLine, tooLong);
        for (int i = 0; line != null && line.isEmpty(); i++) {
            if (i >= MAX_LEADING_EMPTY_LINES) throw new ProtocolException(400, "malformed_request_line", "too many empty lines before the request");
            line = in.readLine(maxLine, tooLong);
        }
        if (line == null) return null;
        String[] parts = line.split(" ", -1);
        if (parts.length != 3) throw new ProtocolException(400, "malformed_request_line", "the request line must be 'METHOD target HTTP/1.1'");
        String method = parts[0], target = parts[1], version = parts[2];
        if (method.isEmpty() || method.length() > 32 || !HeaderNames.isToken(method)) throw new ProtocolException(400, "malformed_request_line", "the method is not a valid token");
        if (!version.equals("HTTP/1.1") && !version.equals("HTTP/1.0")) throw new ProtocolException(400, "unsupported_http_version", "only HTTP/1.1 and HTTP/1.0 are supported");
        if (target.isEmpty()) throw new ProtocolException(400, "malformed_request_line", "the request target is empty");
        for (int i = 0; i < target.length(); i++) {
            char c = target.charAt(i);
            if (c <= 0x20 || c >= 0x7f) throw new ProtocolException(400, "malformed_request_line", "the request target contains a character that must be percent-encoded");
        }
        return new Request(method, target, version, readFields(in, line.length(), 431));
    }

    /** A response head; 1xx interim responses are returned too (the caller skips them). */
    Response readResponse(HeadInput in) throws IOException {
        var tooLong = new ProtocolException(502, "upstream_head_too_large", "the upstream status line is too long");
        String line = in.readLine(maxLine, tooLong);
        if (line == null) throw new ProtocolException(502, "upstream_closed", "the upstream closed the connection without a response");
        if (line.length() < 12 || !(line.startsWith("HTTP/1.1 ") || line.startsWith("HTTP/1.0 ")) || (line.length() > 12 && line.charAt(12) != ' ')) {
            throw new ProtocolException(502, "upstream_malformed", "the upstream sent a malformed status line");
        }
        int status;
        try {
            status = Integer.parseInt(line.substring(9, 12));
        } catch (NumberFormatException e) {
            throw new ProtocolException(502, "upstream_malformed", "the upstream sent a malformed status code");
        }
        if (status < 100 || status > 599) throw new ProtocolException(502, "upstream_malformed", "the upstream sent an invalid status code");
        String reason = line.length() > 13 ? line.substring(13) : "";
        if (!reason.chars().allMatch(c -> c == '\t' || (c >= 0x20 && c != 0x7f))) reason = "";
        return new Response(line.substring(0, 8), status, reason, readFields(in, line.length(), 502));
    }

    private Headers readFields(HeadInput in, int used, int limitStatus) throws IOException {
        String what = limitStatus == 502 ? "upstream response" : "request";
        int failStatus = limitStatus == 502 ? 502 : 400;
        var tooLong = new ProtocolException(limitStatus, "headers_too_large", "a " + what + " header line is longer than " + maxLine + " bytes");
        Headers headers = new Headers();
        int total = used;
        int count = 0;
        while (true) {
            String line = in.readLine(maxLine, tooLong);
            if (line == null) throw new ProtocolException(failStatus, "truncated_head", "the " + what + " head ended before the empty line");
            if (line.isEmpty()) return headers;
            total += line.length() + 2;
            if (total > maxHead || ++count > maxHeaders) {
                throw new ProtocolException(limitStatus, "headers_too_large", "the " + what + " head is larger than " + maxHead + " bytes or " + maxHeaders + " fields");
            }
            char first = line.charAt(0);
            if (first == ' ' || first == '\t') throw new ProtocolException(failStatus, "malformed_header", "folded header lines are not allowed");
            int colon = line.indexOf(':');
            if (colon <= 0) throw new ProtocolException(failStatus, "malformed_header", "a header line has no name");
            String name = line.substring(0, colon);
            if (!HeaderNames.isToken(name)) throw new ProtocolException(failStatus, "malformed_header", "a header name contains invalid characters");
            String value = line.substring(colon + 1).strip();
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                if ((c < 0x20 && c != '\t') || c == 0x7f) throw new ProtocolException(failStatus, "malformed_header", "a header value contains control characters");
            }
            headers.add(name, value);
        }
    }

}
