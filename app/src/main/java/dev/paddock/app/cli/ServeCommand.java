package dev.paddock.app.cli;

import dev.paddock.app.serve.PaddockApp;
import dev.paddock.app.serve.ServeSettings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code paddock serve}: runs the API and the web console until SIGTERM or Ctrl-C. */
@Command(name = "serve", description = "Run the Paddock server (API and web console).")
public final class ServeCommand implements Callable<Integer>, ContextAware {
    @Option(names = "--port", paramLabel = "PORT", description = "port to listen on (default 7070; 0 = any free port)")
    String port;

    @Option(names = "--bind", paramLabel = "ADDRESS", description = "address to listen on (default 127.0.0.1)")
    String bind;

    @Mixin
    LocalRuntimeOptions local;

    @Option(names = "--config", paramLabel = "FILE", description = "config file (default: $PADDOCK_CONFIG, else <data-dir>/paddock.properties if present)")
    Path config;

    private CliContext ctx;

    @Override
    public void context(CliContext ctx) { this.ctx = ctx; }

    @Override
    public Integer call() throws InterruptedException {
        int[] exit = {0};
        PaddockApp app = StartupFailures.start(ctx, () -> PaddockApp.start(settings()), exit);
        if (app == null) return exit[0];
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            app.close();
            stopped.countDown();
        }, "paddock-shutdown"));
        app.printBanner(ctx.out());
        stopped.await();
        return 0;
    }

    public ServeSettings settings() {
        Map<String, String> flags = local.flags();
        if (port != null) flags.put("port", port);
        if (bind != null) flags.put("bind", bind);
        return ServeSettings.resolve(flags, ctx.envMap(), config, ctx.home());
    }

    /** The keys reference shown under {@code paddock serve --help}. */
    public static String[] keysHelp() {
        var lines = new ArrayList<String>();
        lines.add("");
        lines.add("Settings (a flag beats PADDOCK_<KEY> in the environment, which beats");
        lines.add("key=value in the config file):");
        ServeSettings.KEYS.forEach((k, meta) -> lines.add(String.format("  %-21s %-15s %s", k, meta[0].isEmpty() ? "-" : meta[0], meta[1])));
        return lines.toArray(String[]::new);
    }
}
