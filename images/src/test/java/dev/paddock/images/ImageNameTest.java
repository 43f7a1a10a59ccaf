package dev.paddock.images;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.PaddockException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ImageNameTest {
    @TempDir
    Path tmp;

    @ParameterizedTest
    @ValueSource(strings = {"debian", "bookworm-dev", "py3.12", "a", "x_y", "0abc"})
    void acceptsSimpleNames(String name) {
        assertThat(ImageName.validate(name)).isEqualTo(name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "Debian", "-x", ".hidden", "..", "a/b", "../etc", "a b", "tmp-\u00e9",
            "a234567890123456789012345678901234567890123456789012345678901234"})
    void refusesUnsafeNames(String name) {
        assertThatThrownBy(() -> ImageName.validate(name))
                .isInstanceOfSatisfying(PaddockException.class, e -> {
                    assertThat(e.code()).isEqualTo("invalid_image_name");
                    assertThat(e.getMessage()).contains("a-z");
                });
    }

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

    @Test
    void sixtyThreeCharactersIsTheLongestName() {
        String longest = "a".repeat(63);
        assertThat(ImageName.isValid(longest)).isTrue();
        assertThat(ImageName.isValid(longest + "a")).isFalse();
    }
}
