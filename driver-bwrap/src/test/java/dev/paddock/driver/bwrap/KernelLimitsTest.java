package dev.paddock.driver.bwrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * At start the driver says when the kernel's process limits hold fewer sandboxes than its uid range allows, and
 * which values would hold them; a host that disables a kind of namespace every sandbox needs is refused.
 */
class KernelLimitsTest {
    @Test
    void aPidMaxBelowOneProcessPerSandboxIsNamedWithTheWayToRaiseIt() {
        KernelLimits limits = new KernelLimits(32_768, 192_725, 768);
        int perSandbox = KernelLimits.processesPerSandbox(false);

        assertThat(perSandbox).as("init alone: bwrap's outer process ends once init serves").isEqualTo(1);
        assertThat(limits.roomForSandboxes(perSandbox)).isEqualTo(32_768 - 768);
        assertThat(limits.shortOf(50_000, perSandbox)).hasValueSatisfying(w -> assertThat(w)
                .contains("room for about 32000 more sandboxes").contains("kernel.pid_max 32768").contains("(its init)")
                .contains("sysctl -w kernel.pid_max="));
        assertThat(limits.shortOf(30_000, perSandbox)).isEmpty();
    }

    @Test
    void aSandboxWithADiskImageHoldsASecondProcessSoTheCommonPidMaxHoldsAboutSixteenThousand() {
        KernelLimits limits = new KernelLimits(32_768, 192_725, 768);
        int perSandbox = KernelLimits.processesPerSandbox(true);

        assertThat(perSandbox).isEqualTo(2);
        assertThat(limits.roomForSandboxes(perSandbox)).isEqualTo((32_768 - 768) / 2);
        assertThat(limits.shortOf(16_000, perSandbox)).isEmpty();
        assertThat(limits.shortOf(20_000, perSandbox)).hasValueSatisfying(w -> assertThat(w)
                .contains("room for about 16000 more sandboxes").contains("each idle sandbox holds 2 processes")
                .contains("kernel thread of its disk image"));
        assertThat(limits.shortOf(50_000, perSandbox)).hasValueSatisfying(w -> assertThat(w)
                .as("the value that holds them: what runs now plus two per sandbox")
                .contains("For 50000 sandboxes set kernel.pid_max and kernel.threads-max to at least 100768")
                .contains("sysctl -w kernel.pid_max=4194304 kernel.threads-max=4194304"));
    }

    @Test
    void aNeedAboveTheSuggestedValueIsWhatTheWarningSuggests() {
        KernelLimits limits = new KernelLimits(32_768, 32_768, 100);

        assertThat(limits.shortOf(2_000_000, 3)).hasValueSatisfying(w -> assertThat(w).contains("sysctl -w kernel.pid_max=6000100 "));
    }

    @Test
    void theSmallerOfPidMaxAndThreadsMaxBoundsTheRoom() {
        assertThat(new KernelLimits(4_194_304, 20_000, 0).roomForSandboxes(2)).isEqualTo(10_000);
        assertThat(new KernelLimits(-1, -1, 10).roomForSandboxes(2)).as("unknown limits claim nothing").isEqualTo(-1);
    }

    @Test
    void aDisabledKindOfNamespaceIsRefusedByNameAndAbsentOrNonZeroLimitsPass() {
        Map<String, Long> sysctls = Map.of("user/max_mnt_namespaces", 0L, "user/max_net_namespaces", 0L, "user/max_pid_namespaces", 1L);

        assertThat(HostCheck.namespaceProblems(name -> sysctls.getOrDefault(name, -1L))).containsExactly(
                "mnt namespaces are disabled (user.max_mnt_namespaces = 0); every sandbox needs one: sysctl -w user.max_mnt_namespaces=10000",
                "net namespaces are disabled (user.max_net_namespaces = 0); every sandbox needs one: sysctl -w user.max_net_namespaces=10000");
        assertThat(HostCheck.namespaceProblems(KernelLimits::sysctl)).as("this host runs sandboxes").isEmpty();
    }

    @Test
    void thisHostsLimitsAreRead() {
        KernelLimits here = KernelLimits.read();
        assertThat(here.pidMax()).as("the whole number, not its first digit").isGreaterThanOrEqualTo(301);
        assertThat(here.processes()).isPositive();
    }
}
