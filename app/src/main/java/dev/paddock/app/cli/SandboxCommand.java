package dev.paddock.app.cli;

import picocli.CommandLine.Command;

/** {@code paddock sandbox …}: the sandbox lifecycle, exec, background processes, files and checkpoints. */
@Command(name = "sandbox", description = "Create, use and remove sandboxes.",
        subcommands = {
                SandboxCreateCommand.class, SandboxListCommand.class, SandboxGetCommand.class, SandboxExecCommand.class,
                SandboxCopyCommand.class, SandboxLsCommand.class, SandboxLifecycleCommands.Remove.class,
                SandboxLifecycleCommands.Suspend.class, SandboxLifecycleCommands.Resume.class,
                SandboxCheckpointCommands.Create.class, SandboxCheckpointCommands.ListAll.class,
                SandboxCheckpointCommands.Restore.class, SandboxEventsCommand.class, SandboxEgressCommand.class,
                SandboxProcessCommands.Start.class, SandboxProcessCommands.Ps.class, SandboxProcessCommands.Logs.class,
                SandboxProcessCommands.Kill.class, SandboxShellCommand.class, SandboxPortCommands.class, SandboxNetworkCommand.class,
                SandboxForkCommand.class, SandboxWatchCommand.class})
public final class SandboxCommand {
}
