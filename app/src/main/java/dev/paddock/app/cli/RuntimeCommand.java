package dev.paddock.app.cli;

import picocli.CommandLine.Command;

/** {@code paddock runtime}: paired runtimes, such as this machine serving sandboxes for a server it can reach. */
@Command(name = "runtime", description = "Pair this machine with a Paddock server as a sandbox runtime.",
        subcommands = {RuntimePairCommand.class, RuntimeCodeCommand.class})
public final class RuntimeCommand {
}
