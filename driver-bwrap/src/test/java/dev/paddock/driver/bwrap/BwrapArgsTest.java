package dev.paddock.driver.bwrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.PaddockException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BwrapArgsTest {
    private static java.util.List<String> args(BwrapArgs.Root root, Map<String, String> env) {
        return BwrapArgs.build(Path.of("/usr/bin/bwrap"), Path.of("/data/bin/init"), Path.of("/data/sandboxes/x/workspace"), "x", root, env);
    }

    @Test
    void unsharesEverythingDropsCapabilitiesAndDoesNotDieWithTheHost() {
        var a = args(new BwrapArgs.Root.Host(Path.of("/data/etc/base-1"), Path.of("/data/sandboxes/x/etc")), Map.of());
        assertThat(a).contains("--unshare-all", "--unshare-user", "--disable-userns", "--new-session", "--as-pid-1", "--clearenv");
        assertThat(String.join(" ", a)).contains("--cap-drop ALL").contains("--ro-bind /usr /usr")
                .doesNotContain("--ro-bind /etc /etc").contains("--ro-bind /data/etc/base-1 /etc --ro-bind /data/sandboxes/x/etc /etc/paddock")
                .contains("--bind /data/sandboxes/x/workspace /workspace").contains("--ro-bind /data/bin/init " + BwrapArgs.INIT_PATH)
                .endsWith("-- " + BwrapArgs.INIT_PATH + " serve 4");
        assertThat(a).doesNotContain("--die-with-parent", "--share-net");
    }

    @Test
    void imageRootIsBoundReadOnlyAtRoot() {
        var a = String.join(" ", args(new BwrapArgs.Root.Image(Path.of("/img/rootfs"), false), Map.of()));
        assertThat(a).contains("--ro-bind /img/rootfs /").doesNotContain("--ro-bind /usr /usr");
        assertThat(String.join(" ", args(new BwrapArgs.Root.Image(Path.of("/img/rootfs"), true), Map.of())))
                .contains("--overlay-src /img/rootfs --tmp-overlay /");
    }

    @Test
    void refusesBadEnvironmentNames() {
        assertThat(String.join(" ", args(new BwrapArgs.Root.Host(Path.of("/data/etc/base-1"), Path.of("/data/sandboxes/x/etc")), Map.of("A", "1")))).contains("--setenv A 1");
        assertThatThrownBy(() -> args(new BwrapArgs.Root.Host(Path.of("/data/etc/base-1"), Path.of("/data/sandboxes/x/etc")), Map.of("A=B", "1"))).isInstanceOf(PaddockException.class);
        assertThatThrownBy(() -> args(new BwrapArgs.Root.Host(Path.of("/data/etc/base-1"), Path.of("/data/sandboxes/x/etc")), Map.of("A", "x\0y"))).isInstanceOf(PaddockException.class);
    }

    @Test
    void conformanceRecordMatchesWhatIsImplemented() {
        var c = BwrapConformance.RECORD;
        assertThat(c.driver()).isEqualTo("bwrap");
        assertThat(c.supportsSuspendResume()).isTrue();
        assertThat(c.supportsCheckpoint("workspace_tar")).isTrue();
        assertThat(c.portFacts().unavailable()).contains("network_egress", "process_memory_checkpoint");
    }
}
