package dev.paddock.driver.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class ObjectNamesTest {
    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

    @Test
    void idsThatDifferOnlyInCaseOrUnderscoresGetDifferentLegalNames() {
        String a = ObjectNames.pod("sbx_Ab");
        String b = ObjectNames.pod("sbx-ab");

        assertThat(a).isNotEqualTo(b);
        for (String name : new String[] {a, b, ObjectNames.claim("sbx_Ab"), ObjectNames.networkPolicy("sbx_Ab")}) {
            assertThat(name).matches(DNS_LABEL).hasSizeLessThanOrEqualTo(63);
        }
    }

    @Test
    void longIdsStayWithinTheNameLimit() {
        String id = "sbx_" + "x".repeat(59);

        assertThat(ObjectNames.isSandboxId(id)).isTrue();
        assertThat(ObjectNames.claim(id)).matches(DNS_LABEL).hasSizeLessThanOrEqualTo(63);
    }
}
