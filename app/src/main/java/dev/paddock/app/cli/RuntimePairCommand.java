package dev.paddock.app.cli;

import dev.paddock.app.daemon.DaemonRuntime;
import dev.paddock.app.daemon.PairedDaemon;
import dev.paddock.app.serve.ServeSettings;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code paddock runtime pair <code> --server URL}: this machine becomes a paired runtime of that server. It holds an
 * outbound WebSocket to the server (nothing needs to reach this machine), runs the server's sandboxes with the local
 * driver and keeps them while it reconnects, until SIGTERM or Ctrl-C, which ends them.
 */
@Command(name = "pair", description = "Serve sandboxes for a Paddock server over an outbound connection (a paired daemon).")
public final class RuntimePairCommand implements Callable<Integer>, ContextAware {
    @Parameters(index = "0", paramLabel = "CODE", description = "the one-time pairing code (paddock runtime code, or the console's Runtimes page)")
    String code;

    @Option(names = "--server", required = true, paramLabel = "URL", description = "the Paddock server, e.g. https://paddock.example.com")
    String server;

    @Option(names = "--capacity", paramLabel = "N", description = "most sandboxes run at once (default 4, at most 64)")
    int capacity = 4;

    @Option(names = "--host-name", paramLabel = "NAME", description = "the name the server shows for this machine (default: its host name)")
    String hostName;

    @Option(names = "--max-offline", paramLabel = "DURATION", description = "give up after the server is unreachable this long (default 10m)")
    String maxOffline = "10m";

    @Mixin
    LocalRuntimeOptions local;

    private CliContext ctx;

    @Override
    public void context(CliContext ctx) { this.ctx = ctx; }

    @Override
    public Integer call() throws Exception {
        URI url = serverUrl(server);
        if (capacity < 1 || capacity > 64) throw CliException.usage("--capacity must be between 1 and 64");
        Duration offline = Units.duration(maxOffline);
        String host = hostName != null ? hostName : localHostName();
        if (!host.matches("[A-Za-z0-9][A-Za-z0-9.-]{0,252}")) throw CliException.usage("--host-name must be a host name");
        ServeSettings base = ServeSettings.resolve(local.flags(), ctx.envMap(), null, ctx.home());
        Map<String, String> flags = local.flags();
        flags.put("data_dir", base.dataDir().resolve("daemon").toString()); // its own sandboxes, apart from a local server's
        ServeSettings settings = ServeSettings.resolve(flags, ctx.envMap(), null, ctx.home());
        int[] exit = {0};
        DaemonRuntime runtime = StartupFailures.start(ctx, () -> DaemonRuntime.start(settings, url, host, capacity, offline, this::say), exit);
        if (runtime == null) return exit[0];
        PairedDaemon daemon = runtime.daemon();
        try {
            daemon.pair(code);
        } catch (PairedDaemon.PairingRefused e) {
            runtime.close();
            throw new CliException("pairing refused: " + e.getMessage(), 1);
        } catch (IOException e) {
            runtime.close();
            throw new CliException("cannot reach " + url + ": " + e.getMessage(), 1);
        }
        // SIGTERM and Ctrl-C end the sandboxes and close the socket, so the server fails their next op at once
        Thread hook = new Thread(runtime::close, "paddock-daemon-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        say("paired as runtime " + daemon.runtimeId() + " (" + runtime.driverId() + " driver, capacity " + capacity + ", host " + host + ")");
        boolean stopped = daemon.run();
        runtime.close();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or has run
        }
        return stopped ? 0 : 1;
    }

    private void say(String line) {
        synchronized (ctx.out()) {
            ctx.out().println(line);
            ctx.out().flush();
        }
    }

    private static URI serverUrl(String text) {
        URI u;
        try {
            u = URI.create(text.strip());
        } catch (IllegalArgumentException e) {
            throw CliException.usage("--server must be a URL such as http://127.0.0.1:7070");
        }
        if (!("http".equals(u.getScheme()) || "https".equals(u.getScheme())) || u.getHost() == null) {
            throw CliException.usage("--server must be an http or https URL such as http://127.0.0.1:7070");
        }
        return URI.create(u.getScheme() + "://" + u.getRawAuthority());
    }

    private static String localHostName() {
        try {
            String name = InetAddress.getLocalHost().getHostName();
            return name.matches("[A-Za-z0-9][A-Za-z0-9.-]{0,252}") ? name : "localhost";
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }
}
