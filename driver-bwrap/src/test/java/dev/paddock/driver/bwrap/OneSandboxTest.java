package dev.paddock.driver.bwrap;

import dev.paddock.core.spi.Sandbox;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * One bwrap sandbox for a whole test class, on a data directory of its own, for tests that only look into it. (The
 * test classes run one after another: the fields belong to the class that runs.)
 */
abstract class OneSandboxTest {
    static TestSandboxes env;
    static Sandbox sandbox;

    @BeforeAll
    static void startSandbox() throws Exception {
        env = new TestSandboxes();
        sandbox = env.create();
    }

    @AfterAll
    static void stopSandbox() throws Exception {
        env.close();
    }
}
