package dev.paddock.app.cli;

import dev.paddock.app.serve.ServeSettings;
import dev.paddock.app.serve.WorkerRuntime;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code paddock worker}: a self-hosted worker for a Managed Agents environment. It polls the environment's work
 * queue (Anthropic's or a Paddock server's: same protocol), runs each session's tool calls in a local Paddock
 * sandbox and reports the results, until SIGTERM or Ctrl-C. The environment key is read from the environment
 * (never a flag, so it stays out of process listings).
 */
@Command(name = "worker", description = "Serve a self-hosted agents environment: run its sessions' tools in local sandboxes.")
public final class WorkerCommand implements Callable<Integer>, ContextAware {
    static final String DEFAULT_BASE_URL = "https://api.anthropic.com";

    @Option(names = "--environment", required = true, paramLabel = "ENV_ID", description = "the self-hosted environment to serve (env_…)")
    String environment;

    @Option(names = "--base-url", paramLabel = "URL", description = "API serving the work queue (default: $PADDOCK_WORKER_BASE_URL, else " + DEFAULT_BASE_URL + ")")
    String baseUrl;

    @Option(names = "--worker-id", paramLabel = "ID", description = "this worker's id (default: generated)")
    String workerId;

    @Mixin
    LocalRuntimeOptions local;

    private CliContext ctx;

    @Override
    public void context(CliContext ctx) { this.ctx = ctx; }

    @Override
    public Integer call() throws InterruptedException {
        String key = firstSet(ctx.env("PADDOCK_ENVIRONMENT_KEY"), ctx.env("ANTHROPIC_ENVIRONMENT_KEY"));
        if (key == null) {
            ctx.err().println("error: set the environment key in PADDOCK_ENVIRONMENT_KEY (or ANTHROPIC_ENVIRONMENT_KEY)");
            return 2;
        }
        if (!environment.matches("env_[0-9A-Za-z]{1,64}")) {
            ctx.err().println("error: --environment must be an environment id like env_01…, got '" + environment + "'");
            return 2;
        }
        String url = firstSet(baseUrl, ctx.env("PADDOCK_WORKER_BASE_URL"));
        if (url == null) url = DEFAULT_BASE_URL;
        int[] exit = {0};
        String serveUrl = url;
        WorkerRuntime runtime = StartupFailures.start(ctx,
                () -> WorkerRuntime.start(ServeSettings.resolve(local.flags(), ctx.envMap(), null, ctx.home()), serveUrl, environment, key, workerId), exit);
        if (runtime == null) return exit[0];
        Thread shutdown = new Thread(runtime::close, "paddock-worker-shutdown");
        Runtime.getRuntime().addShutdownHook(shutdown);
        ctx.out().println("Paddock worker serving " + environment + " from " + url);
        ctx.out().flush();
        runtime.run();
        return 0;
    }

    private static String firstSet(String a, String b) {
        if (a != null && !a.isBlank()) return a;
        return b != null && !b.isBlank() ? b : null;
    }
}
