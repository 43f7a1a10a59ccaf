package dev.paddock.core.testing;

import java.util.function.Supplier;
import org.junit.jupiter.api.Assumptions;

/**
 * What a test needs from the machine (bubblewrap, Chromium, cgroups, …). On a developer's machine a missing
 * prerequisite skips the test; under CI ({@code CI=true}) it fails it, so a green CI run means every test ran
 * rather than that only what happened to be installed was proven. Shared by every module's tests (paddock-core's
 * test-jar).
 */
public final class Prerequisites {
    private Prerequisites() {}

    /** Skips the test (fails it under CI) unless {@code present}; {@code what} says what is missing and why. */
    public static void require(boolean present, String what) {
        require(present, () -> what);
    }

    /** As {@link #require(boolean, String)}, with the message made only when needed. */
    public static void require(boolean present, Supplier<String> what) {
        require(present, what, System.getenv("CI"));
    }

    static void require(boolean present, Supplier<String> what, String ci) {
        if (present) return;
        if (underCi(ci)) {
            throw new AssertionError("missing test prerequisite under CI (CI=true): " + what.get());
        }
        Assumptions.abort(what.get() + " (skipped; under CI=true this fails)");
    }

    /** Whether {@code ci}, the value of the {@code CI} environment variable, says the tests run under CI. */
    static boolean underCi(String ci) {
        return ci != null && (ci.equalsIgnoreCase("true") || ci.equals("1"));
    }
}
