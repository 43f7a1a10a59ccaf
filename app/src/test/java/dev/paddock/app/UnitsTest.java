package dev.paddock.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.app.cli.Units;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class UnitsTest {
    @Test
    void durations() {
        assertThat(Units.duration("30s")).isEqualTo(Duration.ofSeconds(30));
        assertThat(Units.duration("10m")).isEqualTo(Duration.ofMinutes(10));
        assertThat(Units.duration("1h")).isEqualTo(Duration.ofHours(1));
        assertThat(Units.duration("2d")).isEqualTo(Duration.ofDays(2));
        assertThat(Units.duration("90")).isEqualTo(Duration.ofSeconds(90));
        assertThat(Units.duration("250ms")).isEqualTo(Duration.ofMillis(250));
        assertThatThrownBy(() -> Units.duration("1w")).hasMessageContaining("not a duration");
        assertThatThrownBy(() -> Units.duration("-5s")).hasMessageContaining("not a duration");
        assertThatThrownBy(() -> Units.duration("0s")).hasMessageContaining("positive");
    }

    @Test
    void sizesArePowersOf1024() {
        assertThat(Units.size("512m")).isEqualTo(512L << 20);
        assertThat(Units.size("1g")).isEqualTo(1L << 30);
        assertThat(Units.size("1GiB")).isEqualTo(1L << 30);
        assertThat(Units.size("64k")).isEqualTo(64L << 10);
        assertThat(Units.size("1000")).isEqualTo(1000L);
        assertThatThrownBy(() -> Units.size("1.5g")).hasMessageContaining("not a size");
        assertThatThrownBy(() -> Units.size("99999999999999t")).hasMessageContaining("too large");
    }

    @Test
    void formatting() {
        assertThat(Units.formatSize(512L << 20)).isEqualTo("512m");
        assertThat(Units.formatSize(1536)).isEqualTo("1.5k");
        assertThat(Units.formatDuration(Duration.ofSeconds(3725))).isEqualTo("1h2m");
        assertThat(Units.formatDuration(Duration.ofSeconds(42))).isEqualTo("42s");
    }
}
