package dev.paddock.driver.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.SandboxStatus;
import org.junit.jupiter.api.Test;

/**
 * {@code inspect} of a running pod reads the container's cgroup through one exec: the fake kubelet puts every exec of
 * the pod in a memory and pids cgroup of its own with the container's memory limit, as a container runtime does.
 */
class PodStatsAgainstMockApiServerTest extends SandboxOnMockCluster {
    PodStatsAgainstMockApiServerTest() {
        super("sbx_stats");
    }

    @Test
    void inspectReportsMemoryUseTheMemoryLimitAndTheProcessCountAgainstMockApiServer() {
        SandboxStatus idle = sandbox.inspect();
        assertThat(idle.alive()).isTrue();
        assertThat(idle.memoryLimitBytes()).isEqualTo(256L << 20);
        assertThat(idle.memoryBytes()).isPositive();
        assertThat(idle.pids()).isPositive();

        // three sleepers in the background: the count grows by at least three
        for (int i = 0; i < 3; i++) sandbox.startProcess(ExecRequest.of("sleep", "3" + System.nanoTime() % 1000));
        SandboxStatus busy = sandbox.inspect();
        assertThat(busy.pids()).isGreaterThanOrEqualTo(idle.pids() + 3);
    }
}
