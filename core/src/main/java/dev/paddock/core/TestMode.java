package dev.paddock.core;

/**
 * Test mode unlocks parts that must never run in production (the subprocess driver, loopback upstreams).
 * It is on only when the system property {@code paddock.test-mode=true} or {@code PADDOCK_TEST_MODE=1} is set.
 */
public final class TestMode {
    private TestMode() {}

    public static boolean enabled() {
        return "true".equals(System.getProperty("paddock.test-mode")) || "1".equals(System.getenv("PADDOCK_TEST_MODE"));
    }
}
