package dev.paddock.driver.bwrap;

import static dev.paddock.driver.bwrap.TestSandboxes.sh;
import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxRef;
import dev.paddock.core.spi.TerminationReason;
import dev.paddock.init.InitBinary;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every sandbox's disk image is a mount on the host; bwrap starts in a mount namespace of its own that holds its
 * sandbox's disk and none of the others (so the work of a start does not grow with the number of sandboxes), that
 * namespace goes with bwrap's outer process once the sandbox serves, and nothing of it stays mounted once the
 * sandboxes are gone, also when a new driver (a restarted host) deletes them.
 */
class BwrapOwnMountsTest {
    private static final long DISK = 64L << 20;
    private TestSandboxes env;

    @BeforeEach
    void start() throws Exception {
        env = TestSandboxes.withDisks();
    }

    @AfterEach
    void stop() throws Exception {
        env.close();
    }

    private Sandbox withDisk() {
        return env.withDisk(DISK);
    }

    @Test
    void theNamespaceALauncherCopiesHoldsNoSandboxsDiskSoItDoesNotGrowWithThem() throws Exception {
        Sandbox first = withDisk();
        long launchNs = launchNamespacePid();
        int launchMounts = ownMounts(mountsOf(launchNs)).size();
        int firstMounts = mountsOf(initPid(first)).size();
        List<Sandbox> more = new ArrayList<>();
        for (int i = 0; i < 4; i++) more.add(withDisk());
        Sandbox last = more.getLast();

        Path sandboxes = env.dataDir.resolve("sandboxes");
        assertThat(hostMounts()).as("the host has all five disks").filteredOn(l -> mountPoint(l).startsWith(sandboxes + "/")).hasSize(5);
        assertThat(launchNamespacePid()).as("one launch namespace for all of them").isEqualTo(launchNs);
        assertThat(mountsOf(launchNs)).as("the launch namespace").noneMatch(l -> mountPoint(l).startsWith(sandboxes.toString()));
        assertThat(ownMounts(mountsOf(launchNs))).hasSize(launchMounts);
        // the fifth sandbox has as many mounts as the first: its own, none of the others' disks
        assertThat(mountsOf(initPid(last))).as("mounts of the fifth sandbox").hasSize(firstMounts);
        assertThat(sh(last, "cat /proc/self/mountinfo").out()).doesNotContain(first.ref().sandboxId());
        // no process is left in a launcher's copy of the launch namespace: it went with bwrap's outer process
        assertThat(processesIn(sandboxes)).as("processes whose mount table has this data directory's sandboxes/").isEmpty();
    }

    @Test
    void aLauncherRefusesANamespaceThatIsNotTheLaunchNamespace() throws Exception {
        Sandbox s = withDisk();
        long launchNs = launchNamespacePid();
        Path ns = Path.of("/proc/" + launchNs + "/ns/mnt");
        String identity = Files.getAttribute(ns, "unix:dev") + ":" + Files.getAttribute(ns, "unix:ino");
        Path own = sandboxDir(s);

        // the launch namespace's pid now names another process (here this test's, in the host's namespace, root's)
        var reused = launch(own, "/proc/" + ProcessHandle.current().pid() + "/ns/mnt", identity);
        assertThat(reused.exit()).isEqualTo(1);
        assertThat(reused.err()).contains("is not the launch mount namespace").contains("refusing");
        // a sandbox's own namespace, even named with its true identity: it belongs to the sandbox's user namespace
        Path inside = Path.of("/proc/" + initPid(s) + "/ns/mnt");
        var sandboxNs = launch(own, inside.toString(), Files.getAttribute(inside, "unix:dev") + ":" + Files.getAttribute(inside, "unix:ino"));
        assertThat(sandboxNs.exit()).isEqualTo(1);
        assertThat(sandboxNs.err()).contains("is not the launch mount namespace");
        assertThat(launch(own, ns.toString(), "1:2").err()).contains("is not the launch mount namespace");
        assertThat(launch(own, ns.toString(), "nonsense").err()).contains("must be DEV:INO");
        // the true one passes the check (and the launcher then waits for the host, which here closes its stdin at once)
        var right = launch(own, ns.toString(), identity);
        assertThat(right.exit()).isEqualTo(1);
        assertThat(right.err()).contains("the host gave up").doesNotContain("launch mount namespace");
    }

    @Test
    void theLaunchNamespaceIsMadeAgainWhenItsProcessDiedAndEndsWithTheDriver() throws Exception {
        withDisk();
        long first = launchNamespacePid();
        new ProcessBuilder("kill", "-9", Long.toString(first)).start().waitFor();
        awaitGone(first);
        Sandbox next = withDisk();
        long second = launchNamespacePid();
        assertThat(second).isNotEqualTo(first);
        assertThat(sh(next, "echo ok > /workspace/f && cat /workspace/f").out()).isEqualTo("ok\n");
        env.driver.close();
        awaitGone(second);
        assertThat(sh(next, "cat /workspace/f").out()).as("a launched sandbox outlives the launch namespace").isEqualTo("ok\n");
    }

    @Test
    void aSandboxStartsWithoutTheOtherSandboxesDisksAndWritesToItsOwn() throws Exception {
        Sandbox a = withDisk();
        Sandbox b = withDisk();
        String aDir = sandboxDir(a).toString(), bDir = sandboxDir(b).toString();
        assertThat(hostMounts()).as("the host has both disks").anyMatch(l -> l.contains(aDir)).anyMatch(l -> l.contains(bDir));

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
            Sandbox foreign = other.withDisk(DISK);
            sh(foreign, "echo one > /workspace/f");
            Sandbox b = withDisk(); // another data directory's disk is in the host's namespace when the launch namespace is made
            String foreignDir = other.dataDir.resolve("sandboxes").resolve(foreign.ref().sandboxId()).toString();
            // the launch namespace, made while the foreign disk was mounted, has it; B's sandbox and its start do not
            assertThat(processesIn(Path.of(foreignDir))).as("processes whose mount table has the foreign disk").containsExactly(launchNamespacePid());

            foreign.terminate(TerminationReason.USER_REQUEST);
            assertThat(processesIn(Path.of(foreignDir))).as("the host's unmount reached the launch namespace").isEmpty();
            awaitNoLoopDevice(other.dataDir);
            // mounted again for a read, the image has what the ended sandbox wrote: it was never mounted twice
            var ws = other.driver.workspace(foreign.ref()).orElseThrow();
            assertThat(new String(ws.read("f").readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("one\n");
            assertThat(sh(b, "cat /proc/self/mountinfo").out()).doesNotContain(foreign.ref().sandboxId());
        }
    }

    /** The process holding the launch namespace of this test's driver ({@code paddock-init mountns <sandboxes>}). */
    private long launchNamespacePid() throws Exception {
        String wanted = "mountns\0" + env.dataDir.resolve("sandboxes") + "\0";
        List<Long> found = new ArrayList<>();
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), p -> p.getFileName().toString().matches("\\d+"))) {
            for (Path p : procs) {
                try {
                    if (new String(Files.readAllBytes(p.resolve("cmdline")), StandardCharsets.UTF_8).endsWith(wanted)) {
                        found.add(Long.parseLong(p.getFileName().toString()));
                    }
                } catch (IOException gone) {
                    // ended meanwhile
                }
            }
        }
        assertThat(found).as("launch namespace processes of this driver").hasSize(1);
        return found.getFirst();
    }

    private static void awaitGone(long pid) throws Exception {
        for (int i = 0; i < 300 && Files.exists(Path.of("/proc/" + pid)); i++) Thread.sleep(100);
        assertThat(Path.of("/proc/" + pid)).as("process " + pid).doesNotExist();
    }

    /** The mounts of a namespace without other data directories' sandboxes, which come and go with other tests. */
    private List<String> ownMounts(List<String> mounts) {
        String ours = env.dataDir.resolve("sandboxes").toString();
        return mounts.stream().filter(l -> mountPoint(l).startsWith(ours) || !mountPoint(l).matches(".*/sandboxes(/[^/]+)?")).toList();
    }

    /** {@code paddock-init launch} as the driver runs it, with {@code --own-mounts OWN NSFILE IDENTITY} and a closed stdin. */
    private TestSandboxes.Run launch(Path own, String nsFile, String identity) throws Exception {
        Path bin = InitBinary.install(env.dataDir.resolve("bin"));
        Path run = Files.createTempDirectory(env.dataDir, "launch");
        Process p = new ProcessBuilder(bin.toString(), "launch", run.resolve("s").toString(), "4000", "4000", run.resolve("log").toString(),
                run.resolve("pid").toString(), "--own-mounts", own.toString(), nsFile, identity, "--", "/bin/true").start();
        p.getOutputStream().close();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        return new TestSandboxes.Run(p.waitFor(), "", err, null);
    }

    /** Init, pid 1 of the sandbox, as the host sees it. */
    private long initPid(Sandbox s) throws Exception {
        return Long.parseLong(Files.readString(env.dataDir.resolve("run").resolve(s.ref().sandboxId()).resolve("init.pid")).trim());
    }

    /** The processes other than the host's own namespace's whose mount table has a mount at or under {@code dir}. */
    private static List<Long> processesIn(Path dir) throws Exception {
        String self = Files.readSymbolicLink(Path.of("/proc/self/ns/mnt")).toString();
        Set<String> seen = new HashSet<>();
        List<Long> found = new ArrayList<>();
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), p -> p.getFileName().toString().matches("\\d+"))) {
            for (Path p : procs) {
                try {
                    String ns = Files.readSymbolicLink(p.resolve("ns/mnt")).toString();
                    if (ns.equals(self) || !seen.add(ns)) continue;
                    if (mountsOf(Long.parseLong(p.getFileName().toString())).stream().anyMatch(l -> mountPoint(l).startsWith(dir.toString()))) {
                        found.add(Long.parseLong(p.getFileName().toString()));
                    }
                } catch (IOException gone) {
                    // ended meanwhile, or a kernel thread
                }
            }
        }
        return found;
    }

    private Path sandboxDir(Sandbox s) {
        return env.dataDir.resolve("sandboxes").resolve(s.ref().sandboxId());
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
