package dev.paddock.images;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.PaddockException;
import dev.paddock.core.images.ImageInfo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Hostile layers must fail the import and leave everything outside the (discarded) rootfs untouched. */
class TarSlipTest {
    @TempDir
    Path tmp;
    Path imagesDir;
    Path outside;
    Path canary;
    ImageStore store;

    @BeforeEach
    void setUp() throws IOException {
        imagesDir = tmp.resolve("data/images");
        outside = Files.createDirectories(tmp.resolve("outside"));
        canary = Files.writeString(outside.resolve("canary"), "untouched");
        store = new ImageStore(imagesDir);
    }

    @Test
    void absolutePathIsRefused() throws IOException {
        byte[] layer = new TarBuilder().file("etc/ok", "fine").file(outside.resolve("pwned").toString(), "x").build();
        assertRefused(List.of(layer), "absolute");
    }

    @Test
    void dotDotEscapeIsRefused() throws IOException {
        // images/<tmp>/rootfs/../../../outside/pwned would land in outside/
        byte[] layer = new TarBuilder().file("etc/../../../../outside/pwned", "x").build();
        assertRefused(List.of(layer), "'..'");
    }

    @Test
    void writeThroughSymlinkFromEarlierLayerIsRefused() throws IOException {
        byte[] lower = new TarBuilder().symlink("escape", outside.toString()).build();
        byte[] upper = new TarBuilder().file("escape/pwned", "x").build();
        assertRefused(List.of(lower, upper), "symbolic link");
    }

    @Test
    void writeThroughRelativeSymlinkInSameLayerIsRefused() throws IOException {
        byte[] layer = new TarBuilder().dir("a").symlink("a/up", "../../../../outside").file("a/up/pwned", "x").build();
        assertRefused(List.of(layer), "symbolic link");
    }

    @Test
    void overwritingASymlinkReplacesTheLinkNotItsTarget() throws IOException {
        // A file entry at the link's own path must unlink the link, never write through it.
        byte[] lower = new TarBuilder().symlink("victim", canary.toString()).build();
        byte[] upper = new TarBuilder().file("victim", "replaced").build();
        Path archive = ImageArchives.dockerArchive(tmp.resolve("a.tar"), "t:1", List.of(lower, upper));

        ImageInfo info = store.importOci("victim", archive);

        assertThat(Files.isSymbolicLink(info.rootfs().resolve("victim"))).isFalse();
        assertThat(info.rootfs().resolve("victim")).hasContent("replaced");
        assertThat(canary).hasContent("untouched");
    }

    @Test
    void hardlinkToAbsoluteHostFileIsRefused() throws IOException {
        byte[] layer = new TarBuilder().hardlink("passwd", "/etc/passwd").build();
        assertRefused(List.of(layer), "outside the image");
    }

    @Test
    void hardlinkEscapingWithDotDotIsRefused() throws IOException {
        byte[] layer = new TarBuilder().hardlink("canary-link", "../../../../outside/canary").build();
        assertRefused(List.of(layer), "outside the image");
    }

    @Test
    void hardlinkThroughSymlinkedDirectoryIsRefused() throws IOException {
        byte[] layer = new TarBuilder().symlink("hostetc", "/etc").hardlink("passwd", "hostetc/passwd").build();
        assertRefused(List.of(layer), "symbolic link");
    }

    @Test
    void whiteoutThroughSymlinkIsRefused() throws IOException {
        byte[] lower = new TarBuilder().symlink("escape", outside.toString()).build();
        byte[] upper = new TarBuilder().file("escape/.wh.canary", "").build();
        assertRefused(List.of(lower, upper), "symbolic link");
    }

    @Test
    void opaqueMarkerUnderSymlinkIsRefused() throws IOException {
        byte[] lower = new TarBuilder().symlink("escape", outside.toString()).build();
        byte[] upper = new TarBuilder().file("escape/.wh..wh..opq", "").build();
        assertRefused(List.of(lower, upper), "");
    }

    @Test
    void outerArchiveMemberWithDotDotIsRefused() throws IOException {
        Path archive = Files.write(tmp.resolve("evil.tar"),
                new TarBuilder().file("../../outside/pwned", "x").file("manifest.json", "[]").build());
        assertThatThrownBy(() -> store.importOci("evil", archive))
                .isInstanceOfSatisfying(PaddockException.class, e -> assertThat(e.code()).isEqualTo("unsafe_image_entry"));
        assertOutsideUntouched();
    }

    private void assertRefused(List<byte[]> layers, String reason) throws IOException {
        for (boolean oci : new boolean[] {false, true}) {
            Path archive = oci
                    ? ImageArchives.ociLayout(tmp.resolve("evil-oci.tar"), "evil", layers)
                    : ImageArchives.dockerArchive(tmp.resolve("evil.tar"), "evil:1", layers);
            assertThatThrownBy(() -> store.importOci("evil", archive))
                    .isInstanceOfSatisfying(PaddockException.class, e -> {
                        assertThat(e.code()).isEqualTo("unsafe_image_entry");
                        assertThat(e.getMessage()).contains(reason);
                    });
            assertThat(store.find("evil")).isEmpty();
            assertOutsideUntouched();
            try (Stream<Path> left = Files.list(imagesDir)) {
                assertThat(left).as("temporary directories are removed").isEmpty();
            }
        }
    }

    private void assertOutsideUntouched() throws IOException {
        assertThat(canary).hasContent("untouched");
        try (Stream<Path> files = Files.list(outside)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("canary");
        }
        assertThat(tmp.resolve("pwned")).doesNotExist();
        assertThat(tmp.resolve("data/pwned")).doesNotExist();
    }
}
