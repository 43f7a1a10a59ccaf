package dev.paddock.app.cli;

import dev.paddock.app.serve.ServeSettings;
import dev.paddock.app.serve.StartupException;
import java.util.function.Supplier;

/** Starts something from settings, turning the two expected failures into a message and an exit code. */
final class StartupFailures {
    private StartupFailures() {}

    /** The started thing, or null after printing why not: bad settings exit 2, a host that cannot run it exits 1. */
    static <T> T start(CliContext ctx, Supplier<T> starter, int[] exitCode) {
        try {
            return starter.get();
        } catch (ServeSettings.SettingsException e) {
            ctx.err().println("error: " + e.getMessage());
            exitCode[0] = 2;
        } catch (StartupException e) {
            ctx.err().println("error: " + e.getMessage());
            e.problems().forEach(p -> ctx.err().println("  - " + p));
            exitCode[0] = 1;
        }
        return null;
    }
}
