package dev.paddock.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** A failure that is no fault of the client answers 500 with an error id and nothing of the internals. */
class InternalErrorTest {
    @Test
    void brokenCheckpointStorageAnswers500WithAnErrorId() throws Exception {
        try (var t = new TestServer()) {
            String id = t.admin.createSandbox();
            Path checkpoints = t.host.config().checkpointsDir();
            try (Stream<Path> tree = Files.walk(checkpoints)) { // the node's folder of partial archives is in it
                tree.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
            Files.writeString(checkpoints, "not a directory"); // every checkpoint write now fails with an I/O error

            var r = t.admin.post("/v1/sandboxes/" + id + "/checkpoints", null).error(500, "api_error", "internal");
            assertThat(r.message()).containsPattern("err_[0-9a-f]{16}").doesNotContain("IOException").doesNotContain(checkpoints.toString());
        }
    }
}
