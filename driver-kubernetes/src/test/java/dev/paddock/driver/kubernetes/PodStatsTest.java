package dev.paddock.driver.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.core.spi.SandboxStatus;
import org.junit.jupiter.api.Test;

/** What a pod's stats exec prints is the sandbox's to forge: anything but a plain number is unknown, never an error. */
class PodStatsTest {
    @Test
    void cgroupV2NumbersAreReadAndMaxIsUnknown() {
        SandboxStatus s = PodStats.parse("memory 1048576\nmemory_max max\npids 3\noom 0\ncpu_usec 1500\n");

        assertThat(s.memoryBytes()).isEqualTo(1048576);
        assertThat(s.memoryLimitBytes()).isEqualTo(-1);
        assertThat(s.pids()).isEqualTo(3);
        assertThat(s.oomKills()).isZero();
        assertThat(s.cpuNanos()).isEqualTo(1_500_000);
    }

    @Test
    void forgedOrMissingValuesAreUnknownAndTheFirstLineOfAKeyWins() {
        SandboxStatus s = PodStats.parse("memory -5\nmemory 7\npids 99999999999999999999999\noom 1e9\ncpu_usec\ngarbage\n\u0000 x\n");

        assertThat(s.memoryBytes()).isEqualTo(-1);
        assertThat(s.pids()).isEqualTo(-1);
        assertThat(s.oomKills()).isEqualTo(-1);
        assertThat(s.cpuNanos()).isEqualTo(-1);
        assertThat(s.memoryLimitBytes()).isEqualTo(-1);
        assertThat(s.alive()).isTrue();
    }
}
