package dev.paddock.app.cli;

import picocli.CommandLine.Command;

/** The top-level {@code paddock} command. */
@Command(name = "paddock", mixinStandardHelpOptions = true, scope = picocli.CommandLine.ScopeType.INHERIT,
        versionProvider = VersionProvider.class,
        description = "Paddock: a self-hostable runtime for AI-agent sandboxes.",
        subcommands = {ServeCommand.class, SandboxCommand.class, ImageCommand.class, DriversCommand.class, KeysCommand.class, SecretCommand.class, McpCommand.class, WorkerCommand.class, BrowserCommand.class,
                picocli.CommandLine.HelpCommand.class},
        footer = {"", "Client commands find the server and the key in --url/--api-key, then",
                "PADDOCK_URL/PADDOCK_API_KEY, then the local data directory (PADDOCK_DATA_DIR",
                "or ~/.paddock: admin.key and the URL of the server running there).",
                "", "Exit codes: 0 ok, 1 API or connection error, 2 usage error;",
                "`sandbox exec` exits with the command's own exit code."})
public final class PaddockCommand {
}
