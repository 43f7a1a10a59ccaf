package dev.paddock.driver.bwrap;

import static dev.paddock.driver.bwrap.TestSandboxes.sh;

import dev.paddock.core.spi.Sandbox;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

class SurvivalProbeTest {
    @Test
    void probe() throws Exception {
        Assumptions.assumeTrue(Boolean.getBoolean("probe"));
        try (TestSandboxes env = new TestSandboxes()) {
            List<Sandbox> all = new ArrayList<>();
            for (int i = 0; i < 20; i++) all.add(env.create());
            int failures = 0;
            for (int round = 0; round < 40; round++) {
                for (int i = 0; i < all.size(); i++) {
                    try {
                        if (!sh(all.get(i), "echo ok").out().equals("ok\n")) { System.out.println("PROBE bad output " + i); failures++; }
                    } catch (RuntimeException e) {
                        System.out.println("PROBE round " + round + " sandbox " + i + " failed: " + e.getMessage());
                        failures++;
                    }
                }
                Thread.sleep(1000);
            }
            System.out.println("PROBE failures " + failures);
        }
    }
}
