package dev.paddock.driver.kubernetes;

import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.Sandbox;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Prints medians of one {@code true} through the exec API (driver → mock API server → WebSocket → fake kubelet →
 * bwrap) next to the same bwrap command started directly, the kubelet's own share; the difference is what the exec
 * API's path costs on loopback. Asserts nothing about time. Skipped unless asked for:
 * {@code ./mvnw -B -q -o -pl driver-kubernetes -am test -Dtest=ExecApiLatencyPerfTest -Dpaddock.perf=true -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@Tag("perf")
class ExecApiLatencyPerfTest {
    private static final int ROUNDS = Integer.getInteger("perf.rounds", 20);

    @TempDir
    Path dir;

    @Test
    void printMedians() throws Exception {
        Assumptions.assumeTrue(Boolean.getBoolean("paddock.perf"), "set -Dpaddock.perf=true to measure");
        try (MockCluster cluster = new MockCluster(dir); KubernetesDriver driver = cluster.driver("perf")) {
            Sandbox s = driver.create(KubernetesDriverAgainstMockApiServerTest.spec("sbx_perf"), KubernetesDriverAgainstMockApiServerTest.FENCE);
            List<Long> viaApi = new ArrayList<>(), direct = new ArrayList<>();
            List<String> bwrap = cluster.kubelet.commandLine(ObjectNames.pod("sbx_perf"), List.of("true"));
            for (int i = 0; i < ROUNDS + 3; i++) {
                long t0 = System.nanoTime();
                s.exec(ExecRequest.of("true"), ExecOutput.DISCARD).await();
                long t1 = System.nanoTime();
                new ProcessBuilder(bwrap).start().waitFor();
                long t2 = System.nanoTime();
                if (i >= 3) { // the first rounds warm the JIT and the connection pool
                    viaApi.add(t1 - t0);
                    direct.add(t2 - t1);
                }
            }
            System.out.printf("exec API round trip (median of %d): %.1f ms; the same bwrap started directly: %.1f ms%n",
                    ROUNDS, median(viaApi), median(direct));
        }
    }

    private static double median(List<Long> nanos) {
        List<Long> sorted = new ArrayList<>(nanos);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2) / 1e6;
    }
}
