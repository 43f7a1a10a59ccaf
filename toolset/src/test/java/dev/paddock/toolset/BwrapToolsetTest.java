package dev.paddock.toolset;

import static dev.paddock.toolset.TestHost.ALICE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.driver.bwrap.BwrapConfig;
import dev.paddock.driver.bwrap.BwrapDriver;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The toolset in a real bubblewrap sandbox: commands run isolated, and glob/grep/edit see what bash wrote. */
@Tag("bwrap")
class BwrapToolsetTest {
    @TempDir Path dataDir;
    TestHost env;
    AgentToolset tools;

    @BeforeEach
    void start() {
        env = new TestHost(dataDir, new BwrapDriver(BwrapConfig.defaults(dataDir)));
        tools = new AgentToolset(env.host, ALICE, env.newSandbox());
    }

    @AfterEach
    void stop() {
        env.close();
    }

    @Test
    void bashRunsInsideTheSandboxAsAnUnprivilegedUserWithoutNetwork() {
        ToolResult r = tools.execute("bash", Map.of("command", "echo $BASH_VERSION | cut -c1; pwd; id -u; awk -F: 'NR>2{print $1}' /proc/net/dev | tr -d ' '"));
        assertThat(r.isError()).as(r.content()).isFalse();
        List<String> lines = r.content().lines().toList();
        assertThat(lines.get(0)).as("ran by bash").matches("\\d");
        assertThat(lines.get(1)).isEqualTo("/workspace");
        assertThat(Integer.parseInt(lines.get(2))).as("not root").isGreaterThan(0);
        assertThat(lines.subList(3, lines.size())).as("only loopback").containsExactly("lo");
    }

    @Test
    void fileToolsAndSearchToolsWorkOnWhatBashWrote() {
        assertThat(tools.execute("bash", Map.of("command", "mkdir -p pkg && printf 'def f():\\n    return 1\\n' > pkg/mod.py")).isError()).isFalse();
        assertThat(tools.execute("glob", Map.of("pattern", "**/*.py"))).isEqualTo(ToolResult.ok("/workspace/pkg/mod.py"));
        assertThat(tools.execute("grep", Map.of("pattern", "return \\d"))).isEqualTo(ToolResult.ok("/workspace/pkg/mod.py:2:    return 1"));
        assertThat(tools.execute("edit", Map.of("file_path", "pkg/mod.py", "old_string", "return 1", "new_string", "return 2")).isError()).isFalse();
        assertThat(tools.execute("bash", Map.of("command", "python3 -c 'import sys; sys.path.insert(0, \"pkg\"); import mod; print(mod.f())' 2>/dev/null || sed -n 2p pkg/mod.py")).content())
                .isIn("2", "    return 2");
        assertThat(tools.execute("read", Map.of("file_path", "pkg/mod.py", "view_range", List.of(2, 2)))).isEqualTo(ToolResult.ok("    return 2"));
    }
}
