package dev.paddock.driver.docker;

import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.TerminationReason;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Prints medians of the driver's hot paths per runtime: create to first exec, an exec through init next to the same
 * command through the engine's own exec, and suspend plus resume; asserts nothing about time. Skipped unless asked
 * for: {@code ./mvnw -B -q -o -pl driver-docker test -Dtest=DockerLatencyPerfTest -Dpaddock.perf=true}.
 */
@Tag("perf")
class DockerLatencyPerfTest {
    private static final int ROUNDS = Integer.getInteger("perf.rounds", 15);

    @ParameterizedTest
    @ValueSource(strings = {"runc", "runsc"})
    void printMedians(String runtime) throws Exception {
        Assumptions.assumeTrue(Boolean.getBoolean("paddock.perf"), "set -Dpaddock.perf=true to measure");
        try (DockerTestSandboxes env = new DockerTestSandboxes(runtime)) {
            List<Long> create = new ArrayList<>(), viaInit = new ArrayList<>(), viaEngine = new ArrayList<>(), suspendResume = new ArrayList<>();
            env.create().terminate(TerminationReason.USER_REQUEST); // warm up: imports the host root image
            for (int i = 0; i < ROUNDS; i++) {
                long t0 = System.nanoTime();
                Sandbox s = env.create();
                s.exec(ExecRequest.of("true"), ExecOutput.DISCARD).await();
                create.add(System.nanoTime() - t0);
                String container = ((DockerSandbox) s).containerId();
                for (int j = 0; j < 3; j++) {
                    long t1 = System.nanoTime();
                    s.exec(ExecRequest.of("true"), ExecOutput.DISCARD).await();
                    viaInit.add(System.nanoTime() - t1);
                    long t2 = System.nanoTime();
                    env.driver.engine().engineExec(container, List.of("true"));
                    viaEngine.add(System.nanoTime() - t2);
                }
                long t3 = System.nanoTime();
                s.suspend();
                s.resume();
                suspendResume.add(System.nanoTime() - t3);
                s.terminate(TerminationReason.USER_REQUEST);
            }
            System.out.printf("perf[%s]: create -> first exec true  median %.2f ms%n", runtime, median(create));
            System.out.printf("perf[%s]: exec true through init     median %.2f ms%n", runtime, median(viaInit));
            System.out.printf("perf[%s]: exec true via engine exec  median %.2f ms%n", runtime, median(viaEngine));
            System.out.printf("perf[%s]: suspend + resume           median %.2f ms%n", runtime, median(suspendResume));
        }
    }

    private static double median(List<Long> nanos) {
        List<Long> s = new ArrayList<>(nanos);
        Collections.sort(s);
        return s.get(s.size() / 2) / 1e6;
    }
}
