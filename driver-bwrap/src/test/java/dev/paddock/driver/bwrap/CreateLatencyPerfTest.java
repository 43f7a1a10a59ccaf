package dev.paddock.driver.bwrap;

import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.TerminationReason;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Prints medians of the driver's hot paths next to raw bwrap on this machine; asserts nothing about time. Skipped
 * unless asked for: {@code ./mvnw -B -q -o -pl driver-bwrap test -Dtest=CreateLatencyPerfTest -Dpaddock.perf=true}.
 */
@Tag("perf")
class CreateLatencyPerfTest {
    private static final int ROUNDS = Integer.getInteger("perf.rounds", 40);
    /**
     * Pause between rounds. Moving a process into a v1 cgroup waits for an RCU grace period only when no move happened
     * in the last grace period or so; creates back to back would hide that cost, real traffic mostly pays it.
     */
    private static final long PAUSE_MS = Long.getLong("perf.pause-ms", 250);

    @Test
    void printMedians() throws Exception {
        Assumptions.assumeTrue(Boolean.getBoolean("paddock.perf"), "set -Dpaddock.perf=true to measure");
        try (TestSandboxes env = new TestSandboxes()) {
            List<Long> raw = new ArrayList<>(), create = new ArrayList<>(), roundTrip = new ArrayList<>(), suspendResume = new ArrayList<>();
            for (int i = 0; i < 5; i++) { rawBwrapTrue(); env.create().terminate(TerminationReason.USER_REQUEST); } // warm up
            // interleaved, so that load from elsewhere on the machine hits both sides alike
            for (int i = 0; i < ROUNDS; i++) {
                raw.add(rawBwrapTrue());
                long t0 = System.nanoTime();
                Sandbox s = env.create();
                s.exec(ExecRequest.of("true"), ExecOutput.DISCARD).await();
                create.add(System.nanoTime() - t0);
                for (int j = 0; j < 3; j++) {
                    long t1 = System.nanoTime();
                    s.exec(ExecRequest.of("true"), ExecOutput.DISCARD).await();
                    roundTrip.add(System.nanoTime() - t1);
                }
                long t2 = System.nanoTime();
                s.suspend();
                s.resume();
                suspendResume.add(System.nanoTime() - t2);
                s.terminate(TerminationReason.USER_REQUEST);
                Thread.sleep(PAUSE_MS);
            }
            System.out.printf("perf: raw bwrap true            median %.2f ms%n", median(raw));
            System.out.printf("perf: create -> first exec true median %.2f ms (%.1fx raw)%n", median(create), median(create) / median(raw));
            System.out.printf("perf: exec round trip (true)    median %.2f ms%n", median(roundTrip));
            System.out.printf("perf: suspend + resume          median %.2f ms%n", median(suspendResume));
        }
    }

    private static long rawBwrapTrue() throws Exception {
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder("/usr/bin/bwrap", "--unshare-all", "--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin",
                "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
                "--", "/bin/true").redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        p.waitFor();
        return System.nanoTime() - t0;
    }

    private static double median(List<Long> nanos) {
        List<Long> s = new ArrayList<>(nanos);
        Collections.sort(s);
        return s.get(s.size() / 2) / 1e6;
    }
}
