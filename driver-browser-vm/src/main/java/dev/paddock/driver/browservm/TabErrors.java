package dev.paddock.driver.browservm;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;

/** The failures a sandbox op can meet because of its tab; each tells the user what to do. */
final class TabErrors {
    private TabErrors() {}

    static PaddockException gone(BrowserRuntime rt, String sandboxId) {
        if (rt.daemon()) {
            return new PaddockException(ErrorCode.SANDBOX_TAB_GONE,
                    "the paired daemon (runtime " + rt.id() + ") running sandbox " + sandboxId + " is stopped or disconnected;"
                            + " retry once it has reconnected, or pair it again (paddock runtime pair) and create a new sandbox");
        }
        return new PaddockException(ErrorCode.SANDBOX_TAB_GONE,
                "the browser tab running sandbox " + sandboxId + " is closed or disconnected; reopen your sandbox tab"
                        + " (console: Runtimes, Browser VM) and retry");
    }

    static PaddockException unresponsive(BrowserRuntime rt, String sandboxId, long seconds) {
        if (rt.daemon()) {
            return new PaddockException(ErrorCode.SANDBOX_TAB_UNRESPONSIVE,
                    "the paired daemon (runtime " + rt.id() + ") running sandbox " + sandboxId + " did not answer within " + seconds + " s; retry");
        }
        return unresponsive(sandboxId, seconds);
    }

    static PaddockException unresponsive(String sandboxId, long seconds) {
        return new PaddockException(ErrorCode.SANDBOX_TAB_UNRESPONSIVE,
                "the browser tab running sandbox " + sandboxId + " did not answer within " + seconds
                        + " s (asleep or busy); reopen your sandbox tab and retry");
    }

    static PaddockException noDaemon() {
        return new PaddockException(ErrorCode.NO_SANDBOX_TAB,
                "no paired daemon is online; run `paddock runtime pair <code> --server URL` on a machine (code: console, Runtimes)");
    }

    static PaddockException daemonsBusy() {
        return new PaddockException(ErrorCode.SANDBOX_TABS_BUSY,
                "every online paired daemon runs as many sandboxes as its capacity; delete a sandbox or pair another daemon");
    }

    static PaddockException noTab(String tenantHint) {
        return new PaddockException(ErrorCode.NO_SANDBOX_TAB,
                "no sandbox tab is online" + tenantHint + "; open one from the console (Runtimes, Browser VM, Open sandbox tab)");
    }

    /**
     * A failure the tab reported with its own code: the tab's JavaScript names conditions as the workspace does
     * (two under older names); a code outside the catalogue means the tab left the protocol.
     */
    static PaddockException fromTab(String code, String message) {
        ErrorCode known = switch (code) {
            case "not_a_file" -> ErrorCode.NOT_A_REGULAR_FILE;
            case "symlink_loop" -> ErrorCode.TOO_MANY_LINKS;
            default -> ErrorCode.fromWire(code).orElse(ErrorCode.SANDBOX_TAB_PROTOCOL);
        };
        return new PaddockException(known, "sandbox tab: " + message);
    }
}
