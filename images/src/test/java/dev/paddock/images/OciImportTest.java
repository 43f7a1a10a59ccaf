package dev.paddock.images;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.PaddockException;
import dev.paddock.core.images.ImageInfo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OciImportTest {
    @TempDir
    Path tmp;
    Path imagesDir;
    ImageStore store;

    @BeforeEach
    void setUp() {
        imagesDir = tmp.resolve("images");
        store = new ImageStore(imagesDir);
    }

    /** Lower layer: files, a directory that the upper layer makes opaque, a setuid binary, a device node. */
    static byte[] lowerLayer() {
        return new TarBuilder()
                .dir("./")
                .dir("etc").file("etc/hostname", "one").file("etc/old.conf", "remove me")
                .dir("opt").dir("opt/data").file("opt/data/a", "a").file("opt/data/b", "b")
                .dir("usr").dir("usr/bin").file("usr/bin/tool", "#!/bin/sh\n", 04755)
                .hardlink("usr/bin/tool-alias", "usr/bin/tool")
                .symlink("bin", "usr/bin")
                .dir("dev").charDevice("dev/null")
                .build();
    }

    /** Upper layer: a whiteout, an opaque directory with one new file, and an overwrite. */
    static byte[] upperLayer() {
        return new TarBuilder()
                .file("etc/.wh.old.conf", "")
                .dir("opt/data").file("opt/data/.wh..wh..opq", "").file("opt/data/c", "c")
                .file("etc/hostname", "two")
                .build();
    }

    @Test
    void importsDockerSaveArchiveApplyingWhiteoutsAndOpaqueDirectories() throws IOException {
        Path archive = ImageArchives.dockerArchive(tmp.resolve("img.tar"), "demo:1", List.of(lowerLayer(), upperLayer()));

        ImageInfo info = store.importOci("demo", archive);

        assertLayersApplied(info.rootfs());
        assertThat(info.source()).isEqualTo("oci");
        assertThat(info.ref()).isEqualTo("demo:1");
        assertThat(info.env()).contains("LANG=C.UTF-8");
        assertThat(info.rootfs()).isEqualTo(imagesDir.resolve("demo/rootfs"));
        assertThat(info.sizeBytes()).isPositive();
        assertThat(imagesDir.resolve("demo/image.json")).exists();
        assertThat(store.find("demo")).get().extracting(ImageInfo::ref, ImageInfo::sizeBytes)
                .containsExactly("demo:1", info.sizeBytes());
        assertThat(store.list()).extracting(ImageInfo::name).containsExactly("demo");
        assertThat(store.rootfs("demo")).isEqualTo(info.rootfs());
        assertNoLeftovers();
    }

    @Test
    void importsOciLayoutWithGzipLayers() throws IOException {
        Path archive = ImageArchives.ociLayout(tmp.resolve("oci.tar"), "demo:oci", List.of(lowerLayer(), upperLayer()));

        ImageInfo info = store.importOci("demo-oci", archive);

        assertLayersApplied(info.rootfs());
        assertThat(info.ref()).isEqualTo("demo:oci");
        assertThat(info.env()).containsExactly("PATH=/usr/bin");
        assertNoLeftovers();
    }

    private static void assertLayersApplied(Path rootfs) throws IOException {
        assertThat(rootfs.resolve("etc/hostname")).hasContent("two");
        assertThat(rootfs.resolve("etc/old.conf")).doesNotExist();
        assertThat(rootfs.resolve("etc/.wh.old.conf")).doesNotExist();
        try (Stream<Path> data = Files.list(rootfs.resolve("opt/data"))) {
            assertThat(data.map(p -> p.getFileName().toString())).containsExactly("c");
        }
        int mode = (Integer) Files.getAttribute(rootfs.resolve("usr/bin/tool"), "unix:mode");
        assertThat(mode & 07777).as("setuid stripped, rest kept").isEqualTo(0755);
        assertThat(Files.isSameFile(rootfs.resolve("usr/bin/tool"), rootfs.resolve("usr/bin/tool-alias"))).isTrue();
        assertThat(Files.readSymbolicLink(rootfs.resolve("bin"))).isEqualTo(Path.of("usr/bin"));
        assertThat(rootfs.resolve("dev/null")).doesNotExist();
    }

    @Test
    void refusesOciLayerWhoseBlobDoesNotMatchItsDigest() throws IOException {
        Path archive = ImageArchives.ociLayout(tmp.resolve("bad.tar"), "x", List.of(lowerLayer()), ImportTamper::flipMiddleByte);

        assertThatThrownBy(() -> store.importOci("bad", archive))
                .isInstanceOfSatisfying(PaddockException.class, e -> {
                    assertThat(e.code()).isEqualTo("image_digest_mismatch");
                    assertThat(e.getMessage()).contains("layer 1");
                });
        assertThat(store.find("bad")).isEmpty();
        assertNoLeftovers();
    }

    @Test
    void refusesDockerLayerWhoseContentDoesNotMatchDiffId() throws IOException {
        Path archive = ImageArchives.dockerArchive(tmp.resolve("bad.tar"), "x:1", List.of(lowerLayer(), upperLayer()),
                ImportTamper::flipMiddleByte);

        assertThatThrownBy(() -> store.importOci("bad", archive))
                .isInstanceOfSatisfying(PaddockException.class, e -> assertThat(e.code()).isEqualTo("image_digest_mismatch"));
        assertNoLeftovers();
    }

    @Test
    void zstdLayerGetsAClearErrorWhenNoZstdCodecIsPresent() throws IOException {
        byte[] fakeZstd = {0x28, (byte) 0xb5, 0x2f, (byte) 0xfd, 0, 0, 0, 0};
        Path archive = ImageArchives.ociLayoutWithBlobs(tmp.resolve("z.tar"), "z", List.of(fakeZstd),
                "application/vnd.oci.image.layer.v1.tar+zstd", b -> b);

        assertThatThrownBy(() -> store.importOci("z", archive))
                .isInstanceOfSatisfying(PaddockException.class, e -> {
                    assertThat(e.code()).isEqualTo("unsupported_image_format");
                    assertThat(e.getMessage()).contains("zstd").contains("gzip");
                });
        assertNoLeftovers();
    }

    @Test
    void refusesFilesThatAreNotImageArchives() throws IOException {
        Path notTar = Files.writeString(tmp.resolve("x.tar"), "this is not a tar file at all, just text");
        Path plainTar = Files.write(tmp.resolve("plain.tar"), new TarBuilder().file("hello", "world").build());

        assertThatThrownBy(() -> store.importOci("x", notTar))
                .isInstanceOfSatisfying(PaddockException.class, e -> assertThat(e.code()).isEqualTo("invalid_image_archive"));
        assertThatThrownBy(() -> store.importOci("x", plainTar))
                .isInstanceOfSatisfying(PaddockException.class, e -> {
                    assertThat(e.code()).isEqualTo("invalid_image_archive");
                    assertThat(e.getMessage()).contains("docker save");
                });
        assertThatThrownBy(() -> store.importOci("x", tmp.resolve("missing.tar")))
                .isInstanceOfSatisfying(PaddockException.class, e -> assertThat(e.code()).isEqualTo("invalid_image_archive"));
        assertNoLeftovers();
    }

    @Test
    void entryCapStopsTheImportWithAClearError() throws IOException {
        ImageStore tight = new ImageStore(imagesDir, new ImageLimits(1 << 20, 1 << 20, 5, 8));
        Path archive = ImageArchives.dockerArchive(tmp.resolve("big.tar"), "big:1", List.of(lowerLayer()));

        assertThatThrownBy(() -> tight.importOci("big", archive))
                .isInstanceOfSatisfying(PaddockException.class, e -> {
                    assertThat(e.code()).isEqualTo("image_too_large");
                    assertThat(e.getMessage()).contains("5");
                });
        assertNoLeftovers();
    }

    @Test
    void byteCapStopsAGzipBomb() throws IOException {
        byte[] zeros = new byte[4 << 20]; // compresses to a few KiB
        byte[] layer = new TarBuilder().file("zeros", zeros, 0644).build();
        ImageStore tight = new ImageStore(imagesDir, new ImageLimits(1 << 20, 1 << 20, 100, 8));
        Path archive = ImageArchives.ociLayout(tmp.resolve("bomb.tar"), "bomb", List.of(layer));
        assertThat(Files.size(archive)).isLessThan(1 << 20);

        assertThatThrownBy(() -> tight.importOci("bomb", archive))
                .isInstanceOfSatisfying(PaddockException.class, e -> assertThat(e.code()).isEqualTo("image_too_large"));
        assertNoLeftovers();
    }

    @Test
    void secondImportUnderTheSameNameIsRefusedAndDeleteFreesTheName() throws IOException {
        Path archive = ImageArchives.dockerArchive(tmp.resolve("img.tar"), "demo:1", List.of(lowerLayer()));
        store.importOci("demo", archive);

        assertThatThrownBy(() -> store.importOci("demo", archive))
                .isInstanceOfSatisfying(PaddockException.class, e -> assertThat(e.code()).isEqualTo("image_exists"));

        store.delete("demo");
        assertThat(store.find("demo")).isEmpty();
        assertThat(imagesDir.resolve("demo")).doesNotExist();
        assertThatThrownBy(() -> store.rootfs("demo"))
                .isInstanceOfSatisfying(PaddockException.class, e -> assertThat(e.code()).isEqualTo("image_not_found"));
        assertThatThrownBy(() -> store.delete("demo"))
                .isInstanceOfSatisfying(PaddockException.class, e -> assertThat(e.code()).isEqualTo("image_not_found"));
        assertThat(store.importOci("demo", archive).name()).isEqualTo("demo");
        assertNoLeftovers();
    }

    @Test
    void publishedImageDirectoriesAreTraversableBySandboxUsers() throws IOException {
        Path archive = ImageArchives.dockerArchive(tmp.resolve("img.tar"), "demo:1", List.of(lowerLayer()));
        ImageInfo info = store.importOci("demo", archive);

        for (Path dir : List.of(imagesDir.resolve("demo"), info.rootfs())) {
            int mode = (Integer) Files.getAttribute(dir, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            assertThat(mode & 0755).as(dir.toString()).isEqualTo(0755);
        }
    }

    @Test
    void importsGzippedDockerArchiveWhoseDuplicateLayerIsASymlink() throws IOException {
        // docker save stores a repeated layer once and links the second path to it
        byte[] layer = lowerLayer();
        String diffId = ImageArchives.sha256(layer);
        String config = "{\"config\":{},\"rootfs\":{\"type\":\"layers\",\"diff_ids\":[\"" + diffId + "\",\"" + diffId + "\"]}}";
        byte[] outer = new TarBuilder()
                .file("config.json", config)
                .dir("l0").file("l0/layer.tar", layer, 0644)
                .dir("l1").symlink("l1/layer.tar", "../l0/layer.tar")
                .file("manifest.json", "[{\"Config\":\"config.json\",\"Layers\":[\"l0/layer.tar\",\"l1/layer.tar\"]}]")
                .build();
        Path archive = Files.write(tmp.resolve("dup.tar.gz"), TarBuilder.gzip(outer));

        ImageInfo info = store.importOci("dup", archive);

        assertThat(info.rootfs().resolve("etc/hostname")).hasContent("one");
        assertThat(info.ref()).startsWith("sha256:");
    }

    @Test
    void archiveSymlinkLeavingTheArchiveIsNotFollowed() throws IOException {
        byte[] layer = lowerLayer();
        String config = "{\"rootfs\":{\"diff_ids\":[\"" + ImageArchives.sha256(layer) + "\"]}}";
        byte[] outer = new TarBuilder()
                .file("config.json", config)
                .symlink("l0.tar", "../../../../etc/passwd")
                .file("manifest.json", "[{\"Config\":\"config.json\",\"Layers\":[\"l0.tar\"]}]")
                .build();
        Path archive = Files.write(tmp.resolve("link.tar"), outer);

        assertThatThrownBy(() -> store.importOci("link", archive))
                .isInstanceOfSatisfying(PaddockException.class, e -> {
                    assertThat(e.code()).isEqualTo("invalid_image_archive");
                    assertThat(e.getMessage()).contains("missing from the archive");
                });
        assertNoLeftovers();
    }

    @Test
    void mirrorComesFromTheSpecThenTheStoreDefault() {
        ImageStore withDefault = new ImageStore(imagesDir, ImageLimits.DEFAULT, "http://mirror.example/debian");
        assertThat(withDefault.mirrorFor(BuildSpec.defaults())).isEqualTo("http://mirror.example/debian");
        assertThat(withDefault.mirrorFor(BuildSpec.defaults().withMirror("https://other.example/debian")))
                .isEqualTo("https://other.example/debian");
        assertThatThrownBy(() -> new ImageStore(imagesDir, ImageLimits.DEFAULT, "ftp://x"))
                .isInstanceOfSatisfying(PaddockException.class, e -> assertThat(e.code()).isEqualTo("invalid_mirror"));
    }

    private void assertNoLeftovers() throws IOException {
        if (!Files.isDirectory(imagesDir)) return;
        try (Stream<Path> entries = Files.list(imagesDir)) {
            assertThat(entries.map(p -> p.getFileName().toString()))
                    .noneMatch(n -> n.startsWith("."));
        }
    }
}
