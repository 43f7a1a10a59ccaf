package dev.paddock.app.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;

/**
 * The top-level {@code paddock} command. Its subcommands are added by name ({@link #SUBCOMMANDS}) rather than
 * declared in the annotation, so that a call builds the model of the one subcommand it runs: picocli reflects over
 * every command it is given, and that is most of a short command's start-up.
 */
@Command(name = "paddock", mixinStandardHelpOptions = true, scope = picocli.CommandLine.ScopeType.INHERIT,
        versionProvider = VersionProvider.class,
        description = "Paddock: a self-hostable runtime for AI-agent sandboxes.",
        footer = {"", "Client commands find the server and the key in --url/--api-key, then",
                "PADDOCK_URL/PADDOCK_API_KEY, then the local data directory (PADDOCK_DATA_DIR",
                "or ~/.paddock: admin.key and the URL of the server running there).",
                "", "Exit codes: 0 ok, 1 API or connection error, 2 usage error;",
                "`sandbox exec` exits with the command's own exit code."})
public final class PaddockCommand {
    /** Every subcommand, in the order help lists them. */
    public static final Map<String, Supplier<Object>> SUBCOMMANDS = subcommands();

    private static Map<String, Supplier<Object>> subcommands() {
        Map<String, Supplier<Object>> m = new LinkedHashMap<>();
        m.put("serve", ServeCommand::new);
        m.put("sandbox", SandboxCommand::new);
        m.put("image", ImageCommand::new);
        m.put("drivers", DriversCommand::new);
        m.put("keys", KeysCommand::new);
        m.put("nodes", NodesCommand::new);
        m.put("secret", SecretCommand::new);
        m.put("mcp", McpCommand::new);
        m.put("worker", WorkerCommand::new);
        m.put("browser", BrowserCommand::new);
        m.put("runtime", RuntimeCommand::new);
        m.put("snapshot", SnapshotCommand::new);
        m.put("help", HelpCommand::new);
        return m;
    }
}
