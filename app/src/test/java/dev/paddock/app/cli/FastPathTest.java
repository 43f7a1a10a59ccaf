package dev.paddock.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/** The hot commands parsed by {@link FastPath} come out exactly as picocli parses them, and what it declines stays picocli's. */
class FastPathTest {
    private static final String ID = "sbx_0123456789abcdefghjkmnpqrs";
    private final CliContext ctx = new CliContext(new ByteArrayInputStream(new byte[0]), new ByteArrayOutputStream(),
            new ByteArrayOutputStream(), Map.of(), Path.of("/nonexistent-home"));

    @ParameterizedTest
    @ValueSource(strings = {
            "sandbox exec ID -- true",
            "sandbox exec ID echo hi",
            "sandbox exec ID -- echo --json -i --",
            "sandbox exec --json ID --cwd /tmp --timeout 90s --env A=1 --env B=x=y -i -- sh -c ls",
            "sandbox exec ID --url=http://h:1 --api-key k --data-dir /tmp/d --env=C= --shell echo",
            "sandbox exec ID --stdin -- cat",
            "sandbox cp ./a.txt ID:/workspace/",
            "sandbox cp --json ID:/workspace/out .",
            "sandbox ls ID:/workspace",
            "sandbox ls ID --url http://127.0.0.1:7070",
            "sandbox get ID",
            "sandbox list",
            "sandbox list -a --limit 20 --json",
            "sandbox list --all",
            "sandbox rm ID",
            "sandbox delete ID --json",
            "sandbox suspend ID",
            "sandbox resume --api-key=k ID",
    })
    void fillsTheCommandAsPicocliDoes(String line) throws Exception {
        String[] args = line.replace("ID", ID).split(" ");
        ClientCommand fast = FastPath.command(ctx, args);
        assertThat(fast).as("the fast path takes %s", line).isNotNull();
        Object picocli = picocliCommand(args);
        assertThat(fast.getClass()).isEqualTo(picocli.getClass());
        assertThat(fields(fast)).as(line).isEqualTo(fields(picocli));
        assertThat(fields(fast.options())).as(line).isEqualTo(fields(((ClientCommand) picocli).options()));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "sandbox exec --help", "sandbox exec ID -h", "sandbox exec -V", "sandbox exec", "sandbox exec --bogus ID -- true",
            "sandbox exec ID --cwd", "sandbox exec ID --cwd --json -- true", "sandbox exec ID --cwd a --cwd b -- true",
            "sandbox exec ID -i --stdin -- cat", "sandbox exec ID --env novalue -- true", "sandbox exec ID --timeout soon -- true",
            "sandbox exec @args", "sandbox exec ID --json=true -- true", "sandbox exec ID -ix -- true", "sandbox exec ID - true",
            "sandbox cp onlyone", "sandbox cp a b c", "sandbox ls", "sandbox get ID ID", "sandbox list --limit 0x10",
            "sandbox list --limit 010", "sandbox list extra", "sandbox rm --purge ID", "sandbox shell ID", "sandbox create",
            "sandbox", "drivers", "--help", "exec ID -- true",
    })
    void leavesEverythingElseToPicocli(String line) {
        assertThat(FastPath.command(ctx, line.replace("ID", ID).split(" "))).as(line).isNull();
    }

    @Test
    void aDeclinedCommandGetsPicocliUsageError() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CliContext captured = new CliContext(new ByteArrayInputStream(new byte[0]), new ByteArrayOutputStream(), err, Map.of(),
                Path.of("/nonexistent-home"));
        int code = dev.paddock.app.Main.run(captured, "sandbox", "exec", "--bogus", ID, "--", "true");
        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("Unknown option: '--bogus'").doesNotContain("Exception");
    }

    @Test
    void aFastCommandReportsFailuresAsPicocliRunsDo() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CliContext captured = new CliContext(new ByteArrayInputStream(new byte[0]), new ByteArrayOutputStream(), err, Map.of(),
                Path.of("/nonexistent-home"));
        int code = dev.paddock.app.Main.run(captured, "sandbox", "get", "not-an-id");
        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).startsWith("error: 'not-an-id' is not a sandbox id").doesNotContain("Exception");
    }

    private static Object picocliCommand(String[] args) {
        CommandLine root = new CommandLine(new PaddockCommand());
        root.addSubcommand("sandbox", new CommandLine(SandboxCommand.class));
        ParseResult parsed = root.parseArgs(args);
        while (parsed.hasSubcommand()) parsed = parsed.subcommand();
        return parsed.commandSpec().userObject();
    }

    /** Every instance field the command line sets, by name (the context and the lazily made client left out). */
    private static Map<String, Object> fields(Object command) throws IllegalAccessException {
        Map<String, Object> values = new LinkedHashMap<>();
        for (Class<?> c = command.getClass(); c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers()) || f.getType() == CliContext.class || f.getName().equals("client")
                        || f.getName().equals("options")) continue;
                f.setAccessible(true);
                values.put(c.getSimpleName() + "." + f.getName(), f.get(command));
            }
        }
        return values;
    }
}
