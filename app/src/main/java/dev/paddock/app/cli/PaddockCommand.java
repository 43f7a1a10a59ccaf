package dev.paddock.app.cli;

import java.util.LinkedHashMap;
import java.util.Map;
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
    /**
     * Every subcommand, in the order help lists them. Classes rather than constructors: a class named here is only
     * loaded, not linked, until it runs, so the client jar (bin/paddock's for {@code sandbox}) can leave out what the
     * server commands need.
     */
    public static final Map<String, Class<?>> SUBCOMMANDS = subcommands();

    private static Map<String, Class<?>> subcommands() {
        Map<String, Class<?>> m = new LinkedHashMap<>();
        m.put("serve", ServeCommand.class);
        m.put("sandbox", SandboxCommand.class);
        m.put("image", ImageCommand.class);
        m.put("drivers", DriversCommand.class);
        m.put("keys", KeysCommand.class);
        m.put("nodes", NodesCommand.class);
        m.put("secret", SecretCommand.class);
        m.put("mcp", McpCommand.class);
        m.put("worker", WorkerCommand.class);
        m.put("browser", BrowserCommand.class);
        m.put("runtime", RuntimeCommand.class);
        m.put("snapshot", SnapshotCommand.class);
        m.put("help", HelpCommand.class);
        return m;
    }
}
