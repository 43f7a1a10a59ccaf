package dev.paddock.app.cli;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * The hot client commands ({@code sandbox exec, cp, ls, get, list, rm, suspend, resume}) made ready to run without
 * picocli, whose command model costs a short command most of its start-up. It fills the same command objects picocli
 * would, from {@link FastArgs}; whatever it does not take (help, a usage error, another command) it leaves to
 * picocli by answering null, so behaviour, help and messages stay picocli's.
 */
public final class FastPath {
    private static final Set<String> NONE = Set.of();

    private FastPath() {}

    /** The command {@code args} name, its options and parameters set, or null when picocli must parse them. */
    public static ClientCommand command(CliContext ctx, String... args) {
        if (args.length < 2 || !args[0].equals("sandbox")) return null;
        // picocli reads @FILE arguments as argument files
        for (String arg : args) if (arg.startsWith("@")) return null;
        List<String> rest = Arrays.asList(args).subList(2, args.length);
        ClientCommand command = switch (args[1]) {
            case "exec" -> exec(rest);
            case "cp" -> copy(rest);
            case "ls" -> ls(rest);
            case "get" -> get(rest);
            case "list" -> list(rest);
            case "rm", "delete" -> stateChange(new SandboxLifecycleCommands.Remove(), rest);
            case "suspend" -> stateChange(new SandboxLifecycleCommands.Suspend(), rest);
            case "resume" -> stateChange(new SandboxLifecycleCommands.Resume(), rest);
            default -> null;
        };
        if (command != null) command.context(ctx);
        return command;
    }

    private static SandboxExecCommand exec(List<String> rest) {
        FastArgs a = FastArgs.read(rest, Set.of("--stdin"), Set.of("--shell", "--timeout", "--cwd", "--env"), Set.of("--env"));
        if (a == null || a.positionals().isEmpty()) return null;
        SandboxExecCommand c = new SandboxExecCommand();
        c.id = a.positionals().getFirst();
        c.argv.addAll(a.positionals().subList(1, a.positionals().size()));
        c.shell = a.value("--shell");
        c.cwd = a.value("--cwd");
        c.stdin = a.flag("--stdin");
        for (String pair : a.values("--env")) {
            int eq = pair.indexOf('=');
            if (eq <= 0) return null;
            c.env.put(pair.substring(0, eq), pair.substring(eq + 1));
        }
        String timeout = a.value("--timeout");
        if (timeout != null) {
            try {
                c.timeout = Units.duration(timeout);
            } catch (IllegalArgumentException e) {
                return null;
            }
        }
        return withClientOptions(c, a);
    }

    private static SandboxCopyCommand copy(List<String> rest) {
        FastArgs a = FastArgs.read(rest, NONE, NONE, NONE);
        if (a == null || a.positionals().size() != 2) return null;
        SandboxCopyCommand c = new SandboxCopyCommand();
        c.source = a.positionals().get(0);
        c.destination = a.positionals().get(1);
        return withClientOptions(c, a);
    }

    private static SandboxLsCommand ls(List<String> rest) {
        FastArgs a = FastArgs.read(rest, NONE, NONE, NONE);
        if (a == null || a.positionals().size() != 1) return null;
        SandboxLsCommand c = new SandboxLsCommand();
        c.target = a.positionals().getFirst();
        return withClientOptions(c, a);
    }

    private static SandboxGetCommand get(List<String> rest) {
        FastArgs a = FastArgs.read(rest, NONE, NONE, NONE);
        if (a == null || a.positionals().size() != 1) return null;
        SandboxGetCommand c = new SandboxGetCommand();
        c.id = a.positionals().getFirst();
        return withClientOptions(c, a);
    }

    private static SandboxListCommand list(List<String> rest) {
        FastArgs a = FastArgs.read(rest, Set.of("--all"), Set.of("--limit"), NONE);
        if (a == null || !a.positionals().isEmpty()) return null;
        SandboxListCommand c = new SandboxListCommand();
        c.all = a.flag("--all");
        String limit = a.value("--limit");
        if (limit != null) {
            // plain decimal only: other spellings are picocli's to convert or refuse
            if (!limit.matches("[1-9][0-9]{0,5}")) return null;
            c.limit = Integer.parseInt(limit);
        }
        return withClientOptions(c, a);
    }

    private static SandboxLifecycleCommands.StateChange stateChange(SandboxLifecycleCommands.StateChange c, List<String> rest) {
        FastArgs a = FastArgs.read(rest, NONE, NONE, NONE);
        if (a == null || a.positionals().size() != 1) return null;
        c.id = a.positionals().getFirst();
        return withClientOptions(c, a);
    }

    private static <C extends ClientCommand> C withClientOptions(C command, FastArgs a) {
        ClientOptions o = new ClientOptions();
        o.url = a.value("--url");
        o.apiKey = a.value("--api-key");
        o.json = a.flag("--json");
        o.httpTimeout = a.value("--http-timeout");
        String dataDir = a.value("--data-dir");
        if (dataDir != null) {
            try {
                o.dataDir = Path.of(dataDir);
            } catch (InvalidPathException e) {
                return null;
            }
        }
        command.options = o;
        return command;
    }
}
