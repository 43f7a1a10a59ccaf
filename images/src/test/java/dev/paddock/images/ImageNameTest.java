package dev.paddock.images;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.PaddockException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The store refuses a bad name before it touches the disk; the name rule itself is core's {@code ImageLayout}. */
class ImageNameTest {
    @TempDir
    Path tmp;

    @Test
    void everyStoreOperationValidatesTheName() {
        ImageStore store = new ImageStore(tmp.resolve("images"));
        for (Runnable op : new Runnable[] {
                () -> store.find("../x"), () -> store.delete("../x"), () -> store.rootfs("../x"),
                () -> store.importOci("../x", tmp.resolve("a.tar")),
                () -> store.buildDebian("../x", BuildSpec.defaults(), line -> { })}) {
            assertThatThrownBy(op::run)
                    .isInstanceOfSatisfying(PaddockException.class, e -> assertThat(e.code()).isEqualTo("invalid_image_name"));
        }
        assertThat(tmp.resolve("images")).doesNotExist();
    }
}
