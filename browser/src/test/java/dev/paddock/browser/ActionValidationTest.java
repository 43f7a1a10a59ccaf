package dev.paddock.browser;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.PaddockException;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/** Bad step-mode input is refused before anything reaches a sandbox (no host is needed to prove it). */
class ActionValidationTest {
    final BrowserService service = new BrowserService(null);
    final JsonMapper json = JsonMapper.builder().build();

    void refused(String action, String code) {
        assertThatThrownBy(() -> service.act(null, "sbx_x", json.readTree(action)))
                .isInstanceOf(PaddockException.class).hasFieldOrPropertyWithValue("code", code);
    }

    @Test
    void unknownActionIsRefused() {
        refused("{\"action\":\"download_everything\"}", "unknown_action");
        refused("[1]", "action_required");
    }

    @Test
    void refMustComeFromASnapshot() {
        refused("{\"action\":\"click\",\"ref\":\"e1'],xpath=//a\"}", "invalid_ref");
    }

    @Test
    void navigateTakesOnlyHttpUrls() {
        refused("{\"action\":\"navigate\",\"url\":\"file:///etc/passwd\"}", "invalid_url");
        refused("{\"action\":\"navigate\",\"url\":\"javascript:alert(1)\"}", "invalid_url");
    }

    @Test
    void frameQualityIsBounded() {
        refused("{\"action\":\"frame\",\"quality\":100}", "invalid_quality");
        refused("{\"action\":\"frame\",\"quality\":\"high\"}", "invalid_quality");
    }

    @Test
    void timeoutsAreBounded() {
        refused("{\"action\":\"snapshot\",\"timeout_ms\":0}", "invalid_timeout");
        refused("{\"action\":\"snapshot\",\"timeout_ms\":99999999}", "invalid_timeout");
    }

    @Test
    void scriptMustBeGiven() {
        assertThatThrownBy(() -> service.runScript(null, "sbx_x", " ", null)).hasFieldOrPropertyWithValue("code", "script_required");
    }
}
