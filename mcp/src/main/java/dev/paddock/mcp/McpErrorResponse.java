package dev.paddock.mcp;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import java.io.PrintWriter;

/**
 * The MCP transport's response, minus its own error bodies: once it sets a 4xx/5xx status, what it writes is
 * dropped and {@link #finish()} writes the API's error shape instead (its bodies may quote the request or an
 * exception). Successful answers, streams included, pass through untouched.
 */
final class McpErrorResponse extends HttpServletResponseWrapper {
    private int errorStatus;
    private ServletOutputStream stream;
    private PrintWriter writer;

    McpErrorResponse(HttpServletResponse response) {
        super(response);
    }

    @Override
    public void setStatus(int sc) {
        if (sc >= 400) errorStatus = sc;
        else super.setStatus(sc);
    }

    @Override
    public void sendError(int sc, String msg) {
        errorStatus = sc;
    }

    @Override
    public void sendError(int sc) {
        errorStatus = sc;
    }

    boolean failed() {
        return errorStatus != 0;
    }

    /** Writes the error body, when the transport answered with an error. */
    void finish() throws IOException {
        if (errorStatus == 0) return;
        HttpServletResponse real = (HttpServletResponse) getResponse();
        McpHttpErrors.forStatus(real, errorStatus);
    }

    @Override
    public ServletOutputStream getOutputStream() throws IOException {
        if (stream == null) {
            ServletOutputStream real = super.getOutputStream();
            stream = new ServletOutputStream() {
                @Override public boolean isReady() { return real.isReady(); }

                @Override public void setWriteListener(WriteListener listener) { real.setWriteListener(listener); }

                @Override public void write(int b) throws IOException {
                    if (errorStatus == 0) real.write(b);
                }

                @Override public void write(byte[] b, int off, int len) throws IOException {
                    if (errorStatus == 0) real.write(b, off, len);
                }

                @Override public void flush() throws IOException {
                    if (errorStatus == 0) real.flush();
                }

                @Override public void close() throws IOException {
                    if (errorStatus == 0) real.close();
                }
            };
        }
        return stream;
    }

    @Override
    public PrintWriter getWriter() throws IOException {
        if (writer == null) {
            PrintWriter real = super.getWriter();
            writer = new PrintWriter(real) {
                @Override public void write(int c) {
                    if (errorStatus == 0) super.write(c);
                }

                @Override public void write(char[] buf, int off, int len) {
                    if (errorStatus == 0) super.write(buf, off, len);
                }

                @Override public void write(String s, int off, int len) {
                    if (errorStatus == 0) super.write(s, off, len);
                }

                @Override public void flush() {
                    if (errorStatus == 0) super.flush();
                }
            };
        }
        return writer;
    }

    @Override
    public void flushBuffer() throws IOException {
        if (errorStatus == 0) super.flushBuffer();
    }
}
