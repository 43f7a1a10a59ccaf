package dev.paddock.driver.browservm;

import dev.paddock.core.ErrorType;
import dev.paddock.core.PaddockException;

/** The failures a sandbox op can meet because of its tab; each tells the user what to do. */
final class TabErrors {
    private TabErrors() {}

    static PaddockException gone(String sandboxId) {
        return new PaddockException(ErrorType.UNAVAILABLE, "sandbox_tab_gone",
                "the browser tab running sandbox " + sandboxId + " is closed or disconnected; reopen your sandbox tab"
                        + " (console: Runtimes, Browser VM) and retry");
    }

    static PaddockException unresponsive(String sandboxId, long seconds) {
        return new PaddockException(ErrorType.TIMEOUT, "sandbox_tab_unresponsive",
                "the browser tab running sandbox " + sandboxId + " did not answer within " + seconds
                        + " s (asleep or busy); reopen your sandbox tab and retry");
    }

    static PaddockException noTab(String tenantHint) {
        return new PaddockException(ErrorType.UNAVAILABLE, "no_sandbox_tab",
                "no sandbox tab is online" + tenantHint + "; open one from the console (Runtimes, Browser VM, Open sandbox tab)");
    }

    static PaddockException fromTab(String code, String message) {
        ErrorType type = switch (code) {
            case "file_not_found" -> ErrorType.NOT_FOUND;
            case "path_outside_workspace", "not_a_directory", "not_a_file", "is_a_directory", "directory_not_empty", "invalid_env" -> ErrorType.INVALID_REQUEST;
            case "output_too_large" -> ErrorType.REQUEST_TOO_LARGE;
            default -> ErrorType.UNAVAILABLE;
        };
        return new PaddockException(type, code, "sandbox tab: " + message);
    }
}
