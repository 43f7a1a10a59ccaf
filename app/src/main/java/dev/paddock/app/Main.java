package dev.paddock.app;

import dev.paddock.app.cli.CliContext;
import dev.paddock.app.cli.CliException;
import dev.paddock.app.cli.ClientCommand;
import dev.paddock.app.cli.ContextAware;
import dev.paddock.app.cli.PaddockCommand;
import dev.paddock.app.cli.ServeCommand;
import dev.paddock.app.client.ApiException;
import dev.paddock.app.client.UnreachableException;
import dev.paddock.core.PaddockException;
import java.io.IOException;
import java.io.UncheckedIOException;
import picocli.CommandLine;

/** Entry point of the {@code paddock} command. */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        System.exit(run(CliContext.system(), args));
    }

    /** Runs the CLI with the given context and answers the exit code; never throws for expected failures. */
    public static int run(CliContext ctx, String... args) {
        CommandLine cmd = commandLine(ctx, args);
        int code = cmd.execute(args);
        ctx.out().flush();
        ctx.err().flush();
        return code;
    }

    /** The command line with every subcommand (what help lists). */
    public static CommandLine commandLine(CliContext ctx) {
        return commandLine(ctx, new String[0]);
    }

    /**
     * The command line for {@code args}: only the subcommand they name, when they name one, since building the model
     * of every command costs a short command more than its request; all of them otherwise (help, usage errors).
     */
    public static CommandLine commandLine(CliContext ctx, String[] args) {
        CommandLine.IFactory defaults = CommandLine.defaultFactory();
        CommandLine.IFactory factory = new CommandLine.IFactory() {
            @Override public <K> K create(Class<K> cls) throws Exception {
                K obj = defaults.create(cls);
                if (obj instanceof ContextAware aware) aware.context(ctx);
                return obj;
            }
        };
        CommandLine cmd = new CommandLine(new PaddockCommand(), factory);
        String named = args.length > 0 ? args[0] : null;
        PaddockCommand.SUBCOMMANDS.forEach((name, make) -> {
            if (named != null && PaddockCommand.SUBCOMMANDS.containsKey(named) && !"help".equals(named) && !name.equals(named)) return;
            Object sub = make.get();
            if (sub instanceof ContextAware aware) aware.context(ctx);
            cmd.addSubcommand(name, new CommandLine(sub, factory));
        });
        cmd.setOut(ctx.out());
        cmd.setErr(ctx.err());
        cmd.setCaseInsensitiveEnumValuesAllowed(true);
        CommandLine serve = cmd.getSubcommands().get("serve");
        if (serve != null) serve.getCommandSpec().usageMessage().footer(ServeCommand.keysHelp());
        cmd.setExecutionExceptionHandler((ex, line, parse) -> report(ctx, ex, line));
        return cmd;
    }

    private static int report(CliContext ctx, Exception ex, CommandLine line) {
        ctx.out().flush();
        int code;
        switch (ex) {
            case ApiException api -> {
                String msg = api.getMessage();
                if (api.status() == 401 && line.getCommand() instanceof ClientCommand c) {
                    // with no key at all, where to find one says more than the server's generic answer
                    msg = c.options().hasKey() ? msg + "; " + hint(c, ctx) : hint(c, ctx);
                }
                ctx.err().println("error: " + msg + " (" + api.code() + ")");
                code = 1;
            }
            case CliException cli -> {
                ctx.err().println("error: " + cli.getMessage());
                code = cli.exitCode();
            }
            case UnreachableException u -> {
                ctx.err().println("error: " + u.getMessage());
                code = 1;
            }
            case PaddockException p -> {
                ctx.err().println("error: " + p.getMessage() + " (" + p.code() + ")");
                code = 1;
            }
            case UncheckedIOException io -> {
                ctx.err().println("error: " + io.getMessage());
                code = 1;
            }
            case IOException io -> {
                ctx.err().println("error: " + io.getMessage());
                code = 1;
            }
            default -> {
                // a bug: say so plainly; the trace helps a bug report
                ctx.err().println("error: unexpected failure: " + ex);
                if (ctx.env("PADDOCK_DEBUG") != null) ex.printStackTrace(ctx.err());
                code = 1;
            }
        }
        ctx.err().flush();
        return code;
    }

    private static String hint(ClientCommand c, CliContext ctx) {
        return c.options().missingKeyHint(ctx);
    }
}
