package dev.paddock.mcp;

import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * Reads an MCP request body within the size limit and hands the transport a copy: it then never sees more than
 * the limit, and never a body it would have to quote back in an error.
 */
final class McpBodyGuard {
    private McpBodyGuard() {}

    /** Thrown when the body is over the limit. */
    static final class TooLarge extends IOException {
        TooLarge() {
            super("body over the limit");
        }
    }

    static byte[] read(HttpServletRequest req, long limit) throws IOException {
        if (req.getContentLengthLong() > limit) throw new TooLarge();
        InputStream in = req.getInputStream();
        byte[] buf = new byte[8192];
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int n; (n = in.read(buf)) >= 0; ) {
            if (out.size() + (long) n > limit) throw new TooLarge();
            out.write(buf, 0, n);
        }
        return out.toByteArray();
    }

    static HttpServletRequest replay(HttpServletRequest req, byte[] body) {
        return new HttpServletRequestWrapper(req) {
            private final ByteArrayInputStream bytes = new ByteArrayInputStream(body);

            @Override
            public ServletInputStream getInputStream() {
                return new ServletInputStream() {
                    @Override public boolean isFinished() { return bytes.available() == 0; }

                    @Override public boolean isReady() { return true; }

                    @Override public void setReadListener(ReadListener listener) {
                        throw new IllegalStateException("the MCP body is already read");
                    }

                    @Override public int read() { return bytes.read(); }

                    @Override public int read(byte[] b, int off, int len) { return bytes.read(b, off, len); }
                };
            }

            @Override
            public BufferedReader getReader() {
                return new BufferedReader(new InputStreamReader(getInputStream(), StandardCharsets.UTF_8));
            }

            @Override
            public int getContentLength() { return body.length; }

            @Override
            public long getContentLengthLong() { return body.length; }
        };
    }
}
