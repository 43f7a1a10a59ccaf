package dev.paddock.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.app.serve.ServeSettings;
import dev.paddock.app.serve.ServeSettings.SettingsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServeSettingsTest {
    @TempDir Path home;

    @org.junit.jupiter.api.BeforeEach
    void openHome() throws Exception {
        // a home other users may pass through, so the default data dir is inside it (see the closed-home test)
        Files.setPosixFilePermissions(home, java.nio.file.attribute.PosixFilePermissions.fromString("rwx--x--x"));
    }

    @Test
    void defaults() throws Exception {
        ServeSettings s = ServeSettings.resolve(Map.of(), Map.of(), null, home);
        assertThat(s.dataDir()).isEqualTo(home.resolve(".paddock"));
        assertThat(s.bind()).isEqualTo("127.0.0.1");
        assertThat(s.port()).isEqualTo(7070);
        assertThat(s.driver()).isEqualTo("bwrap");
        assertThat(s.defaultTimeout()).isEqualTo(Duration.ofHours(1));
        assertThat(s.idleSuspendAfter()).isNull();
        assertThat(s.maxUploadBytes()).isEqualTo(1L << 30);
        assertThat(s.modelRetryBudget()).isEqualTo(Duration.ofMinutes(2));
        assertThat(ServeSettings.resolve(Map.of(), Map.of("PADDOCK_MODEL_RETRY_BUDGET", "30s"), null, home).modelRetryBudget())
                .isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void aHomeClosedToOtherUsersPutsTheDataDirWhereSandboxesCanReachIt() throws Exception {
        // sandboxes run as their own uids: they could not pass through a 0700 home (root's /root) to their workspace
        Files.setPosixFilePermissions(home, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        assertThat(ServeSettings.resolve(Map.of(), Map.of(), null, home).dataDir()).isEqualTo(Path.of("/var/lib/paddock"));
        assertThat(ServeSettings.resolve(Map.of(), Map.of("PADDOCK_DATA_DIR", "/tmp/x"), null, home).dataDir()).isEqualTo(Path.of("/tmp/x"));
    }

    @Test
    void environmentBeatsFileAndFlagBeatsEnvironment() throws Exception {
        Path file = Files.writeString(home.resolve("p.properties"), "port=8000\nbind=0.0.0.0\ndefault_timeout=2h\nidle_suspend_after=10m\n");
        ServeSettings s = ServeSettings.resolve(Map.of("port", "9000"), Map.of("PADDOCK_PORT", "8500", "PADDOCK_BIND", "127.0.0.2"), file, home);
        assertThat(s.port()).isEqualTo(9000);
        assertThat(s.bind()).isEqualTo("127.0.0.2");
        assertThat(s.defaultTimeout()).isEqualTo(Duration.ofHours(2));
        assertThat(s.idleSuspendAfter()).isEqualTo(Duration.ofMinutes(10));
    }

    @Test
    void fileInTheDataDirIsReadWhenNoneIsNamed() throws Exception {
        Path dir = Files.createDirectories(home.resolve("data"));
        Files.writeString(dir.resolve("paddock.properties"), "max_timeout=3d\n");
        ServeSettings s = ServeSettings.resolve(Map.of(), Map.of("PADDOCK_DATA_DIR", dir.toString()), null, home);
        assertThat(s.dataDir()).isEqualTo(dir);
        assertThat(s.maxTimeout()).isEqualTo(Duration.ofDays(3));
    }

    @Test
    void mistakesAreNamed() throws Exception {
        Path typo = Files.writeString(home.resolve("typo.properties"), "prot=8000\n");
        assertThatThrownBy(() -> ServeSettings.resolve(Map.of(), Map.of(), typo, home))
                .hasMessageContaining("unknown key(s)").hasMessageContaining("prot").hasMessageContaining("port");
        assertThatThrownBy(() -> ServeSettings.resolve(Map.of("port", "70000"), Map.of(), null, home))
                .hasMessageContaining("port must be a number from 0 to 65535");
        assertThatThrownBy(() -> ServeSettings.resolve(Map.of(), Map.of("PADDOCK_DEFAULT_TIMEOUT", "soon"), null, home))
                .hasMessageContaining("default_timeout").hasMessageContaining("not a duration");
        assertThatThrownBy(() -> ServeSettings.resolve(Map.of(), Map.of(), home.resolve("absent.properties"), home))
                .hasMessageContaining("does not exist");
        assertThatThrownBy(() -> ServeSettings.resolve(Map.of(), Map.of("PADDOCK_MODEL_PRICES", "local-model=cheap"), null, home))
                .isInstanceOf(SettingsException.class).hasMessageContaining("model_prices entry 'local-model=cheap'");
        assertThatThrownBy(() -> ServeSettings.resolve(Map.of(), Map.of("PADDOCK_MODEL_RETRY_BUDGET", "a while"), null, home))
                .isInstanceOf(SettingsException.class).hasMessageContaining("model_retry_budget");
    }

    @Test
    void modelPricesAddToTheBuiltInOnes() throws Exception {
        ServeSettings s = ServeSettings.resolve(Map.of(), Map.of("PADDOCK_MODEL_PRICES", "local-model=0.5/2"), null, home);
        assertThat(s.modelPrices().of("local-model").orElseThrow().output()).isEqualByComparingTo("2");
        assertThat(s.modelPrices().priced("claude-sonnet-4-5")).isTrue();
        assertThat(ServeSettings.resolve(Map.of(), Map.of(), null, home).modelPrices().priced("local-model")).isFalse();
    }
}
