package dev.paddock.server.routes.ports;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a server inside a sandbox may say to the browser through a forwarded port: its pages are served from the
 * console's origin, so no header that leaves state with the browser for the whole origin (or clears it) passes;
 * the page's own headers do.
 */
class ProxiedResponseHeadersTest {
    @Test
    void headersThatSetOrClearStateForTheWholeOriginDoNotPass() {
        List<String> originWide = List.of("set-cookie", "set-cookie2", "strict-transport-security", "clear-site-data", "alt-svc",
                "service-worker-allowed", "public-key-pins", "public-key-pins-report-only", "expect-ct", "origin-agent-cluster",
                "nel", "report-to", "accept-ch", "accept-ch-lifetime", "critical-ch", "set-login", "observe-browsing-topics",
                "origin-trial", "activate-storage-access", "attribution-reporting-register-source", "attribution-reporting-register-trigger");
        for (String name : originWide) assertThat(PortAnswers.mayReturn(name)).as(name).isFalse();
    }

    @Test
    void thePagesOwnHeadersPass() {
        for (String name : List.of("content-type", "cache-control", "etag", "location", "content-disposition", "x-custom", "link", "vary")) {
            assertThat(PortAnswers.mayReturn(name)).as(name).isTrue();
        }
    }
}
