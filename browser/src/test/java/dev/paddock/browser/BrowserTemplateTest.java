package dev.paddock.browser;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.core.spi.Limits;
import dev.paddock.host.SandboxRequest;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BrowserTemplateTest {
    @Test
    void marksTheRequestAndRaisesLimitsToTheBrowserFloors() {
        SandboxRequest r = new SandboxRequest(null, null, false, new Limits(256L << 20, 64, 0.5), Map.of("A", "1"), null, null, null, null);
        SandboxRequest b = BrowserTemplate.apply(r, false);
        assertThat(BrowserTemplate.isBrowser(b.env())).isTrue();
        assertThat(BrowserTemplate.allowsEvaluate(b.env())).isFalse();
        assertThat(b.env()).containsEntry("A", "1");
        assertThat(b.limits()).isEqualTo(new Limits(BrowserTemplate.MIN_MEMORY, BrowserTemplate.MIN_PIDS, BrowserTemplate.MIN_CPUS));
        assertThat(b.idleSuspendAfter()).isEqualTo(BrowserTemplate.IDLE_SUSPEND);
    }

    @Test
    void keepsLargerLimitsAndTheEvaluatePolicy() {
        Limits big = new Limits(4L << 30, 4096, 2.0);
        SandboxRequest b = BrowserTemplate.apply(new SandboxRequest(null, null, false, big, null, null, null, java.time.Duration.ofMinutes(5), null), true);
        assertThat(b.limits()).isEqualTo(big);
        assertThat(b.idleSuspendAfter()).isEqualTo(java.time.Duration.ofMinutes(5));
        assertThat(BrowserTemplate.allowsEvaluate(b.env())).isTrue();
    }

    @Test
    void aPlainSandboxIsNotABrowser() {
        assertThat(BrowserTemplate.isBrowser(Map.of())).isFalse();
    }
}
