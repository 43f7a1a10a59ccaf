package dev.paddock.server.routes;

import dev.paddock.host.ports.PortForwards;
import dev.paddock.host.terminal.TerminalSessions;
import dev.paddock.server.RouteContext;
import dev.paddock.server.RouteModule;
import dev.paddock.server.routes.ports.PortRoutes;
import dev.paddock.server.routes.terminal.TerminalRoutes;

/**
 * Interactive access to a sandbox: terminals ({@code /v1/sandboxes/{id}/pty}) and forwarded ports
 * ({@code /v1/sandboxes/{id}/ports}). The composition root makes the two services and hands them in.
 */
public final class TerminalsAndPorts implements RouteModule {
    private final TerminalSessions terminals;
    private final PortForwards ports;

    public TerminalsAndPorts(TerminalSessions terminals, PortForwards ports) {
        this.terminals = terminals;
        this.ports = ports;
    }

    @Override
    public void register(RouteContext context) {
        new TerminalRoutes(terminals, context.bodies(), context.json()).register(context.routes());
        new PortRoutes(ports, context.bodies(), context.json()).register(context.routes());
    }

    @Override
    public boolean isPublic(String method, String path) {
        return TerminalRoutes.isPublic(method, path) || PortRoutes.isPublic(path);
    }

    @Override
    public void close() {
        terminals.close();
    }
}
