package dev.paddock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/API.md's table of error codes is generated from the catalogue and must not go stale. */
class ErrorCodesDocTest {
    @Test
    void apiDocListsEveryCodeOfTheCatalogue() throws Exception {
        Path doc = repositoryRoot().resolve("docs/API.md");
        String actual = Files.readString(doc, StandardCharsets.UTF_8);
        String expected = ErrorCodesTable.replaceIn(actual);

        if (Boolean.getBoolean("paddock.regenerate-docs")) {
            Files.writeString(doc, expected, StandardCharsets.UTF_8);
            actual = expected;
        }

        assertThat(actual)
                .as(doc + " is stale; regenerate it with: " + ErrorCodesTable.REGENERATE_HINT)
                .isEqualTo(expected);
    }

    @Test
    void wireNamesAreSnakeCaseAndFoundAgain() {
        for (ErrorCode code : ErrorCode.values()) {
            assertThat(code.wire()).matches("[a-z][a-z0-9_]*");
            assertThat(ErrorCode.fromWire(code.wire())).contains(code);
            assertThat(code.meaning()).as(code.wire()).isNotBlank().doesNotContain("|").doesNotContain("\n");
        }
        assertThat(ErrorCode.fromWire("no_such_code")).isEmpty();
    }

    /** The directory holding mvnw, found upwards from the module directory surefire runs in. */
    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.exists(dir.resolve("mvnw")) && Files.isDirectory(dir.resolve("core"))) return dir;
        }
        throw new IllegalStateException("cannot find the repository root (the directory with mvnw) above " + Path.of("").toAbsolutePath());
    }
}
