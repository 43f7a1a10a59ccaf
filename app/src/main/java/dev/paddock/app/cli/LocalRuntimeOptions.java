package dev.paddock.app.cli;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/** The options of the commands that run sandboxes on this machine ({@code serve}, {@code worker}): where, and how. */
final class LocalRuntimeOptions {
    @Option(names = "--data-dir", paramLabel = "DIR", description = "data directory (default: $PADDOCK_DATA_DIR or ~/.paddock)")
    Path dataDir;

    @Option(names = "--driver", paramLabel = "NAME", description = "default sandbox driver: bwrap (default), gvisor, docker or kubernetes; subprocess only in test mode")
    String driver;

    /** The flags given, under their settings keys, for {@code ServeSettings.resolve}. */
    Map<String, String> flags() {
        Map<String, String> flags = new LinkedHashMap<>();
        if (dataDir != null) flags.put("data_dir", dataDir.toString());
        if (driver != null) flags.put("driver", driver);
        return flags;
    }
}
