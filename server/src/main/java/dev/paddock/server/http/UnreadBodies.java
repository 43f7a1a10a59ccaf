package dev.paddock.server.http;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;

/**
 * Deals with what a request left of its body once it was answered: an endpoint that ignores its body, one that
 * failed early (401, 404), a body refused from its declared length or past a limit (413). Jetty closes a connection
 * whose request content was not read, and the kernel resets a socket closed with input unread: a client still
 * sending then loses the answer it has not read yet, and a client reusing a kept-alive connection gets no answer at
 * all. So a small rest is read before the answer goes, keeping the connection; a larger or unknown one gets an answer
 * that says the connection ends, sent at once, and is then read and dropped for up to {@link #LINGER} (a lingering
 * close, as HTTP servers do). One filter in front of every servlet: the API's routes and {@code /mcp} alike.
 */
public final class UnreadBodies implements Filter {
    /** Up to this much unread body is read before the answer, so the connection can be kept. */
    private static final long DRAIN_LIMIT = 1L << 20;
    /** How long the rest of a body is read after its answer before the connection closes anyway. */
    private static final Duration LINGER = Duration.ofSeconds(5);

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain) throws IOException, ServletException {
        chain.doFilter(request, response);
        if (request.isAsyncStarted() || !(request instanceof HttpServletRequest req) || !(response instanceof HttpServletResponse res)) return;
        if (res.getStatus() == HttpServletResponse.SC_SWITCHING_PROTOCOLS) return; // a WebSocket: the connection is no longer HTTP's
        ServletInputStream in;
        try {
            in = req.getInputStream();
            if (in.isFinished()) return;
        } catch (IllegalStateException readAsText) {
            return; // the body was taken as a reader: read to its end or given up by its reader
        }
        long length = req.getContentLengthLong();
        if (!res.isCommitted() && length >= 0 && length <= DRAIN_LIMIT) {
            discard(in, System.nanoTime() + LINGER.toNanos());
            return;
        }
        if (!res.isCommitted()) res.setHeader("Connection", "close");
        try {
            closeAnswer(res); // the answer is complete: the server's side of the connection ends here
        } catch (IOException gone) {
            return;
        }
        discard(in, System.nanoTime() + LINGER.toNanos());
    }

    private static void closeAnswer(HttpServletResponse res) throws IOException {
        try {
            res.getOutputStream().close();
        } catch (IllegalStateException writtenAsText) {
            res.getWriter().close();
        }
    }

    private static void discard(InputStream in, long deadline) {
        byte[] buffer = new byte[64 * 1024];
        try {
            while (System.nanoTime() < deadline && in.read(buffer) >= 0) {
                // dropped
            }
        } catch (IOException | RuntimeException e) {
            // the client went away, or the multipart parser holds the body: the connection ends as Jetty sees fit
        }
    }
}
