package dev.paddock.driver.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.FileEntry;
import dev.paddock.core.spi.Workspace;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Workspace and outputs through the exec API, end to end through the fake kubelet's bwrap pods. */
@Tag("bwrap")
class PodFilesAgainstMockApiServerTest extends SandboxOnMockCluster {
    PodFilesAgainstMockApiServerTest() {
        super("sbx_files");
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String read(Workspace w, String path) throws Exception {
        try (InputStream in = w.read(path)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    static void assertCode(ThrowingCallable call, ErrorCode code) {
        assertThatThrownBy(call).isInstanceOf(PaddockException.class).satisfies(e -> assertThat(((PaddockException) e).errorCode()).isEqualTo(code));
    }

    @Test
    void writeReadStatListAndDeleteAgainstMockApiServer() throws Exception {
        Workspace w = sandbox.workspace();

        FileEntry written = w.write("notes/a b.txt", new ByteArrayInputStream(bytes("hello\n")));
        assertThat(written.path()).isEqualTo("/workspace/notes/a b.txt");
        assertThat(written.type()).isEqualTo(FileEntry.Type.FILE);
        assertThat(written.size()).isEqualTo(6);
        assertThat(read(w, "/workspace/notes/a b.txt")).isEqualTo("hello\n");
        assertThat(w.list("notes")).extracting(FileEntry::name).containsExactly("a b.txt");
        assertThat(w.stat("notes").type()).isEqualTo(FileEntry.Type.DIRECTORY);

        assertCode(() -> w.delete("notes", false), ErrorCode.DIRECTORY_NOT_EMPTY);
        w.delete("notes", true);
        assertCode(() -> w.stat("notes"), ErrorCode.FILE_NOT_FOUND);
        assertCode(() -> w.delete("/workspace", true), ErrorCode.CANNOT_DELETE_WORKSPACE_ROOT);
    }

    @Test
    void filesAreTheOnesTheSandboxCommandsSeeAgainstMockApiServer() throws Exception {
        sandbox.workspace().write("from-api.txt", new ByteArrayInputStream(bytes("api")));
        sandbox.exec(ExecRequest.shell("cat from-api.txt > from-exec.txt; echo -n out > /mnt/session/outputs/result"), ExecOutput.DISCARD).await();

        assertThat(read(sandbox.workspace(), "from-exec.txt")).isEqualTo("api");
        assertThat(read(sandbox.outputs(), "/mnt/session/outputs/result")).isEqualTo("out");
        // and they are real files on the claim's volume, owned by the sandbox's uid
        Path onVolume = cluster.kubelet.volume(ObjectNames.claim("sbx_files")).resolve("workspace/from-exec.txt");
        assertThat(Files.readString(onVolume)).isEqualTo("api");
        assertThat(Files.getAttribute(onVolume, "unix:uid")).isEqualTo((int) KubernetesConfig.DEFAULT_UID);
    }

    @Test
    void pathsAndSymlinksLeadingOutOfTheWorkspaceAreRefusedAgainstMockApiServer() throws Exception {
        Workspace w = sandbox.workspace();
        sandbox.exec(ExecRequest.shell("ln -s /etc/hostname out-link; ln -s /etc escape-dir"), ExecOutput.DISCARD).await();

        assertCode(() -> w.read("../etc/hostname"), ErrorCode.PATH_OUTSIDE_WORKSPACE);
        assertCode(() -> w.read("/etc/hostname"), ErrorCode.PATH_OUTSIDE_WORKSPACE);
        assertCode(() -> w.read("out-link"), ErrorCode.PATH_OUTSIDE_WORKSPACE);
        assertCode(() -> w.write("escape-dir/x", new ByteArrayInputStream(bytes("x"))), ErrorCode.PATH_OUTSIDE_WORKSPACE);
        assertCode(() -> w.list("escape-dir"), ErrorCode.PATH_OUTSIDE_WORKSPACE);
        // the link itself is in the workspace: it can be looked at and removed
        assertThat(w.stat("out-link").type()).isEqualTo(FileEntry.Type.SYMLINK);
        assertThat(w.stat("out-link").linkTarget()).isEqualTo("/etc/hostname");
        w.delete("out-link", false);
        assertCode(() -> w.stat("out-link"), ErrorCode.FILE_NOT_FOUND);
    }

    @Test
    void tarExportAndImportCarryATreeAgainstMockApiServer() throws Exception {
        Workspace w = sandbox.workspace();
        w.write("src/main.txt", new ByteArrayInputStream(bytes("main")));
        w.write("src/deep/leaf.txt", new ByteArrayInputStream(bytes("leaf")));
        ByteArrayOutputStream tar = new ByteArrayOutputStream();

        w.exportTar("src", tar);
        w.importTar("copy", new ByteArrayInputStream(tar.toByteArray()));

        assertThat(read(w, "copy/main.txt")).isEqualTo("main");
        assertThat(read(w, "copy/deep/leaf.txt")).isEqualTo("leaf");
        w.clear();
        assertThat(w.list("/workspace")).isEmpty();
    }

    @Test
    void theWorkspaceOutlivesASuspendedPodAgainstMockApiServer() throws Exception {
        sandbox.workspace().write("kept.txt", new ByteArrayInputStream(bytes("still here")));

        sandbox.suspend();
        sandbox.resume();

        assertThat(read(sandbox.workspace(), "kept.txt")).isEqualTo("still here");
    }

    @Test
    void wrongKindsOfPathAreNamedAgainstMockApiServer() {
        Workspace w = sandbox.workspace();
        w.mkdir("a-dir");
        w.write("a-file", new ByteArrayInputStream(bytes("x")));

        assertCode(() -> w.read("a-dir"), ErrorCode.IS_A_DIRECTORY);
        assertCode(() -> w.list("a-file"), ErrorCode.NOT_A_DIRECTORY);
        assertCode(() -> w.read("missing"), ErrorCode.FILE_NOT_FOUND);
    }
}
