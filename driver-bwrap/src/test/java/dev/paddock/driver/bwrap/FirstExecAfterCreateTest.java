package dev.paddock.driver.bwrap;

import static dev.paddock.driver.bwrap.TestSandboxes.sh;
import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.TerminationReason;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The first request after create, and after a second driver instance attached, is served: no ping, no polling, and
 * no window in which the socket exists but the sandbox does not answer. Repeats to catch a race, not a timing.
 */
@Tag("bwrap")
class FirstExecAfterCreateTest {
    TestSandboxes env;

    @BeforeEach
    void start() throws Exception {
        env = new TestSandboxes();
    }

    @AfterEach
    void stop() throws Exception {
        env.close();
    }

    @Test
    void everyFirstExecAfterCreateIsServed() {
        int n = Integer.getInteger("stress.n", 25);
        for (int i = 0; i < n; i++) {
            Sandbox s = env.create();
            assertThat(sh(s, "echo hi").out()).as("round " + i).isEqualTo("hi\n");
            s.terminate(TerminationReason.USER_REQUEST);
        }
    }

    @Test
    void driversOnSeparateDataDirsCreatingAtOnceDoNotDisturbEachOther() throws Exception {
        int threads = Integer.getInteger("stress.threads", 2);
        java.util.List<Thread> ts = new java.util.ArrayList<>();
        java.util.List<Throwable> errors = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        for (int t = 0; t < threads; t++) {
            ts.add(Thread.ofPlatform().start(() -> {
                try (TestSandboxes own = new TestSandboxes()) {
                    int n = Integer.getInteger("stress.n", 25);
                    for (int i = 0; i < n; i++) {
                        Sandbox s = own.create();
                        BwrapDriver second = new BwrapDriver(BwrapConfig.defaults(own.dataDir));
                        Sandbox attached = second.attach(s.ref()).orElseThrow();
                        assertThat(sh(attached, "echo attached").out()).as("round " + i).isEqualTo("attached\n");
                        s.terminate(TerminationReason.USER_REQUEST);
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            }));
        }
        for (Thread t : ts) t.join();
        errors.forEach(Throwable::printStackTrace);
        assertThat(errors).isEmpty();
    }

    @Test
    void aSecondDriverOnTheSameDataDirServesTheFirstExecAfterAttach() {
        int n = Integer.getInteger("stress.n", 25);
        for (int i = 0; i < n; i++) {
            Sandbox s = env.create();
            BwrapDriver second = new BwrapDriver(BwrapConfig.defaults(env.dataDir));
            Sandbox attached = second.attach(s.ref()).orElseThrow();
            assertThat(sh(attached, "echo attached").out()).as("round " + i).isEqualTo("attached\n");
            s.terminate(TerminationReason.USER_REQUEST);
        }
    }
}
