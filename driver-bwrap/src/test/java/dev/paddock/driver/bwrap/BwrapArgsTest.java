package dev.paddock.driver.bwrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.PaddockException;
import dev.paddock.init.SandboxLayout;
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
        assertThat(a).contains("--unshare-all", "--unshare-user", "--new-session", "--as-pid-1", "--clearenv");
        assertThat(String.join(" ", a)).contains("--cap-drop ALL").contains("--seccomp " + BwrapArgs.SECCOMP_FD).contains("--ro-bind /usr /usr")
                .doesNotContain("--ro-bind /etc /etc").contains("--ro-bind /data/etc/base-1 /etc --ro-bind /data/sandboxes/x/etc /etc/paddock")
                .contains("--bind /data/sandboxes/x/workspace /workspace").contains("--ro-bind /data/bin/init " + SandboxLayout.INIT_PATH)
                .endsWith("-- " + SandboxLayout.INIT_PATH + " serve 4");
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
    void bindsTheOutputsDirectoryReadWriteAtMntSessionOutputs(@org.junit.jupiter.api.io.TempDir Path tmp) throws java.io.IOException {
        var host = String.join(" ", args(new BwrapArgs.Root.Host(Path.of("/data/etc/base-1"), Path.of("/data/sandboxes/x/etc")), Map.of()));
        assertThat(host).contains("--bind /data/sandboxes/x/outputs /mnt/session/outputs");
        // a read-only image needs a tmpfs on its /mnt to hold the mount point; without /mnt there is nothing to mount on
        Path withMnt = java.nio.file.Files.createDirectories(tmp.resolve("img/mnt")).getParent();
        assertThat(String.join(" ", args(new BwrapArgs.Root.Image(withMnt, false), Map.of())))
                .contains("--tmpfs /mnt --bind /data/sandboxes/x/outputs /mnt/session/outputs");
        assertThat(String.join(" ", args(new BwrapArgs.Root.Image(tmp.resolve("bare"), false), Map.of())))
                .doesNotContain("/mnt/session/outputs");
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
        assertThat(c.portFacts().unavailable()).contains("process_memory_checkpoint").doesNotContain("network_egress");
        assertThat(c.credentialEgress().enforcement()).isEqualTo(dev.paddock.core.conformance.Conformance.Enforcement.ENFORCED);
        assertThat(c.credentialEgress().interceptedProtocols()).containsExactly("https");
    }

    @Test
    void egressBindsTheSocketDirectoryAndBundleReadOnlyAndSetsTheProxyEnvironment() {
        var egress = new BwrapArgs.Egress(Path.of("/data/egress/x"), "proxy.sock", Path.of("/data/sandboxes/x/egress/ca-certificates.crt"), true,
                Map.of("API_KEY", "paddock-secret-00"));
        var a = BwrapArgs.build(Path.of("/usr/bin/bwrap"), Path.of("/data/bin/init"), Path.of("/data/sandboxes/x/workspace"), "x",
                new BwrapArgs.Root.Host(Path.of("/data/etc/base-1"), Path.of("/data/sandboxes/x/etc")), Map.of("API_KEY", "mine", "HTTP_PROXY", "x"), egress);
        String line = String.join(" ", a);
        assertThat(line).contains("--unshare-all").doesNotContain("--share-net")
                .contains("--ro-bind /data/egress/x " + SandboxLayout.EGRESS_DIR)
                .contains("--ro-bind /data/sandboxes/x/egress/ca-certificates.crt " + SandboxLayout.CA_BUNDLE)
                .contains("--ro-bind /data/sandboxes/x/egress/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt")
                .endsWith("serve 4 --egress " + SandboxLayout.EGRESS_DIR + "/proxy.sock")
                .contains("--setenv https_proxy http://127.0.0.1:3128").contains("--setenv NO_PROXY localhost,127.0.0.1")
                .contains("--setenv PIP_CERT " + SandboxLayout.CA_BUNDLE).contains("--setenv NODE_EXTRA_CA_CERTS " + SandboxLayout.CA_BUNDLE);
        // the placeholder comes after the request's own variable of the same name, so it wins
        assertThat(line.lastIndexOf("--setenv API_KEY paddock-secret-00")).isGreaterThan(line.indexOf("--setenv API_KEY mine"));
        // the init's binary bind precedes everything under /dev/.paddock, and /dev itself precedes both
        assertThat(a.indexOf("--dev")).isLessThan(a.indexOf(SandboxLayout.EGRESS_DIR));
    }
}
