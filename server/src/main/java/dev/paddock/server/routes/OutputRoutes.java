package dev.paddock.server.routes;

import dev.paddock.core.spi.Workspace;
import dev.paddock.host.RuntimeHost;
import dev.paddock.server.http.Auth;
import io.javalin.config.RoutesConfig;

/**
 * A sandbox's {@code /mnt/session/outputs}, read-only: what the sandbox left for the caller, also after it ended.
 * Paths are as seen inside the sandbox (under /mnt/session/outputs, or relative to it).
 */
public final class OutputRoutes {
    private static final String OUTPUTS = SandboxRoutes.SANDBOX + "/outputs";
    private final RuntimeHost host;

    public OutputRoutes(RuntimeHost host) {
        this.host = host;
    }

    public void register(RoutesConfig r) {
        TreeReadRoutes.register(r, OUTPUTS, Workspace.OUTPUTS, ctx -> host.outputs(Auth.principal(ctx), SandboxRoutes.id(ctx)));
    }
}
