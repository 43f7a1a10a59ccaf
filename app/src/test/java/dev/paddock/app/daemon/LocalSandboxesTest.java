package dev.paddock.app.daemon;

import dev.paddock.core.testing.Prerequisites;
import dev.paddock.driver.bwrap.BwrapConfig;
import dev.paddock.driver.bwrap.BwrapDriver;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The daemon's side treats the server's ops as strictly as the server treats a runtime's answers: real bwrap
 * sandboxes, ops for sandboxes it does not run, paths that leave /workspace (lexically or through a symlink made
 * inside the sandbox), unknown arguments and a full capacity are refused with a code, and nothing is touched.
 */
@Tag("bwrap")
class LocalSandboxesTest {
    static final JsonMapper JSON = JsonMapper.builder().build();
    static final String A = "sbx_0123456789abcdefghjkmnpqra";
    static final String B = "sbx_0123456789abcdefghjkmnpqrb";
    Path dataDir;
    BwrapDriver driver;
    LocalSandboxes sandboxes;
    int requests;

    @BeforeEach
    void start() throws Exception {
        Prerequisites.require(BwrapDriver.checkHost(BwrapConfig.defaults(Path.of("/tmp"))).isEmpty(), () -> "bwrap cannot run here");
        dataDir = Files.createTempDirectory(Path.of("/tmp"), "pls");
        driver = new BwrapDriver(BwrapConfig.defaults(dataDir));
        sandboxes = new LocalSandboxes(driver, 1);
    }

    @AfterEach
    void stop() throws Exception {
        if (sandboxes != null) sandboxes.close();
        if (driver != null) {
            driver.list().forEach(driver::destroy);
            driver.close();
        }
        if (dataDir != null) new ProcessBuilder("rm", "-rf", dataDir.toString()).start().waitFor();
    }

    private ServerFrames.Op op(String sandbox, String name, String args) {
        return new ServerFrames.Op(String.format("req_0123456789abcdefghjkmn%04d", requests++), sandbox, name, JSON.readTree(args), 30);
    }

    private LocalSandboxes.Answer run(String sandbox, String name, String args) {
        return sandboxes.run(op(sandbox, name, args), null);
    }

    private void refused(String sandbox, String name, String args, String code) {
        assertThatThrownBy(() -> run(sandbox, name, args)).as(name + " " + args)
                .isInstanceOfSatisfying(LocalSandboxes.Refused.class, e -> assertThat(e.code).isEqualTo(code));
    }

    @Test
    void opsStayInsideTheSandboxesItRunsAndTheirWorkspace() throws Exception {
        refused(A, "exec", "{\"argv\":[\"true\"],\"cwd\":\"/workspace\"}", "sandbox_not_here");
        run(A, "bind", "{\"fresh\":true,\"limits\":{\"memory_bytes\":268435456,\"pids\":64,\"cpus\":1,\"disk_bytes\":0}}");
        refused(B, "bind", "{\"fresh\":true}", "sandbox_tabs_busy");
        refused(B, "read_file", "{\"path\":\"/workspace/x\"}", "sandbox_not_here");

        LocalSandboxes.Answer made = sandboxes.run(op(A, "exec", "{\"argv\":[\"/bin/sh\",\"-c\",\"ln -s /etc/hostname /workspace/out; cat\"],\"cwd\":\"/workspace\",\"env\":{},\"chunks\":1}"),
                "from stdin".getBytes(StandardCharsets.UTF_8));
        assertThat(made.fields().get("exit_code")).isEqualTo(0);
        assertThat(new String(made.streams().get("stdout"), StandardCharsets.UTF_8)).isEqualTo("from stdin");

        refused(A, "read_file", "{\"path\":\"/workspace/out\"}", "path_outside_workspace");
        refused(A, "read_file", "{\"path\":\"/workspace/../etc/passwd\"}", "path_outside_workspace");
        refused(A, "read_file", "{\"path\":\"/etc/passwd\"}", "path_outside_workspace");
        refused(A, "exec", "{\"argv\":[\"true\"],\"cwd\":\"/etc\"}", "path_outside_workspace");
        refused(A, "exec", "{\"argv\":[\"true\"],\"cwd\":\"/workspace/../etc\"}", "path_outside_workspace");
        refused(A, "read_file", "{\"path\":\"relative\"}", "malformed_op");
        refused(A, "read_file", "{\"path\":\"/workspace/x\",\"follow\":true}", "malformed_op");
        refused(A, "exec", "{\"argv\":[],\"cwd\":\"/workspace\"}", "malformed_op");
        refused(A, "exec", "{\"argv\":[\"true\"],\"cwd\":\"/workspace\",\"env\":{\"BAD NAME\":\"x\"}}", "invalid_env");
        refused(A, "write_file", "{\"path\":\"/workspace/f\",\"size\":5}", "malformed_op"); // announced 5 bytes, none came
        refused(A, "bind", "{\"fresh\":false}", "sandbox_not_here");

        run(A, "destroy", "{\"reason\":\"user_request\"}");
        assertThat(driver.list()).isEmpty();
        refused(A, "stat", "{\"path\":\"/workspace\"}", "sandbox_not_here");
    }
}
