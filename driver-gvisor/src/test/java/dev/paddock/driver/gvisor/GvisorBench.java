package dev.paddock.driver.gvisor;

import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.MemoryCheckpoints;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.TerminationReason;
import dev.paddock.init.SandboxDirs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A small timing harness for the gVisor driver on this machine (not a test): create to first exec, an exec through
 * init against one through runsc exec, suspend and resume, a memory checkpoint and its restore of an idle sandbox,
 * and the memory an idle sandbox holds. Run with the test classpath: {@code java -cp ... dev.paddock.driver.gvisor.GvisorBench}.
 */
public final class GvisorBench {
    private static final Fence FENCE = new Fence("bench", 1);

    public static void main(String[] args) throws Exception {
        Path dataDir = Files.createTempDirectory(Path.of("/tmp"), "gvb");
        GvisorDriver driver = new GvisorDriver(GvisorConfig.defaults(dataDir));
        System.out.println("platform " + GvisorConfig.defaults(dataDir).platform());
        List<Sandbox> live = new ArrayList<>();
        try {
            double[] firstExec = new double[5];
            for (int i = 0; i < firstExec.length; i++) {
                long t0 = System.nanoTime();
                Sandbox s = driver.create(SandboxSpec.defaults("b" + i, "tenant_bench"), FENCE);
                run(s);
                firstExec[i] = ms(t0);
                live.add(s);
            }
            report("create -> first exec", firstExec);

            Sandbox s = live.getFirst();
            for (int i = 0; i < 5; i++) run(s);
            double[] viaInit = new double[50];
            for (int i = 0; i < viaInit.length; i++) {
                long t0 = System.nanoTime();
                run(s);
                viaInit[i] = ms(t0);
            }
            report("exec `true` through init", viaInit);
            double[] viaRunsc = new double[20];
            for (int i = 0; i < viaRunsc.length; i++) {
                long t0 = System.nanoTime();
                int exit = driver.runsc().exec(s.ref().sandboxId(), false, OciBundle.SANDBOX_UID, "/workspace", List.of("true"));
                viaRunsc[i] = ms(t0);
                if (exit != 0) throw new IllegalStateException("runsc exec true exited " + exit);
            }
            report("exec `true` through runsc exec", viaRunsc);

            double[] suspendResume = new double[10];
            for (int i = 0; i < suspendResume.length; i++) {
                long t0 = System.nanoTime();
                s.suspend();
                s.resume();
                suspendResume[i] = ms(t0);
            }
            report("suspend + resume", suspendResume);

            Thread.sleep(2000);
            for (Sandbox idle : live) {
                SandboxDirs p = ((GvisorSandbox) idle).paths();
                long pid = driver.runsc().state(p.sandboxId(), false).orElseThrow().pid();
                System.out.printf("idle %s: cgroup memory %.1f MiB, sandbox process RSS %.1f MiB%n", p.sandboxId(),
                        idle.inspect().memoryBytes() / 1048576.0, rssKb(pid) / 1024.0);
            }

            MemoryCheckpoints memory = driver.memoryCheckpoints().orElseThrow();
            double[] save = new double[5];
            double[] restore = new double[5];
            for (int i = 0; i < save.length; i++) {
                Sandbox idle = live.get(i);
                Path image = Files.createDirectories(dataDir.resolve("img" + i));
                long t0 = System.nanoTime();
                memory.checkpoint(idle, image, false);
                save[i] = ms(t0);
                long size;
                try (Stream<Path> files = Files.walk(image)) {
                    size = files.filter(Files::isRegularFile).mapToLong(GvisorBench::size).sum();
                }
                t0 = System.nanoTime();
                Sandbox back = memory.restore(SandboxSpec.defaults(idle.ref().sandboxId(), "tenant_bench"), FENCE, image);
                run(back);
                restore[i] = ms(t0);
                live.set(i, back);
                System.out.printf("image %d: %.1f MiB%n", i, size / 1048576.0);
            }
            report("memory checkpoint (runtime ends)", save);
            report("memory restore -> first exec", restore);
        } finally {
            for (Sandbox s : live) s.terminate(TerminationReason.USER_REQUEST);
            try (Stream<Path> tree = Files.walk(dataDir)) {
                for (Path p : tree.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
            }
        }
    }

    private static void run(Sandbox s) throws InterruptedException {
        int exit = s.exec(ExecRequest.of("true"), ExecOutput.DISCARD).await().exitCode();
        if (exit != 0) throw new IllegalStateException("true exited " + exit);
    }

    private static double ms(long t0) {
        return (System.nanoTime() - t0) / 1e6;
    }

    private static long size(Path p) {
        try {
            return Files.size(p);
        } catch (IOException e) {
            return 0;
        }
    }

    private static long rssKb(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) return Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
        return -1;
    }

    private static void report(String what, double[] ms) {
        double[] sorted = ms.clone();
        Arrays.sort(sorted);
        System.out.printf("%-36s n=%-3d median %8.1f ms  min %8.1f  max %8.1f%n", what, ms.length, sorted[sorted.length / 2], sorted[0], sorted[sorted.length - 1]);
    }
}
