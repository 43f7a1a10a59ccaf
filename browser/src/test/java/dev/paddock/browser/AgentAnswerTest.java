package dev.paddock.browser;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.core.spi.ExecRequest;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/** What comes back from the in-sandbox agent is hostile: only known fields, and a navigation code only from a fixed set. */
class AgentAnswerTest {
    final JsonMapper json = JsonMapper.builder().build();

    @Test
    void aRefusedNavigationKeepsItsCodeAndHost() {
        var a = BrowserService.checked(json.readTree("{\"ok\":false,\"error\":\"refused\",\"code\":\"navigation_refused\",\"host\":\"refused.example\",\"url\":\"about:blank\"}"));
        assertThat(a.path("ok").asBoolean()).isFalse();
        assertThat(a.path("code").asString()).isEqualTo("navigation_refused");
        assertThat(a.path("host").asString()).isEqualTo("refused.example");
    }

    @Test
    void anUnknownCodeABadHostOrACodeOnSuccessIsDropped() {
        var unknown = BrowserService.checked(json.readTree("{\"ok\":false,\"code\":\"internal_error\",\"host\":\"a.example\"}"));
        assertThat(unknown.has("code")).isFalse();
        assertThat(unknown.has("host")).isFalse();
        var badHost = BrowserService.checked(json.readTree("{\"ok\":false,\"code\":\"navigation_failed\",\"host\":\"a.example\\n<script>\"}"));
        assertThat(badHost.path("code").asString()).isEqualTo("navigation_failed");
        assertThat(badHost.has("host")).isFalse();
        var ok = BrowserService.checked(json.readTree("{\"ok\":true,\"code\":\"navigation_refused\",\"host\":\"a.example\",\"secret\":1}"));
        assertThat(ok.has("code")).isFalse();
        assertThat(ok.has("secret")).isFalse();
    }

    @Test
    void aLiveViewsExecEndsAtItsLengthWhateverTheWaitForTheAgent() {
        ExecRequest cast = BrowserAssets.castFromAgent(new byte[] {'{', '}'}, Duration.ofSeconds(2), Duration.ofSeconds(60));
        assertThat(cast.timeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(cast.argv()).endsWith("2000");
        ExecRequest longer = BrowserAssets.castFromAgent(new byte[] {'{', '}'}, Duration.ofMinutes(5), Duration.ofSeconds(60));
        assertThat(longer.timeout()).isEqualTo(Duration.ofMinutes(5));
        assertThat(longer.argv()).endsWith("60000");
    }
}
