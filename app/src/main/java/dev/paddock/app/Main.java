package dev.paddock.app;

import dev.paddock.app.cli.CliContext;
import dev.paddock.app.cli.CliException;
import dev.paddock.app.cli.ClientCommand;
import dev.paddock.app.cli.ContextAware;
import dev.paddock.app.cli.FastPath;
import dev.paddock.app.cli.PaddockCommand;
import dev.paddock.app.cli.ServeCommand;
import dev.paddock.app.client.ApiException;
import dev.paddock.app.client.Terminal;
import dev.paddock.app.client.UnreachableException;
import dev.paddock.core.PaddockException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import picocli.CommandLine;
import tools.jackson.core.JacksonException;

/** Entry point of the {@code paddock} command. */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        System.exit(run(CliContext.system(), args));
    }

    /** Runs the CLI with the given context and answers the exit code; never throws for expected failures. */
    public static int run(CliContext ctx, String... args) {
        ClientCommand fast = FastPath.command(ctx, args);
        int code = fast != null ? call(ctx, fast) : commandLine(ctx, args).execute(args);
        ctx.out().flush();
        ctx.err().flush();
        return code;
    }

    /** Runs a command {@link FastPath} made, as picocli's execute would: its answer or the failure reported. */
    private static int call(CliContext ctx, ClientCommand command) {
        try {
            Integer code = command.call();
            return code == null ? 0 : code;
        } catch (Exception e) {
            return report(ctx, e, command);
        }
    }

    /**
     * The command line for {@code args}: only the subcommand they name, when they name one, since building the model
     * of every command costs a short command more than its request; all of them otherwise (help, usage errors).
     */
    private static CommandLine commandLine(CliContext ctx, String[] args) {
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
        PaddockCommand.SUBCOMMANDS.forEach((name, type) -> {
            if (named != null && PaddockCommand.SUBCOMMANDS.containsKey(named) && !"help".equals(named) && !name.equals(named)) return;
            cmd.addSubcommand(name, new CommandLine(type, factory));
        });
        cmd.setOut(ctx.out());
        cmd.setErr(ctx.err());
        cmd.setCaseInsensitiveEnumValuesAllowed(true);
        CommandLine serve = cmd.getSubcommands().get("serve");
        if (serve != null) serve.getCommandSpec().usageMessage().footer(ServeCommand.keysHelp());
        cmd.setExecutionExceptionHandler((ex, line, parse) -> report(ctx, ex, line.getCommand()));
        return cmd;
    }

    private static int report(CliContext ctx, Exception ex, Object command) {
        ctx.out().flush();
        // messages may quote the server (its error's message, code and type): one line, nothing a terminal acts on
        PrintWriter err = new PrintWriter(new Writer() {
            @Override public void write(char[] buf, int off, int len) {
                String s = new String(buf, off, len);
                ctx.err().write(s.endsWith(System.lineSeparator()) && s.indexOf('\n') == s.length() - 1
                        ? Terminal.escape(s.substring(0, s.length() - System.lineSeparator().length())) + System.lineSeparator()
                        : Terminal.escape(s));
            }
            @Override public void flush() { ctx.err().flush(); }
            @Override public void close() { }
        });
        int code = report(err, ctx, ex, command);
        err.flush();
        return code;
    }

    private static int report(PrintWriter err, CliContext ctx, Exception ex, Object command) {
        int code;
        switch (ex) {
            case ApiException api -> {
                String msg = api.getMessage();
                if (api.status() == 401 && command instanceof ClientCommand c) {
                    // with no key at all, where to find one says more than the server's generic answer
                    msg = c.options().hasKey() ? msg + "; " + hint(c, ctx) : hint(c, ctx);
                }
                err.println("error: " + msg + " (" + api.code() + ")");
                code = 1;
            }
            case CliException cli -> {
                err.println("error: " + cli.getMessage());
                code = cli.exitCode();
            }
            case UnreachableException u -> {
                err.println("error: " + u.getMessage());
                code = 1;
            }
            case PaddockException p -> {
                err.println("error: " + p.getMessage() + " (" + p.code() + ")");
                code = 1;
            }
            case JacksonException json -> {
                // an answer whose JSON has other types or shapes than this client reads: the server's fault, not a bug here
                String first = String.valueOf(json.getOriginalMessage()).lines().findFirst().orElse("");
                err.println("error: the server's answer is not what this client reads: " + first + " (invalid_response)");
                code = 1;
            }
            case UncheckedIOException io -> {
                err.println("error: " + io.getMessage());
                code = 1;
            }
            case IOException io -> {
                err.println("error: " + io.getMessage());
                code = 1;
            }
            default -> {
                // a bug: say so plainly; the trace helps a bug report
                err.println("error: unexpected failure: " + ex);
                if (ctx.env("PADDOCK_DEBUG") != null) ex.printStackTrace(ctx.err());
                code = 1;
            }
        }
        return code;
    }

    private static String hint(ClientCommand c, CliContext ctx) {
        return c.options().missingKeyHint(ctx);
    }
}
