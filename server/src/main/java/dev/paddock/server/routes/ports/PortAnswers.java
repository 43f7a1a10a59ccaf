package dev.paddock.server.routes.ports;

import jakarta.servlet.http.HttpServletResponse;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What an answer from a forwarded port may carry to the browser, applied where the answer is read from the sandbox
 * and again wherever it is relayed (another node's answer is treated as this node's own would be): no header that
 * acts on the console's whole origin, and a CSP sandbox without same-origin rights, no referrer, no sniffing.
 */
public final class PortAnswers {
    /** Served with every proxied answer: an opaque origin for the page, and the page's own resources still work. */
    static final String SANDBOX_CSP = "sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads";
    /**
     * Response headers a sandbox may not set on the console's origin: those that leave state with the browser for the
     * whole origin (cookies, HSTS, pins, network error and report endpoints, client hints, login status, topics,
     * attribution, origin trials) or clear it, and those Paddock sets itself.
     */
    private static final Set<String> NOT_RETURNED = Set.of("set-cookie", "set-cookie2", "strict-transport-security", "clear-site-data",
            "alt-svc", "service-worker-allowed", "referrer-policy", "public-key-pins", "public-key-pins-report-only", "expect-ct",
            "origin-agent-cluster", "x-content-type-options", "nel", "report-to", "accept-ch", "accept-ch-lifetime", "critical-ch",
            "set-login", "observe-browsing-topics", "origin-trial", "activate-storage-access");
    /** A forwarded port's proxy, by API key or by the port's token. */
    private static final Pattern PROXY_PATH = Pattern.compile("/v1/sandboxes/[^/]+/ports/[0-9]+/(proxy|t/[^/]+)(/.*)?");

    private PortAnswers() {}

    public static boolean isProxyPath(String path) {
        return PROXY_PATH.matcher(path).matches();
    }

    /** False for a header (lower case) a sandbox's server may not set on the console's origin. */
    public static boolean mayReturn(String lowerName) {
        return !NOT_RETURNED.contains(lowerName) && !lowerName.startsWith("attribution-reporting-");
    }

    /** Adds what keeps the page in its sandbox; call after the answer's own headers are set. */
    public static void protect(HttpServletResponse res) {
        if (!res.getHeaders("Content-Security-Policy").contains(SANDBOX_CSP)) res.addHeader("Content-Security-Policy", SANDBOX_CSP);
        res.setHeader("Referrer-Policy", "no-referrer");
        res.setHeader("X-Content-Type-Options", "nosniff");
    }
}
