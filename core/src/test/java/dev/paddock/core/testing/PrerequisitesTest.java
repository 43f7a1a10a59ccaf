package dev.paddock.core.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PrerequisitesTest {
    @Test
    void ciIsRecognisedByItsUsualValuesOnly() {
        assertThat(Prerequisites.underCi("true")).isTrue();
        assertThat(Prerequisites.underCi("TRUE")).isTrue();
        assertThat(Prerequisites.underCi("1")).isTrue();
        assertThat(Prerequisites.underCi(null)).isFalse();
        assertThat(Prerequisites.underCi("")).isFalse();
        assertThat(Prerequisites.underCi("false")).isFalse();
    }

    @Test
    void aMissingPrerequisiteSkipsOutsideCiAndFailsUnderIt() {
        assertThatCode(() -> Prerequisites.require(true, () -> "never asked", "true")).doesNotThrowAnyException();
        assertThatThrownBy(() -> Prerequisites.require(false, () -> "bwrap is missing", null))
                .isInstanceOf(org.opentest4j.TestAbortedException.class).hasMessageContaining("bwrap is missing");
        assertThatThrownBy(() -> Prerequisites.require(false, () -> "bwrap is missing", "true"))
                .isInstanceOf(AssertionError.class).hasMessageContaining("bwrap is missing").hasMessageContaining("CI");
    }
}
