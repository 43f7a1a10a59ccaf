package dev.paddock.core.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.PaddockException;
import java.util.List;
import org.junit.jupiter.api.Test;

class CredentialBindingTest {
    static final String SECRET = "sec_0123456789abcdefghjkmnpqrs";

    @Test
    void aHeaderWithoutTemplateCarriesTheSecretAlone() {
        CredentialBinding b = new CredentialBinding(SECRET, List.of("api.example.com", "*.example.org:8443"), "x-api-key", null, null).validate();
        assertThat(b.setsHeader()).isTrue();
        assertThat(b.headerTemplate()).isEqualTo("{secret}");
    }

    @Test
    void aPlaceholderOnlyBindingNeedsItsVariable() {
        assertThat(new CredentialBinding(SECRET, List.of("api.example.com"), null, null, "API_KEY").validate().setsHeader()).isFalse();
        assertRefused(new CredentialBinding(SECRET, List.of("api.example.com"), null, null, null), "invalid_credential_rule", "needs an env variable");
        assertRefused(new CredentialBinding(SECRET, List.of("api.example.com"), null, "Bearer {secret}", "API_KEY"), "invalid_credential_rule", "needs a header");
    }

    @Test
    void headersThatCannotCarryACredentialAreRefused() {
        assertRefused(binding("Proxy-Authorization", "{secret}"), "invalid_credential_rule", "cannot carry a credential");
        assertRefused(binding("Host", "{secret}"), "invalid_credential_rule", "cannot carry a credential");
        assertRefused(binding("bad header", "{secret}"), "invalid_credential_rule", "not a valid HTTP header name");
        assertRefused(binding("Authorization", "Bearer"), "invalid_credential_rule", "must contain {secret}");
        assertRefused(binding("Authorization", "Bearer {secret}\r\nX: y"), "invalid_credential_rule", "control characters");
    }

    @Test
    void secretIdsHostsAndVariablesAreChecked() {
        assertRefused(new CredentialBinding("sec_short", List.of("api.example.com"), "Authorization", null, null), "invalid_credential_rule", "secret_id");
        assertRefused(new CredentialBinding(SECRET, List.of("https://api.example.com/"), "Authorization", null, null), "invalid_allowed_host", "not a URL");
        assertRefused(new CredentialBinding(SECRET, List.of("api.example.com"), null, null, "1BAD"), "invalid_credential_rule", "env_var");
    }

    private static CredentialBinding binding(String header, String template) {
        return new CredentialBinding(SECRET, List.of("api.example.com"), header, template, null);
    }

    private static void assertRefused(CredentialBinding binding, String code, String text) {
        assertThatThrownBy(binding::validate).isInstanceOfSatisfying(PaddockException.class, e -> {
            assertThat(e.code()).isEqualTo(code);
            assertThat(e.getMessage()).contains(text);
        });
    }
}
