package dev.paddock.driver.bwrap;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** At start the driver says when the kernel's process limits hold fewer sandboxes than its uid range allows. */
class KernelLimitsTest {
    @Test
    void aPidMaxBelowTwoProcessesPerSandboxIsNamedWithTheWayToRaiseIt() {
        KernelLimits limits = new KernelLimits(32_768, 192_725, 768);

        assertThat(limits.roomForSandboxes()).isEqualTo((32_768 - 768) / 2);
        assertThat(limits.shortOf(50_000)).hasValueSatisfying(w -> assertThat(w)
                .contains("room for about 16000 more sandboxes").contains("kernel.pid_max 32768").contains("sysctl -w kernel.pid_max="));
        assertThat(limits.shortOf(10_000)).isEmpty();
    }

    @Test
    void theSmallerOfPidMaxAndThreadsMaxBoundsTheRoom() {
        assertThat(new KernelLimits(4_194_304, 20_000, 0).roomForSandboxes()).isEqualTo(10_000);
        assertThat(new KernelLimits(-1, -1, 10).roomForSandboxes()).as("unknown limits claim nothing").isEqualTo(-1);
    }

    @Test
    void thisHostsLimitsAreRead() {
        KernelLimits here = KernelLimits.read();
        assertThat(here.pidMax()).as("the whole number, not its first digit").isGreaterThanOrEqualTo(301);
        assertThat(here.processes()).isPositive();
    }
}
