package dev.paddock.agents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.PaddockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Package mirrors and names are checked before any builder runs; the builder may reach exactly the mirrors' hosts. */
class PackageSettingsTest {
    @TempDir Path dir;

    @Test
    void mirrorsMustBeHttpUrlsWithAHostAndTheAptFileMustExist() {
        assertThatThrownBy(() -> new PackageMirrors("ftp://mirror/simple", null, null)).isInstanceOf(PaddockException.class)
                .hasMessageContaining("must be an http:// or https:// URL");
        assertThatThrownBy(() -> new PackageMirrors(null, "not a url", null)).hasMessageContaining("npm").isInstanceOf(PaddockException.class);
        assertThatThrownBy(() -> new PackageMirrors(null, null, dir.resolve("missing.list"))).hasMessageContaining("does not exist");
    }

    @Test
    void theBuilderMayReachTheMirrorsHostsAndThoseOfTheAptSources() throws Exception {
        Path sources = Files.writeString(dir.resolve("m.list"), "deb [trusted=yes] http://apt.example:8080/debian bookworm main\n");
        PackageMirrors m = new PackageMirrors("https://pypi.example/simple/", "http://npm.example:4873/", sources);
        assertThat(m.hosts()).containsExactly("pypi.example", "npm.example:4873", "apt.example:8080");
        assertThat(m.environment()).containsEntry("PIP_INDEX_URL", "https://pypi.example/simple/").containsEntry("npm_config_registry", "http://npm.example:4873/");
    }

    @Test
    void namesThatCouldBeOptionsOrShellAreRefusedByShape() {
        for (var e : Map.of("apt", List.of("-o", "tree;ls", "Tree"), "pip", List.of("--index-url", "a b", "x@y"), "npm", List.of("--registry", "a;b", "../x")).entrySet()) {
            for (String bad : e.getValue()) assertThat(EnvironmentPackages.NAMES.get(e.getKey()).matcher(bad).matches()).as(e.getKey() + " " + bad).isFalse();
        }
        assertThat(EnvironmentPackages.NAMES.get("apt").matcher("libfoo2=1.2-3").matches()).isTrue();
        assertThat(EnvironmentPackages.NAMES.get("pip").matcher("requests[socks]==2.31.0").matches()).isTrue();
        assertThat(EnvironmentPackages.NAMES.get("npm").matcher("@scope/pkg@^1.2.0").matches()).isTrue();
    }
}
