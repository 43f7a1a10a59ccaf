package dev.paddock.driver.bwrap;

import static dev.paddock.driver.bwrap.TestSandboxes.sh;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxRef;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.TerminationReason;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every sandbox's disk image is a mount on the host; bwrap starts in a mount namespace of its own that holds its
 * sandbox's disk and none of the others (so the work of a start does not grow with the number of sandboxes), and
 * nothing of it stays mounted once the sandboxes are gone, also when a new driver (a restarted host) deletes them.
 */
class BwrapOwnMountsTest {
    private static final long DISK = 64L << 20;
    private TestSandboxes env;

    @BeforeEach
    void start() throws Exception {
        env = new TestSandboxes();
        assumeThat(env.driver.diskQuotaProblem()).as("loop devices on this host").isEmpty();
    }

    @AfterEach
    void stop() throws Exception {
        env.close();
    }

    private Sandbox withDisk() {
        return env.create(new SandboxSpec(TestSandboxes.newId(), "tenant", null, false, Limits.DEFAULT.withDisk(DISK), Map.of(), NetworkPolicy.NONE));
    }

    @Test
    void aSandboxStartsWithoutTheOtherSandboxesDisksAndWritesToItsOwn() throws Exception {
        Sandbox a = withDisk();
        Sandbox b = withDisk();
        String aDir = sandboxDir(a).toString(), bDir = sandboxDir(b).toString();
        assertThat(hostMounts()).as("the host has both disks").anyMatch(l -> l.contains(aDir)).anyMatch(l -> l.contains(bDir));

        // bwrap itself (its outer process) stays in the namespace it started in: B's disk is there, A's is not
        List<String> launched = mountsOf(bwrapPid(b));
        assertThat(launched).as("mounts where B's bwrap started").anyMatch(l -> l.contains(bDir)).noneMatch(l -> l.contains(aDir));
        assertThat(mountsOf(bwrapPid(a))).noneMatch(l -> l.contains(bDir));
        // the sandbox sees neither the other sandbox nor the directory of all of them
        var inside = sh(b, "cat /proc/self/mountinfo; ls / /mnt");
        assertThat(inside.out()).doesNotContain(a.ref().sandboxId());

        // what B writes lands on the disk the host has mounted (the same filesystem, not a copy)
        assertThat(sh(b, "echo from-b > /workspace/f && df -k /workspace | tail -1 | awk '{print $2}'").exit()).isZero();
        assertThat(Files.readString(sandboxDir(b).resolve("workspace/f"))).isEqualTo("from-b\n");
        assertThat(sh(a, "echo from-a > /workspace/g && cat /workspace/g").out()).isEqualTo("from-a\n");
        assertThat(sandboxDir(b).resolve("workspace/g")).doesNotExist();
    }

    @Test
    void noMountAndNoLoopDeviceStaysAfterTheSandboxesAreDeletedAlsoByARestartedDriver() throws Exception {
        Sandbox gone = withDisk();
        Sandbox kept = withDisk();
        Path sandboxes = env.dataDir.resolve("sandboxes");
        assertThat(hostMounts()).as("the directory of all sandboxes is a mount while disks are under it")
                .anyMatch(l -> mountPoint(l).equals(sandboxes.toString()));
        env.driver.destroy(gone.ref());
        assertThat(hostMounts()).noneMatch(l -> l.contains(sandboxDir(gone).toString()));

        // a new driver on the same data directory (the host was killed and started again) finds and deletes the other
        BwrapDriver restarted = new BwrapDriver(BwrapConfig.defaults(env.dataDir));
        assertThat(restarted.list()).extracting(SandboxRef::sandboxId).containsExactly(kept.ref().sandboxId());
        assertThat(restarted.attach(kept.ref())).isPresent();
        restarted.destroy(kept.ref());
        restarted.close();

        assertThat(hostMounts()).as("mounts under the data directory").noneMatch(l -> l.contains(env.dataDir.toString()));
        awaitNoLoopDevice(env.dataDir);
        for (String id : List.of(gone.ref().sandboxId(), kept.ref().sandboxId())) {
            assertThat(env.dataDir.resolve("run").resolve(id)).doesNotExist();
        }
    }

    @Test
    void aDiskTheHostUnmountsIsNotKeptByASandboxStartedWhileItWasMounted() throws Exception {
        try (TestSandboxes other = new TestSandboxes()) {
            Sandbox foreign = other.create(new SandboxSpec(TestSandboxes.newId(), "tenant", null, false, Limits.DEFAULT.withDisk(DISK), Map.of(),
                    NetworkPolicy.NONE));
            sh(foreign, "echo one > /workspace/f");
            Sandbox b = withDisk(); // another data directory's disk is in the host's namespace when B's launcher copies it
            String foreignDir = other.dataDir.resolve("sandboxes").resolve(foreign.ref().sandboxId()).toString();
            assertThat(mountsOf(bwrapPid(b))).as("mounts where B's bwrap started").anyMatch(l -> l.contains(foreignDir));

            foreign.terminate(TerminationReason.USER_REQUEST);
            assertThat(mountsOf(bwrapPid(b))).as("mounts where B's bwrap started").noneMatch(l -> l.contains(foreignDir));
            awaitNoLoopDevice(other.dataDir);
            // mounted again for a read, the image has what the ended sandbox wrote: it was never mounted twice
            var ws = other.driver.workspace(foreign.ref()).orElseThrow();
            assertThat(new String(ws.read("f").readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("one\n");
            assertThat(sh(b, "cat /proc/self/mountinfo").out()).doesNotContain(foreign.ref().sandboxId());
        }
    }

    private Path sandboxDir(Sandbox s) {
        return env.dataDir.resolve("sandboxes").resolve(s.ref().sandboxId());
    }

    private long bwrapPid(Sandbox s) throws Exception {
        return Long.parseLong(Files.readString(env.dataDir.resolve("run").resolve(s.ref().sandboxId()).resolve("bwrap.pid")).trim());
    }

    private static List<String> mountsOf(long pid) throws Exception {
        return Files.readAllLines(Path.of("/proc/" + pid + "/mountinfo"));
    }

    private static List<String> hostMounts() throws Exception {
        return Files.readAllLines(Path.of("/proc/self/mountinfo"));
    }

    /** The fifth field of a mountinfo line. */
    private static String mountPoint(String line) {
        return line.split(" ")[4];
    }

    /** The kernel detaches a loop device (auto-clear) once the last mount of its filesystem is gone, in any namespace. */
    private static void awaitNoLoopDevice(Path dataDir) throws Exception {
        String images = dataDir.resolve("disks").toString();
        String devices = "";
        for (int i = 0; i < 200; i++) {
            Process p = new ProcessBuilder("losetup", "-a").redirectErrorStream(true).start();
            devices = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor();
            if (!devices.contains(images)) return;
            Thread.sleep(100);
        }
        assertThat(devices).as("loop devices").doesNotContain(images);
    }
}
