package dev.paddock.toolset;

import static dev.paddock.toolset.TestHost.ALICE;
import static dev.paddock.toolset.TestHost.BOB;
import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.driver.subprocess.SubprocessDriver;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every tool of the set against a real host and sandbox (test-only subprocess driver, real SQLite). */
class AgentToolsetTest {
    @TempDir Path dataDir;
    TestHost env;
    String sbx;
    AgentToolset tools;

    @BeforeEach
    void start() {
        env = new TestHost(dataDir, new SubprocessDriver(dataDir.resolve("subprocess")));
        sbx = env.newSandbox();
        tools = new AgentToolset(env.host, ALICE, sbx);
    }

    @AfterEach
    void stop() {
        env.close();
    }

    private ToolResult call(String tool, Object... kv) {
        Map<String, Object> in = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) in.put((String) kv[i], kv[i + 1]);
        return tools.execute(tool, in);
    }

    private String readBack(String path) throws Exception {
        try (var in = env.host.workspace(ALICE, sbx).read(path)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    // ---------------------------------------------------------------- bash

    @Test
    void bashRunsInWorkspaceWithStdoutAndStderrInOrder() throws Exception {
        ToolResult r = call("bash", "command", "echo one; echo two >&2; echo three; echo made > made.txt");
        assertThat(r).isEqualTo(ToolResult.ok("one\ntwo\nthree"));
        assertThat(readBack("/workspace/made.txt")).isEqualTo("made\n");
    }

    @Test
    void bashIsRealBashAndPassesTheCommandVerbatim() {
        ToolResult r = call("bash", "command", "a=(x y); echo \"${#a[@]} it's \\\"$1\\\" $((2+3))\"");
        assertThat(r).isEqualTo(ToolResult.ok("2 it's \"\" 5"));
    }

    @Test
    void bashNonZeroExitIsAnErrorWithTheOutput() {
        ToolResult r = call("bash", "command", "echo partial; exit 3");
        assertThat(r.isError()).isTrue();
        assertThat(r.content()).isEqualTo("partial\n[exit code 3]");
    }

    @Test
    void bashTimeoutKillsTheCommand() {
        ToolResult r = call("bash", "command", "echo started; sleep 30", "timeout_ms", 500);
        assertThat(r.isError()).isTrue();
        assertThat(r.content()).startsWith("started").contains("timed out after 500 ms");
    }

    @Test
    void bashKeepsTheTailOfLongOutputWithAMarker() {
        tools = new AgentToolset(env.host, ALICE, sbx, smallLimits());
        ToolResult r = call("bash", "command", "head -c 20000 /dev/zero | tr '\\0' a; echo; echo END");
        assertThat(r.isError()).isFalse();
        assertThat(r.content()).startsWith("[output truncated: only the last 1848 bytes are shown]").endsWith("aaa\nEND");
        assertThat(r.content().length()).isLessThanOrEqualTo(2048 + 100);
    }

    @Test
    void bashRestartWithoutCommandIsAcknowledgedButAMissingCommandIsNot() {
        assertThat(call("bash", "restart", true)).isEqualTo(ToolResult.ok("bash session restarted"));
        ToolResult missing = call("bash");
        assertThat(missing.isError()).isTrue();
        assertThat(missing.content()).isEqualTo("bash: command is required (a non-empty string)");
    }

    @Test
    void badInputIsAClearErrorResult() {
        assertThat(call("bash", "command", 42).content()).isEqualTo("bash: command must be a string, got the number 42");
        assertThat(call("bash", "command", "true", "timeout_ms", "soon").content()).isEqualTo("bash: timeout_ms must be an integer, got a string");
        assertThat(call("bash", "command", "true", "timeout_ms", 10_000_000).content()).contains("exceeds the maximum of 600000 ms");
        assertThat(call("bash", "cmd", "true").content()).isEqualTo("bash: unknown field 'cmd'; allowed: command, restart, timeout_ms");
        assertThat(call("read", "file_path", "a", "view_range", List.of(1)).content()).isEqualTo("read: view_range must be [start_line, end_line]");
        assertThat(tools.execute("rm", Map.of()).content()).startsWith("unknown tool 'rm'; this toolset has: bash, read, write, edit, glob, grep");
        assertThat(tools.execute("read", null).content()).isEqualTo("read: file_path is required (a string)");
        assertThat(call("read", "file_path", "a", "view_range", List.of(1)).isError()).isTrue();
    }

    // ---------------------------------------------------------------- read / write

    @Test
    void writeThenReadWholeFileAndLineRanges() {
        ToolResult w = call("write", "file_path", "notes/todo.txt", "content", "l1\nl2\nl3\nl4\n");
        assertThat(w).isEqualTo(ToolResult.ok("wrote 12 bytes to notes/todo.txt"));
        assertThat(call("read", "file_path", "/workspace/notes/todo.txt")).isEqualTo(ToolResult.ok("l1\nl2\nl3\nl4\n"));
        assertThat(call("read", "file_path", "notes/todo.txt", "view_range", List.of(2, 3))).isEqualTo(ToolResult.ok("l2\nl3"));
        assertThat(call("read", "file_path", "notes/todo.txt", "view_range", List.of(3, 0))).isEqualTo(ToolResult.ok("l3\nl4"));
        assertThat(call("read", "file_path", "notes/todo.txt", "view_range", List.of(3, 1)).content()).contains("end_line must not be before start_line");
    }

    @Test
    void readRefusesAWholeFileOverTheLimitButServesARange() {
        tools = new AgentToolset(env.host, ALICE, sbx, smallLimits());
        call("bash", "command", "for i in $(seq 1 2000); do echo line$i; done > big.txt");
        ToolResult whole = call("read", "file_path", "big.txt");
        assertThat(whole.isError()).isTrue();
        assertThat(whole.content()).contains("larger than the 4096-byte limit").contains("view_range");
        assertThat(call("read", "file_path", "big.txt", "view_range", List.of(1500, 1502))).isEqualTo(ToolResult.ok("line1500\nline1501\nline1502"));
        assertThat(call("read", "file_path", "big.txt", "view_range", List.of(1, 0)).content()).contains("exceeds the size limit");
    }

    @Test
    void pathsOutsideTheWorkspaceAreRefused() {
        for (String path : List.of("/etc/passwd", "../outside.txt", "/workspace/../etc/hosts")) {
            ToolResult r = call("read", "file_path", path);
            assertThat(r.isError()).as(path).isTrue();
            assertThat(r.content()).as(path).contains("outside /workspace");
        }
        assertThat(call("write", "file_path", "/tmp/x", "content", "x").content()).contains("outside /workspace");
        call("bash", "command", "ln -s /etc/passwd link");
        assertThat(call("read", "file_path", "link").content()).contains("outside /workspace");
        call("bash", "command", "rm link");
    }

    @Test
    void readOfAMissingFileSaysSo() {
        ToolResult r = call("read", "file_path", "nope.txt");
        assertThat(r.isError()).isTrue();
        assertThat(r.content()).isEqualTo("read: no file or directory at 'nope.txt'");
    }

    // ---------------------------------------------------------------- edit

    @Test
    void editReplacesAUniqueString() throws Exception {
        call("write", "file_path", "app.py", "content", "x = 1\ny = 2\n");
        assertThat(call("edit", "file_path", "app.py", "old_string", "y = 2", "new_string", "y = $1 \\0"))
                .isEqualTo(ToolResult.ok("edited app.py (1 replacement)"));
        assertThat(readBack("app.py")).isEqualTo("x = 1\ny = $1 \\0\n");
    }

    @Test
    void editRefusesMissingAndRepeatedStringsAndLeavesTheFile() throws Exception {
        call("write", "file_path", "a.txt", "content", "foo bar foo\n");
        ToolResult missing = call("edit", "file_path", "a.txt", "old_string", "baz", "new_string", "x");
        assertThat(missing.isError()).isTrue();
        assertThat(missing.content()).startsWith("edit: old_string was not found in a.txt");
        ToolResult twice = call("edit", "file_path", "a.txt", "old_string", "foo", "new_string", "x");
        assertThat(twice.isError()).isTrue();
        assertThat(twice.content()).startsWith("edit: old_string occurs 2 times in a.txt");
        assertThat(readBack("a.txt")).isEqualTo("foo bar foo\n");
        assertThat(call("edit", "file_path", "a.txt", "old_string", "foo", "new_string", "x", "replace_all", true))
                .isEqualTo(ToolResult.ok("edited a.txt (2 replacements)"));
        assertThat(readBack("a.txt")).isEqualTo("x bar x\n");
    }

    @Test
    void editLeavesNonUtf8FilesAlone() throws Exception {
        call("bash", "command", "printf 'ab\\377cd' > bin.dat");
        ToolResult r = call("edit", "file_path", "bin.dat", "old_string", "ab", "new_string", "x");
        assertThat(r.isError()).isTrue();
        assertThat(r.content()).contains("not UTF-8 text");
        assertThat(call("bash", "command", "od -An -c bin.dat | tr -s ' '").content()).contains("a b 377 c d");
    }

    // ---------------------------------------------------------------- glob

    @Test
    void globMatchesDoublestarNewestFirst() {
        call("bash", "command", "mkdir -p src/a/b node_modules/x && echo > top.txt && echo > src/mid.txt && echo > src/a/b/deep.txt"
                + " && echo > src/a/b/skip.md && echo > node_modules/x/dep.txt"
                + " && touch -d '2001-01-01' top.txt && touch -d '2003-01-01' src/mid.txt && touch -d '2002-01-01' src/a/b/deep.txt");
        assertThat(call("glob", "pattern", "**/*.txt"))
                .isEqualTo(ToolResult.ok("/workspace/src/mid.txt\n/workspace/src/a/b/deep.txt\n/workspace/top.txt"));
        assertThat(call("glob", "pattern", "*.txt")).isEqualTo(ToolResult.ok("/workspace/top.txt"));
        assertThat(call("glob", "pattern", "**/*.txt", "path", "src/a")).isEqualTo(ToolResult.ok("/workspace/src/a/b/deep.txt"));
        assertThat(call("glob", "pattern", "src/**/*.{md,txt}").content()).contains("skip.md", "deep.txt", "mid.txt").doesNotContain("top.txt");
        assertThat(call("glob", "pattern", "*.none")).isEqualTo(ToolResult.ok("no matches"));
    }

    @Test
    void globRefusesEscapingPatterns() {
        assertThat(call("glob", "pattern", "../**").content()).isEqualTo("glob: '..' is not allowed in the pattern");
        assertThat(call("glob", "pattern", "/etc/*").content()).isEqualTo("glob: pattern must be relative; put the directory in path");
        assertThat(call("glob", "pattern", "*", "path", "/etc").content()).contains("outside /workspace");
        assertThat(call("glob", "pattern", "[").content()).startsWith("glob: invalid glob pattern");
    }

    // ---------------------------------------------------------------- grep

    @Test
    void grepReportsPathLineAndText() {
        call("write", "file_path", "src/Main.java", "content", "class Main {\n  int answer = 42;\n}\n");
        call("write", "file_path", "docs/a:b.txt", "content", "answer: 42\n");
        call("write", "file_path", "other.txt", "content", "nothing here\n");
        ToolResult r = call("grep", "pattern", "answer\\s*[=:]\\s*\\d+");
        assertThat(r.isError()).isFalse();
        assertThat(r.content().lines().sorted().toList())
                .containsExactly("/workspace/docs/a:b.txt:1:answer: 42", "/workspace/src/Main.java:2:  int answer = 42;");
        assertThat(call("grep", "pattern", "answer", "path", "src")).isEqualTo(ToolResult.ok("/workspace/src/Main.java:2:  int answer = 42;"));
        assertThat(call("grep", "pattern", "nothing", "path", "/workspace/other.txt")).isEqualTo(ToolResult.ok("/workspace/other.txt:1:nothing here"));
        assertThat(call("grep", "pattern", "absent")).isEqualTo(ToolResult.ok("no matches"));
    }

    @Test
    void grepPatternIsNeverRunByAShell() throws Exception {
        call("write", "file_path", "f.txt", "content", "x\n");
        ToolResult r = call("grep", "pattern", "$(touch pwned)`touch pwned2`; touch pwned3");
        assertThat(r).isEqualTo(ToolResult.ok("no matches"));
        assertThat(call("glob", "pattern", "pwned*")).isEqualTo(ToolResult.ok("no matches"));
        assertThat(call("grep", "pattern", "-e").content()).isEqualTo("no matches");
    }

    @Test
    void grepWithAnInvalidRegexIsAnError() {
        call("write", "file_path", "f.txt", "content", "x\n");
        ToolResult r = call("grep", "pattern", "(unclosed");
        assertThat(r.isError()).isTrue();
        assertThat(r.content()).startsWith("grep: ");
    }

    // ---------------------------------------------------------------- tenancy and definitions

    @Test
    void anotherTenantCannotUseTheSandbox() {
        AgentToolset bobs = new AgentToolset(env.host, BOB, sbx);
        ToolResult r = bobs.execute("bash", Map.of("command", "echo hi"));
        assertThat(r.isError()).isTrue();
        assertThat(r.content()).isEqualTo("bash: sandbox '" + sbx + "' does not exist");
        assertThat(bobs.execute("read", Map.of("file_path", "x")).content()).contains("does not exist");
    }

    @Test
    void aDeletedSandboxGivesAnErrorResult() {
        env.host.delete(ALICE, sbx);
        ToolResult r = call("bash", "command", "true");
        assertThat(r.isError()).isTrue();
        assertThat(r.content()).contains("terminated");
    }

    @Test
    void definitionsUseTheOfficialFieldNames() {
        assertThat(AgentToolset.definitions()).extracting(ToolDefinition::name)
                .containsExactly("bash", "read", "write", "edit", "glob", "grep");
        Map<String, Object> edit = AgentToolset.definitions().get(3).inputSchema();
        assertThat(edit.get("required")).isEqualTo(List.of("file_path", "old_string", "new_string"));
        assertThat(((Map<?, ?>) edit.get("properties")).keySet()).map(Object::toString).containsExactlyInAnyOrder("file_path", "old_string", "new_string", "replace_all");
        assertThat(((Map<?, ?>) AgentToolset.definitions().get(1).inputSchema().get("properties")).keySet()).map(Object::toString).containsExactlyInAnyOrder("file_path", "view_range");
    }

    @Test
    void everyResultIsCappedAtTheOutputLimit() {
        tools = new AgentToolset(env.host, ALICE, sbx, smallLimits());
        call("bash", "command", "for i in $(seq 1 500); do echo \"match number $i with some padding text\"; done > many.txt");
        ToolResult r = call("grep", "pattern", "match");
        assertThat(r.isError()).isFalse();
        assertThat(r.content()).endsWith("[output truncated at 2048 bytes]");
        assertThat(r.content().getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(2048 + 40);
    }

    static ToolLimits smallLimits() {
        ToolLimits d = ToolLimits.DEFAULT;
        return new ToolLimits(2048, 4096, d.maxWriteBytes(), d.defaultBashTimeout(), d.maxBashTimeout(), d.searchTimeout(),
                d.globResultLimit(), d.walkMaxEntries(), d.walkMaxDepth(), d.grepMaxLineChars());
    }

}
