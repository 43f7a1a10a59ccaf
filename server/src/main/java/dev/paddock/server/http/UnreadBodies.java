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
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.io.EndPoint;

/**
 * Deals with what a request left of its body once it was answered: an endpoint that ignores its body, one that
 * failed early (401, 404), a body refused from its declared length or past a limit (413). Jetty closes a connection
 * whose request content was not read, and the kernel resets a socket closed with input unread: a client still
 * sending then loses the answer it has not read yet, and a client reusing a kept-alive connection gets no answer at
 * all. So the answer is sent whole first, then the rest of the body is read and dropped for up to {@link #LINGER}
 * (a lingering close, as HTTP servers do); a body that arrived whole in that time leaves the connection usable. One
 * filter in front of every servlet: the API's routes and {@code /mcp} alike.
 */
public final class UnreadBodies implements Filter {
    /** How long the rest of a body is read after its answer before the connection closes anyway. */
    static final Duration LINGER = Duration.ofSeconds(5);

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain) throws IOException, ServletException {
        chain.doFilter(request, response);
        if (request.isAsyncStarted() || !(request instanceof HttpServletRequest req) || !(response instanceof HttpServletResponse res)) return;
        if (res.getStatus() == HttpServletResponse.SC_SWITCHING_PROTOCOLS) return; // a WebSocket: the connection is no longer HTTP's
        if (!hasBody(req)) return;
        // a client that asked before sending (Expect: 100-continue) and got a final answer sends nothing: Jetty ends it
        if ("100-continue".equalsIgnoreCase(req.getHeader("Expect"))) return;
        ServletInputStream in;
        try {
            in = req.getInputStream();
            if (in.isFinished()) return;
        } catch (IllegalStateException readAsText) {
            return; // the body was taken as a reader: read to its end or given up by its reader
        }
        try {
            closeAnswer(res); // the answer goes out whole before the wait (a no-op where the servlet completed it)
        } catch (IOException gone) {
            return;
        }
        discard(req, in);
    }

    /** A declared length above 0, or a chunked body; a request with neither has nothing to read. */
    private static boolean hasBody(HttpServletRequest req) {
        long length = req.getContentLengthLong();
        return length > 0 || (length < 0 && req.getHeader("Transfer-Encoding") != null);
    }

    private static void closeAnswer(HttpServletResponse res) throws IOException {
        try {
            res.getOutputStream().close();
        } catch (IllegalStateException writtenAsText) {
            res.getWriter().close();
        }
    }

    /**
     * Reads until the body ends or {@link #LINGER} passed. A read that waits is bounded by the connection's idle
     * timeout, lowered to what is left of the linger meanwhile and restored when the body ended in time.
     */
    private static void discard(HttpServletRequest req, InputStream in) {
        long deadline = System.nanoTime() + LINGER.toNanos();
        EndPoint endPoint = endPoint(req);
        long idle = endPoint == null ? -1 : endPoint.getIdleTimeout();
        if (endPoint != null) endPoint.setIdleTimeout(Math.min(idle > 0 ? idle : Long.MAX_VALUE, LINGER.toMillis()));
        byte[] buffer = new byte[64 * 1024];
        try {
            while (System.nanoTime() < deadline) {
                if (in.read(buffer) < 0) {
                    if (endPoint != null) endPoint.setIdleTimeout(idle);
                    return;
                }
            }
        } catch (IOException | RuntimeException e) {
            // the client went away or stalled, or the multipart parser holds the body: the connection ends
        }
    }

    private static EndPoint endPoint(HttpServletRequest req) {
        try {
            ServletContextRequest jetty = ServletContextRequest.getServletContextRequest(req);
            return jetty == null ? null : jetty.getConnectionMetaData().getConnection().getEndPoint();
        } catch (RuntimeException e) {
            return null;
        }
    }
}
