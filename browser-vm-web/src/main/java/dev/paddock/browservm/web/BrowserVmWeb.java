package dev.paddock.browservm.web;

import dev.paddock.driver.browservm.BrowserVm;
import dev.paddock.server.RouteContext;
import dev.paddock.server.RouteModule;
import dev.paddock.server.http.ConsoleFiles;
import io.javalin.config.JavalinConfig;

/**
 * The web half of the browser-vm driver, as one {@link RouteModule}: the pairing, runtime and relay routes
 * ({@code /v1/runtimes…}), the sandbox tab page ({@code /sandbox-tab}) with its VM assets, and the tab's scripts,
 * served as static files at {@code /js/tab/…} beside the console.
 */
public final class BrowserVmWeb implements RouteModule {
    /** The classpath folder served at {@code /}: {@code sandbox-tab.html} and {@code js/tab/*}. */
    static final String STATIC = "/dev/paddock/browservm/web/static";

    private final BrowserVm vm;

    public BrowserVmWeb(BrowserVm vm) {
        this.vm = vm;
    }

    @Override
    public void configure(JavalinConfig config) {
        ConsoleFiles.serve(config, STATIC);
    }

    @Override
    public void register(RouteContext context) {
        new RuntimeRoutes(vm, context.bodies(), context.json()).register(context.routes());
        new SandboxTabPage(vm.config().assetsDir()).register(context.routes());
    }

    @Override
    public boolean isPublic(String method, String path) {
        return RuntimeRoutes.isPublic(method, path);
    }
}
