package dev.paddock.conformance;

import dev.paddock.core.conformance.Conformance;
import dev.paddock.core.spi.SandboxDriver;
import dev.paddock.driver.browservm.DaemonDriver;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import java.util.Optional;
import dev.paddock.core.testing.Prerequisites;

import static org.assertj.core.api.Assertions.assertThat;

/** docs/drivers.md is generated from the fixtures' conformance records and must not go stale. */
class DriversDocTest {
    @Test
    void driversDocMatchesTheConformanceRecords() throws Exception {
        List<Conformance> records = new ArrayList<>();
        for (DriverFixture fixture : DriverFixtures.all()) {
            Optional<String> missing = fixture.unavailableReason().get();
            Prerequisites.require(missing.isEmpty(), () -> "every driver must run here to render the full table; "
                    + fixture.name() + " cannot: " + missing.orElse(""));
            Path dataDir = DataDirs.create();
            try (SandboxDriver driver = fixture.create(dataDir)) {
                // one row per driver: fixtures may run one driver with several settings (docker with runc and runsc)
                if (records.stream().noneMatch(r -> r.driver().equals(driver.id()))) records.add(driver.conformance());
            } finally {
                DataDirs.deleteQuietly(dataDir);
            }
        }
        // a paired daemon's sandboxes need a server and a daemon: its record is proven by app's DaemonConformanceTest
        records.add(DaemonDriver.conformanceRecord());
        String expected = DriversTable.render(records);
        Path doc = repositoryRoot().resolve("docs/drivers.md");

        if (Boolean.getBoolean("paddock.regenerate-docs")) {
            Files.createDirectories(doc.getParent());
            Files.writeString(doc, expected, StandardCharsets.UTF_8);
        }

        String actual = Files.exists(doc) ? Files.readString(doc, StandardCharsets.UTF_8) : "";
        assertThat(actual)
                .as(doc + " is stale; regenerate it with: " + DriversTable.REGENERATE_HINT)
                .isEqualTo(expected);
    }

    /** The directory holding mvnw, found upwards from the module directory surefire runs in. */
    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.exists(dir.resolve("mvnw")) && Files.isDirectory(dir.resolve("conformance"))) return dir;
        }
        throw new IllegalStateException("cannot find the repository root (the directory with mvnw) above " + Path.of("").toAbsolutePath());
    }
}
