package dev.paddock.images;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.PaddockException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The parts of a debootstrap build that need no network: mirror discovery, argument building, validation. */
class DebianBuildConfigTest {
    @TempDir
    Path etcApt;

    @Test
    void usesTheHostsDeb822MirrorAndSkipsSecurityAndThirdPartySources() throws IOException {
        Files.createDirectories(etcApt.resolve("sources.list.d"));
        Files.writeString(etcApt.resolve("sources.list.d/aaa-nodesource.sources"), """
                Types: deb
                URIs: https://deb.nodesource.com/node_20.x
                Suites: nodistro
                Components: main
                """);
        Files.writeString(etcApt.resolve("sources.list.d/debian.sources"), """
                Types: deb
                URIs: http://mirror.example.org/debian-security
                Suites: bookworm-security
                Components: main

                Types: deb
                # a comment
                URIs: http://mirror.example.org/debian/
                Suites: bookworm bookworm-updates
                Components: main
                """);

        assertThat(HostAptMirror.detect(etcApt, "bookworm")).isEqualTo("http://mirror.example.org/debian");
    }

    @Test
    void readsOneLineSourcesList() throws IOException {
        Files.writeString(etcApt.resolve("sources.list"), """
                # deb http://commented.example/debian bookworm main
                deb [arch=amd64 signed-by=/usr/share/keyrings/x.gpg] https://packages.cloud.google.com/apt cloud-sdk-bookworm main
                deb http://ftp.example.net/debian bookworm main contrib
                """);

        assertThat(HostAptMirror.detect(etcApt, "bookworm")).isEqualTo("http://ftp.example.net/debian");
    }

    @Test
    void fallsBackToDebDebianOrgWithoutSources() {
        assertThat(HostAptMirror.detect(etcApt.resolve("missing"), "bookworm")).isEqualTo("http://deb.debian.org/debian");
    }

    @Test
    void debootstrapCommandIsMinbaseWithIncludes() {
        BuildSpec spec = BuildSpec.withPackages(List.of("python3", "ca-certificates"));
        assertThat(Debootstrap.command(Path.of("/usr/sbin/debootstrap"), spec, "http://m/debian", Path.of("/t/rootfs")))
                .containsExactly("/usr/sbin/debootstrap", "--variant=minbase", "--include=python3,ca-certificates",
                        "bookworm", "/t/rootfs", "http://m/debian");
        assertThat(Debootstrap.command(Path.of("/d"), BuildSpec.defaults(), "http://m", Path.of("/t")))
                .containsExactly("/d", "--variant=minbase", "bookworm", "/t", "http://m");
    }

    @Test
    void buildSpecRefusesOptionInjectionAndBadMirrors() {
        assertCode(() -> BuildSpec.withPackages(List.of("--foreign")), "invalid_package_name");
        assertCode(() -> BuildSpec.withPackages(List.of("a,b")), "invalid_package_name");
        assertCode(() -> new BuildSpec(List.of(), "../x", null, null), "invalid_suite");
        assertCode(() -> BuildSpec.defaults().withMirror("file:///etc"), "invalid_mirror");
        assertCode(() -> BuildSpec.defaults().withMirror("http://a b/"), "invalid_mirror");
        assertThat(BuildSpec.defaults().withMirror("https://deb.debian.org/debian").mirror())
                .isEqualTo("https://deb.debian.org/debian");
    }

    private static void assertCode(Runnable r, String code) {
        assertThatThrownBy(r::run).isInstanceOfSatisfying(PaddockException.class, e -> assertThat(e.code()).isEqualTo(code));
    }
}
