package dev.paddock.core.images;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.PaddockException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ImageLayoutTest {
    @ParameterizedTest
    @ValueSource(strings = {"debian", "bookworm-dev", "py3.12", "a", "x_y", "0abc"})
    void acceptsSimpleNames(String name) {
        assertThat(ImageLayout.validateName(name)).isEqualTo(name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "Debian", "-x", ".hidden", "..", "a/b", "../etc", "a b", "tmp-\u00e9",
            "a234567890123456789012345678901234567890123456789012345678901234"})
    void refusesUnsafeNames(String name) {
        assertThatThrownBy(() -> ImageLayout.validateName(name))
                .isInstanceOfSatisfying(PaddockException.class, e -> {
                    assertThat(e.code()).isEqualTo("invalid_image_name");
                    assertThat(e.getMessage()).contains("a-z");
                });
    }

    @Test
    void sixtyThreeCharactersIsTheLongestName() {
        String longest = "a".repeat(63);
        assertThat(ImageLayout.isValidName(longest)).isTrue();
        assertThat(ImageLayout.isValidName(longest + "a")).isFalse();
    }

    @Test
    void anImageIsARootfsUnderTheDataDirectory() {
        ImageLayout layout = ImageLayout.inDataDir(Path.of("/var/lib/paddock"));
        assertThat(layout.imagesDir()).isEqualTo(Path.of("/var/lib/paddock/images"));
        assertThat(layout.rootfs("debian")).isEqualTo(Path.of("/var/lib/paddock/images/debian/rootfs"));
        assertThatThrownBy(() -> layout.rootfs("../etc"))
                .isInstanceOfSatisfying(PaddockException.class, e -> assertThat(e.code()).isEqualTo("invalid_image_name"));
    }
}
