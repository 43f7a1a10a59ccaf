package dev.paddock.browser;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.host.SandboxRequest;
import dev.paddock.host.WarmProfile;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BrowserTemplateTest {
    private final BrowserTemplate template = new BrowserTemplate(null, 0, driver -> false);

    @Test
    void raisesLimitsToTheBrowserFloorsAndKeepsTheRequestsEnvironment() {
        SandboxRequest r = SandboxRequest.defaults().withLimits(new Limits(256L << 20, 64, 0.5)).withEnv(Map.of("A", "1"));
        SandboxRequest b = template.apply(BrowserTemplate.request(r, false));
        assertThat(BrowserTemplate.allowsEvaluate(b.env())).isFalse();
        assertThat(b.env()).containsEntry("A", "1").doesNotContainKey("PADDOCK_BROWSER");
        assertThat(b.limits()).isEqualTo(new Limits(BrowserTemplate.MIN_MEMORY, BrowserTemplate.MIN_PIDS, BrowserTemplate.MIN_CPUS));
        assertThat(b.idleSuspendAfter()).isEqualTo(BrowserTemplate.IDLE_SUSPEND);
    }

    @Test
    void keepsLargerLimitsAndTheEvaluatePolicy() {
        Limits big = new Limits(4L << 30, 4096, 2.0);
        SandboxRequest r = SandboxRequest.defaults().withLimits(big).withIdle(Duration.ofMinutes(5), null);
        SandboxRequest b = template.apply(BrowserTemplate.request(r, true));
        assertThat(b.limits()).isEqualTo(big);
        assertThat(b.idleSuspendAfter()).isEqualTo(Duration.ofMinutes(5));
        assertThat(BrowserTemplate.allowsEvaluate(b.env())).isTrue();
    }

    @Test
    void chromiumKeepsItsOwnSandboxOnlyOnDriversWhoseBoundaryAllowsIt() {
        var onGvisor = new BrowserTemplate(null, 0, "gvisor"::equals);
        SandboxRequest asked = BrowserTemplate.request(SandboxRequest.defaults().withEnv(Map.of("PADDOCK_BROWSER_CHROMIUM_SANDBOX", "1")), false);
        assertThat(onGvisor.apply(asked.withDriver("gvisor")).env()).containsEntry(BrowserTemplate.CHROMIUM_SANDBOX, "1");
        assertThat(onGvisor.apply(asked.withDriver("bwrap")).env()).as("the request cannot turn it on").containsEntry(BrowserTemplate.CHROMIUM_SANDBOX, "0");
        assertThat(onGvisor.apply(asked).env()).as("the default driver").containsEntry(BrowserTemplate.CHROMIUM_SANDBOX, "0");
    }

    @Test
    void refusesOptionsItDoesNotKnow() {
        SandboxRequest r = SandboxRequest.defaults().withTemplate(BrowserTemplate.NAME, Map.of("headless", "false"));
        assertThatThrownBy(() -> template.apply(r)).isInstanceOfSatisfying(PaddockException.class,
                e -> assertThat(e.code()).isEqualTo("unknown_template_option"));
    }

    @Test
    void theKindIsReadFromTheSpecNotFromTheEnvironment() {
        SandboxSpec plain = SandboxSpec.defaults("sbx_1", "t");
        assertThat(BrowserTemplate.isBrowser(plain)).isFalse();
        SandboxSpec flagged = new SandboxSpec("sbx_1", "t", null, false, null, Map.of("PADDOCK_BROWSER", "1"), null);
        assertThat(BrowserTemplate.isBrowser(flagged)).as("an environment variable makes no browser").isFalse();
        SandboxSpec browser = new SandboxSpec("sbx_1", "t", null, false, null, Map.of(), null, List.of(), null, BrowserTemplate.NAME);
        assertThat(BrowserTemplate.isBrowser(browser)).isTrue();
    }

    @Test
    void itsWarmPoolServesOnlyRequestsWithTheTemplatesDefaults() {
        assertThat(template.warmProfile()).isEmpty();
        WarmProfile pool = new BrowserTemplate(null, 2, driver -> false).warmProfile().orElseThrow();
        NetworkPolicy limited = new NetworkPolicy(NetworkPolicy.Mode.LIMITED, List.of("example.com"), false);
        assertThat(pool.fits().test(template.apply(BrowserTemplate.request(SandboxRequest.defaults().withNetwork(limited), false)))).isTrue();
        assertThat(pool.fits().test(template.apply(BrowserTemplate.request(SandboxRequest.defaults().withNetwork(limited), true))))
                .as("allow_evaluate is set at the sandbox's start").isFalse();
        assertThat(pool.template().template()).isEqualTo(BrowserTemplate.NAME);
    }
}
