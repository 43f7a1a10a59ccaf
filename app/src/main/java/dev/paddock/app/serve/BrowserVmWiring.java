package dev.paddock.app.serve;

import dev.paddock.driver.browservm.BrowserVm;
import dev.paddock.driver.browservm.BrowserVmConfig;
import dev.paddock.driver.browservm.BrowserVmDriver;
import dev.paddock.driver.browservm.DaemonDriver;
import java.time.Clock;
import java.util.List;

/**
 * The browser-vm driver is always loaded next to the configured driver: it costs the server nothing until a user
 * pairs a tab. Its VM assets come from scripts/build-browser-vm ($PADDOCK_BROWSER_VM_DIR or the default cache dir).
 */
final class BrowserVmWiring {
    private BrowserVmWiring() {}

    static BrowserVmDriver start(List<AutoCloseable> started) {
        BrowserVm service = new BrowserVm(BrowserVmConfig.defaults(BrowserVmConfig.defaultAssetsDir()), Clock.systemUTC());
        started.add(service);
        BrowserVmDriver driver = new BrowserVmDriver(service);
        started.add(driver);
        return driver;
    }

    /** Paired daemons (paddock runtime pair) share the tabs' pairing, runtimes and relay: one more driver on the same service. */
    static DaemonDriver daemon(BrowserVmDriver browserVm, List<AutoCloseable> started) {
        DaemonDriver driver = new DaemonDriver(browserVm.runtimeService());
        started.add(driver);
        return driver;
    }
}
