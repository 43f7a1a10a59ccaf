package dev.paddock.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.paddock.core.Ids;
import dev.paddock.core.PaddockException;
import dev.paddock.core.conformance.Conformance.Durability;
import dev.paddock.core.conformance.Conformance.Enforcement;
import dev.paddock.core.conformance.Conformance.OrphanReap;
import dev.paddock.core.conformance.Conformance.Support;
import dev.paddock.core.conformance.Conformance.WorkspaceStrategy;
import dev.paddock.core.conformance.Conformance;
import dev.paddock.core.spi.ExecHandle;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.ExecResult;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.FileChange;
import dev.paddock.core.spi.FileEntry;
import dev.paddock.core.spi.FileWatch;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.MemoryCheckpoints;
import dev.paddock.core.spi.ProcessInfo;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxDriver;
import dev.paddock.core.spi.SandboxRef;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.TerminalHandle;
import dev.paddock.core.spi.TerminalRequest;
import dev.paddock.core.spi.TerminationReason;
import dev.paddock.core.spi.UnsupportedCapabilityException;
import dev.paddock.core.spi.Workspace;
import dev.paddock.driver.kubernetes.MockClusterDrivers;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The conformance kit: every claim of a driver's {@link Conformance} record, and the SPI behaviour every driver
 * must have, proven against the real driver. A suite for one or more drivers extends it and says, before each
 * check, which {@link DriverUnderTest} it runs against: {@code DriverConformanceTest} builds a fresh driver per
 * check, a driver whose setup is expensive or external (a paired browser tab) hands the one it keeps for its class.
 * Claims a driver does not make are shown refused. Every failure names the driver, e.g. {@code [driver=bwrap] ...}.
 * Published in this module's test-jar.
 */
@Tag("conformance")
@ExtendWith(DriverNameInFailures.class)
public abstract class DriverConformanceKit {
    private static final Duration PATIENCE = Duration.ofSeconds(20);

    DriverUnderTest under;
    SandboxDriver driver;
    Conformance claims;
    Sandbox sandbox;
    final List<SandboxDriver> extraDrivers = new ArrayList<>();

    /** The sandbox the current check runs in, created for it by the kit. */
    protected final Sandbox sandbox() {
        return sandbox;
    }

    /** The driver's name, put in front of every failure. */
    protected abstract String driverName();

    /** The driver the next check runs against; closed after the check. Called before each check. */
    protected abstract DriverUnderTest driverUnderTest() throws Exception;

    /** A check that reads only the driver and its claims, or makes the sandboxes it needs itself: the kit makes none for it. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.METHOD)
    @interface NoSandbox {}

    @BeforeEach
    final void createSandbox(TestInfo check) throws Exception {
        under = driverUnderTest();
        driver = under.driver();
        claims = driver.conformance();
        sandbox = null;
        if (check.getTestMethod().filter(m -> m.isAnnotationPresent(NoSandbox.class)).isPresent()) return;
        sandbox = driver.create(under.spec(Ids.newId("sbx")), new Fence("host-conformance", 1));
    }

    @AfterEach
    final void cleanUp() throws Exception {
        if (sandbox != null) {
            try {
                sandbox.terminate(TerminationReason.USER_REQUEST);
            } catch (RuntimeException ignored) {
                // already terminated by the check
            }
        }
        extraDrivers.forEach(SandboxDriver::close);
        if (under != null) under.close();
    }

    // ---- the record itself ---------------------------------------------------------------------------

    @Test
    @NoSandbox
    void recordIsCompleteAndNamesTheDriver() {
        assertThat(claims.driver()).isEqualTo(driver.id());
        assertThat(claims.description()).isNotBlank();
        assertThat(claims.lanes()).as("lanes").isNotEmpty();
        assertThat(claims.lifecycle()).isNotNull();
        assertThat(claims.lifecycle().lease()).isNotNull();
        assertThat(claims.lifecycle().suspendResume()).isNotNull();
        assertThat(claims.lifecycle().hardTerminate()).isNotNull();
        assertThat(claims.lifecycle().orphanReap()).isNotNull();
        assertThat(claims.workspace().strategies()).as("workspace strategies").isNotEmpty();
        assertThat(claims.workspace().durability()).isNotNull();
        assertThat(claims.outputs().collection()).matches("[a-z][a-z0-9_]*");
        assertThat(claims.credentialEgress().enforcement()).isNotNull();
        assertThat(claims.runtimeCheckpoints()).allMatch(k -> k.matches("[a-z][a-z0-9_]*"));
        assertThat(claims.portFacts().available()).allMatch(k -> k.matches("[a-z][a-z0-9_]*"))
                .doesNotContainAnyElementsOf(claims.portFacts().unavailable());
        assertThat(claims.portFacts().unavailable()).allMatch(k -> k.matches("[a-z][a-z0-9_]*"));
    }

    // ---- lanes ---------------------------------------------------------------------------------------

    /** Both lanes drive a sandbox the same way: put files in, run tools on them, take results out. */
    @Test
    void lanesCanRunAToolCallRoundTrip() throws Exception {
        assertThat(claims.lanes()).isNotEmpty();
        sandbox.workspace().write("/workspace/task/input.txt", text("3\n1\n2\n"));

        Runs sort = Runs.run(sandbox, new ExecRequest(List.of("/bin/sh", "-c", "sort input.txt > sorted.txt && wc -l < sorted.txt"),
                Map.of(), "/workspace/task", Duration.ofSeconds(30), null));

        assertThat(sort.exit()).isZero();
        assertThat(sort.stdout().trim()).isEqualTo("3");
        assertThat(read(sandbox.workspace(), "task/sorted.txt")).isEqualTo("1\n2\n3\n");
    }

    // ---- lifecycle -----------------------------------------------------------------------------------

    @Test
    void suspendResumeBehavesAsClaimed() throws Exception {
        if (claims.lifecycle().suspendResume() == Support.SUPPORTED && claims.portFacts().available().contains(SUSPEND_STOPS_PROCESSES)) {
            suspendKeepsFilesAndEndsProcesses();
        } else if (claims.lifecycle().suspendResume() == Support.SUPPORTED) {
            ProcessInfo loop = sandbox.startProcess(ExecRequest.shell("i=0; while true; do i=$((i+1)); echo $i > counter; sleep 0.02; done"));
            await().atMost(PATIENCE).until(() -> counter() > 2);

            sandbox.suspend();
            long frozenAt = counter();
            assertThat(sandbox.inspect().frozen()).isTrue();
            // frozen: the loop, which normally advances every 20 ms, does not move for a while
            await().during(Duration.ofMillis(400)).atMost(PATIENCE).until(() -> counter() == frozenAt);

            sandbox.resume();
            await().atMost(PATIENCE).until(() -> counter() > frozenAt);
            assertThat(sandbox.processes()).extracting(ProcessInfo::pid).contains(loop.pid());
        } else {
            assertThatThrownBy(sandbox::suspend).isInstanceOf(UnsupportedCapabilityException.class)
                    .satisfies(e -> assertThat(((PaddockException) e).code()).isEqualTo("unsupported_capability"));
            assertThatThrownBy(sandbox::resume).isInstanceOf(UnsupportedCapabilityException.class);
            assertThat(Runs.shell(sandbox, "echo still-running").stdout()).isEqualTo("still-running\n");
        }
    }

    /** The port fact of drivers whose suspend stops the sandbox (a pod deleted) and keeps only its files. */
    static final String SUSPEND_STOPS_PROCESSES = "suspend_stops_processes";

    private void suspendKeepsFilesAndEndsProcesses() throws Exception {
        assertThat(Runs.shell(sandbox, "echo kept > kept.txt").exit()).isZero();

        sandbox.suspend();
        assertThat(sandbox.inspect().frozen()).isTrue();
        assertThatThrownBy(() -> Runs.shell(sandbox, "true")).isInstanceOf(PaddockException.class)
                .satisfies(e -> assertThat(((PaddockException) e).code()).isEqualTo("sandbox_not_running"));

        sandbox.resume();
        assertThat(sandbox.inspect().frozen()).isFalse();
        assertThat(read(sandbox.workspace(), "kept.txt")).isEqualTo("kept\n");
        assertThat(Runs.shell(sandbox, "echo running").stdout()).isEqualTo("running\n");
    }

    private long counter() {
        return counterOf(sandbox);
    }

    private static long counterOf(Sandbox sandbox) {
        try (InputStream in = sandbox.workspace().read("counter")) {
            String value = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
            return value.isEmpty() ? 0 : Long.parseLong(value.split(" ")[0]);
        } catch (PaddockException | IOException | NumberFormatException e) {
            return 0; // not written yet (or caught between truncate and write)
        }
    }

    @Test
    void hardTerminateBehavesAsClaimed() throws Exception {
        ExecHandle sleeper = runningSleep();
        assertThat(sleeper.await(Duration.ofMillis(200))).as("still running").isNull();
        if (claims.lifecycle().hardTerminate() == Support.SUPPORTED) {
            sandbox.terminate(TerminationReason.USER_REQUEST);

            // the running sleep ends: with a failed result, or with a clear error saying the sandbox is gone
            try {
                ExecResult ended = sleeper.await(PATIENCE);
                assertThat(ended).as("the running sleep was killed").isNotNull();
                assertThat(ended.exitCode()).isNotZero();
            } catch (PaddockException e) {
                assertThat(e.code()).isNotBlank();
            }
            assertThatThrownBy(() -> sandbox.exec(ExecRequest.of("true"), ExecOutput.DISCARD).await())
                    .as("exec after terminate")
                    .isInstanceOf(PaddockException.class)
                    .satisfies(e -> assertThat(((PaddockException) e).code()).isNotBlank())
                    .satisfies(e -> assertThat(e.getMessage()).isNotBlank());
        } else {
            assertThatThrownBy(() -> sandbox.terminate(TerminationReason.USER_REQUEST)).isInstanceOf(UnsupportedCapabilityException.class);
            sleeper.kill();
        }
    }

    @Test
    void orphanReapBehavesAsClaimed() throws Exception {
        SandboxDriver second = under.restarted();
        extraDrivers.add(second);
        SandboxRef ref = sandbox.ref();
        if (claims.lifecycle().orphanReap() == OrphanReap.HOST_MANAGED) {
            assertThat(second.list()).extracting(SandboxRef::sandboxId).contains(ref.sandboxId());
            Sandbox attached = second.attach(ref).orElseThrow(() -> new AssertionError("a live sandbox could not be attached"));
            assertThat(Runs.shell(attached, "echo attached").stdout()).isEqualTo("attached\n");
        } else {
            assertThat(second.list()).extracting(SandboxRef::sandboxId).doesNotContain(ref.sandboxId());
            assertThat(second.attach(ref)).isEmpty();
        }
    }

    // ---- workspace -----------------------------------------------------------------------------------

    @Test
    void workspaceDurabilityBehavesAsClaimed() throws Exception {
        assertThat(Runs.shell(sandbox, "mkdir -p out && echo durable > out/result.txt").exit()).isZero();
        assertThat(read(sandbox.workspace(), "/workspace/out/result.txt")).isEqualTo("durable\n");

        sandbox.terminate(TerminationReason.USER_REQUEST);
        Optional<Workspace> after = driver.workspace(sandbox.ref());

        Durability durability = claims.workspace().durability();
        if (durability == Durability.DURABLE || claims.workspace().strategies().contains(WorkspaceStrategy.DURABLE_MOUNT)) {
            assertThat(durability).as("a durable mount is durable").isEqualTo(Durability.DURABLE);
            assertThat(after).as("the workspace outlives the sandbox").isPresent();
            assertThat(read(after.get(), "out/result.txt")).isEqualTo("durable\n");
        } else if (durability == Durability.NONE) {
            assertThat(after).as("a driver without durability keeps no workspace").isEmpty();
        }
    }

    @Test
    void outputsBehaveAsClaimed() throws Exception {
        switch (claims.outputs().collection()) {
            case "host_directory" -> outputsAreAHostDirectory();
            case "persistent_volume_claim" -> outputsAreOnTheSandboxClaim();
            case "unavailable" -> {
                assertThatThrownBy(sandbox::outputs).isInstanceOf(UnsupportedCapabilityException.class);
                assertThat(driver.outputs(sandbox.ref())).as("no outputs are kept").isEmpty();
            }
            default -> throw new AssertionError("outputs collection " + claims.outputs().collection()
                    + " has no proof in this kit; add one before claiming it");
        }
    }

    /** Outputs on the sandbox's own volume: read through the live sandbox, apart from the workspace, kept across a suspend. */
    private void outputsAreOnTheSandboxClaim() throws Exception {
        Runs run = Runs.shell(sandbox, "cd " + Workspace.OUTPUTS + " && mkdir -p charts && echo result > charts/report.txt");
        assertThat(run.exit()).as("writing to " + Workspace.OUTPUTS + ": " + run.stderr()).isZero();

        assertThat(read(sandbox.outputs(), Workspace.OUTPUTS + "/charts/report.txt")).isEqualTo("result\n");
        assertThat(sandbox.workspace().list("/workspace")).as("outputs are not part of the workspace").isEmpty();
        if (claims.lifecycle().suspendResume() == Support.SUPPORTED) {
            sandbox.suspend();
            sandbox.resume();
            assertThat(read(sandbox.outputs(), "charts/report.txt")).as("outputs outlive a suspend").isEqualTo("result\n");
        }
    }

    private void outputsAreAHostDirectory() throws Exception {
        // the subprocess driver's host processes find the directory in $PADDOCK_OUTPUTS; isolating drivers mount it
        Runs run = Runs.shell(sandbox, "cd \"${PADDOCK_OUTPUTS:-" + Workspace.OUTPUTS + "}\" && mkdir -p charts && echo result > charts/report.txt");
        assertThat(run.exit()).as("writing to " + Workspace.OUTPUTS + ": " + run.stderr()).isZero();

        assertThat(read(sandbox.outputs(), Workspace.OUTPUTS + "/charts/report.txt")).isEqualTo("result\n");
        assertThat(sandbox.outputs().list("charts")).extracting(FileEntry::path).containsExactly(Workspace.OUTPUTS + "/charts/report.txt");
        assertThat(sandbox.workspace().list("/workspace")).as("outputs are not part of the workspace").isEmpty();

        sandbox.terminate(TerminationReason.USER_REQUEST);
        Optional<Workspace> after = driver.outputs(sandbox.ref());
        assertThat(after).as("outputs stay readable after the sandbox ended").isPresent();
        assertThat(read(after.get(), "charts/report.txt")).isEqualTo("result\n");
    }

    @Test
    @NoSandbox
    void everyClaimedCheckpointKindHasAProof() {
        Set<String> proven = Set.of("workspace_tar", MemoryCheckpoints.KIND);
        assertThat(claims.runtimeCheckpoints())
                .as("checkpoint kinds this kit can prove; add a test before claiming another")
                .allMatch(proven::contains);
    }

    @Test
    void workspaceTarCheckpointRestoresExactlyOrIsRefused() throws Exception {
        Workspace ws = sandbox.workspace();
        if (!claims.supportsCheckpoint("workspace_tar")) {
            assertThatThrownBy(() -> ws.exportTar("/workspace", new ByteArrayOutputStream()))
                    .isInstanceOf(UnsupportedCapabilityException.class);
            assertThatThrownBy(() -> ws.importTar("/workspace", text(""))).isInstanceOf(UnsupportedCapabilityException.class);
            return;
        }
        assertThat(Runs.shell(sandbox, "mkdir -p src/lib && printf 'one' > src/a.txt && printf 'lib' > src/lib/b.txt"
                + " && chmod 755 src/lib/b.txt && ln -s a.txt src/link && mkdir empty").exit()).isZero();
        List<String> before = snapshot(ws);
        ByteArrayOutputStream checkpoint = new ByteArrayOutputStream();
        ws.exportTar("/workspace", checkpoint);

        assertThat(Runs.shell(sandbox, "printf 'changed' > src/a.txt && rm -r src/lib && echo new > added.txt").exit()).isZero();
        assertThat(snapshot(ws)).isNotEqualTo(before);
        ws.clear();
        ws.importTar("/workspace", new ByteArrayInputStream(checkpoint.toByteArray()));

        assertThat(snapshot(ws)).isEqualTo(before);
        assertThat(Runs.shell(sandbox, "cat src/link").stdout()).isEqualTo("one");
    }

    // ---- Chromium's own sandbox ----------------------------------------------------------------------

    /**
     * A driver that claims {@value Conformance#CHROMIUM_SANDBOX} runs Chromium with its own sandbox on: without
     * {@code --no-sandbox}, Chromium refuses to start when it finds no usable sandbox, so a rendered page proves it.
     */
    @Test
    @NoSandbox
    void chromiumKeepsItsOwnSandboxWhereClaimed() throws Exception {
        if (!claims.keepsChromiumSandbox()) return;
        SandboxSpec base = under.spec(Ids.newId("sbx"));
        SandboxSpec roomy = new SandboxSpec(base.sandboxId(), base.tenantId(), base.image(), base.writableRootfs(),
                new Limits(2L << 30, 1024, 1.0), base.env(), base.network());
        Sandbox browser = driver.create(roomy, new Fence("host-conformance", 1));
        try {
            Runs page = Runs.run(browser, new ExecRequest(List.of("/usr/lib/chromium/chromium", "--headless", "--disable-gpu",
                    "--no-first-run", "--disable-background-networking", "--dump-dom", "data:text/html,<p>inside-its-own-sandbox</p>"),
                    Map.of(), "/workspace", Duration.ofSeconds(120), null));
            assertThat(page.stdout()).as(page.stderr()).contains("<p>inside-its-own-sandbox</p>");
            assertThat(page.stderr()).doesNotContain("No usable sandbox");
        } finally {
            browser.terminate(TerminationReason.USER_REQUEST);
        }
    }

    /**
     * A driver that claims {@value Conformance#TERMINAL} runs a command on a pty inside the sandbox: the command
     * sees a terminal of the asked size, a resize reaches it, and its exit code comes back; others refuse at once.
     */
    @Test
    void terminalBehavesAsClaimed() throws Exception {
        TerminalRequest request = new TerminalRequest(List.of("/bin/sh", "-c", "stty size; read line; stty size; exit 3"), Map.of(), null, 33, 77);
        if (!claims.supportsTerminal()) {
            assertThatThrownBy(() -> sandbox.openTerminal(request, ExecOutput.DISCARD)).isInstanceOf(UnsupportedCapabilityException.class);
            return;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        TerminalHandle t = sandbox.openTerminal(request, collect(out));
        await().atMost(PATIENCE).until(() -> text(out).contains("33 77"));
        t.resize(12, 34);
        t.stdin().write("go\n".getBytes(StandardCharsets.UTF_8));
        ExecResult r = t.await(PATIENCE);
        assertThat(r).as("the command on the terminal ends").isNotNull();
        assertThat(r.exitCode()).isEqualTo(3);
        assertThat(text(out)).contains("12 34");
    }

    /**
     * A driver that claims {@value Conformance#PORT_FORWARD} relays a connection to a server on the sandbox's own
     * loopback, and says so when nothing listens there; others refuse at once.
     */
    @Test
    void portForwardBehavesAsClaimed() throws Exception {
        if (!claims.supportsPortForward()) {
            assertThatThrownBy(() -> sandbox.connectPort(8080, ExecOutput.DISCARD)).isInstanceOf(UnsupportedCapabilityException.class);
            return;
        }
        sandbox.startProcess(ExecRequest.shell("exec python3 -c 'import socket\ns = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
                + "s.bind((\"127.0.0.1\", 8080)); s.listen(1)\nwhile True:\n    c, _ = s.accept(); c.sendall(b\"port-\" + c.recv(64)); c.close()'"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        await().atMost(PATIENCE).until(() -> {
            out.reset();
            ExecHandle h = sandbox.connectPort(8080, collect(out));
            try {
                h.stdin().write("reached".getBytes(StandardCharsets.UTF_8));
            } catch (IOException notYet) {
                // nothing listened yet: the relay ended at once and took its stdin with it; try again
                h.close();
                return false;
            }
            ExecResult r = h.await(PATIENCE);
            return r != null && r.exitCode() == 0 && text(out).equals("port-reached");
        });
        ExecResult none = sandbox.connectPort(8081, ExecOutput.DISCARD).await(PATIENCE);
        assertThat(none).isNotNull();
        assertThat(none.exitCode()).isEqualTo(Sandbox.PORT_NOT_LISTENING);
    }

    /** The port fact of drivers with background processes ({@link Sandbox#startProcess}). */
    static final String BACKGROUND_PROCESSES = "background_processes";

    /**
     * A driver claiming background processes keeps a process's output and exit code, signals it, and, where the
     * sandbox survives its server's restart, a restarted driver finds it still running; others refuse at once.
     */
    @Test
    void backgroundProcessesBehaveAsClaimed() throws Exception {
        if (!claims.portFacts().available().contains(BACKGROUND_PROCESSES)) {
            assertThatThrownBy(() -> sandbox.startProcess(ExecRequest.shell("true"))).isInstanceOf(UnsupportedCapabilityException.class);
            return;
        }
        ProcessInfo done = sandbox.startProcess(ExecRequest.shell("echo out; echo err >&2; exit 3"));
        await().atMost(PATIENCE).until(() -> ended(sandbox, done.pid()));
        assertThat(sandbox.processes()).filteredOn(p -> p.pid() == done.pid()).singleElement()
                .satisfies(p -> assertThat(p.exitCode()).isEqualTo(3));
        assertThat(new String(sandbox.processLogs(done.pid(), 0, 1024), StandardCharsets.UTF_8)).contains("out\n").contains("err\n");

        ProcessInfo sleeper = sandbox.startProcess(ExecRequest.shell("echo up; sleep 600"));
        await().atMost(PATIENCE).until(() -> new String(sandbox.processLogs(sleeper.pid(), 0, 64), StandardCharsets.UTF_8).equals("up\n"));
        Sandbox holder = sandbox;
        if (claims.portFacts().available().contains("survives_host_restart") && claims.lifecycle().orphanReap() == OrphanReap.HOST_MANAGED) {
            SandboxDriver restarted = under.restarted();
            extraDrivers.add(restarted);
            holder = restarted.attach(sandbox.ref()).orElseThrow(() -> new AssertionError("a live sandbox could not be attached"));
            assertThat(holder.processes()).as("a restarted driver finds the process running")
                    .anySatisfy(p -> assertThat(p.pid() == sleeper.pid() && p.running()).isTrue());
        }
        holder.signalProcess(sleeper.pid(), 9);
        Sandbox signalled = holder;
        await().atMost(PATIENCE).until(() -> ended(signalled, sleeper.pid()));
    }

    /** The kubernetes driver's port fact: with kubernetes_agent_sandbox, sandboxes are agent-sandbox {@code Sandbox} objects. */
    static final String AGENT_SANDBOX_CRDS = "agent_sandbox_crds";

    /**
     * A driver claiming {@value #AGENT_SANDBOX_CRDS} makes its sandboxes agent-sandbox {@code Sandbox} objects in that
     * mode, whatever mode the fixture runs it in: proven on a mock cluster of its own that serves them.
     */
    @Test
    @NoSandbox
    void agentSandboxObjectsAreMadeAsClaimed() throws Exception {
        if (!claims.portFacts().available().contains(AGENT_SANDBOX_CRDS)) return;
        assertThat(driver.id()).as("only the kubernetes driver has a proof of " + AGENT_SANDBOX_CRDS).isEqualTo("kubernetes");
        MockClusterDrivers.proveAgentSandboxObjects(under.dataDir());
    }

    /** The kubernetes driver's port fact: in the agent-sandbox mode, creates of a configured shape are taken from a warm pool. */
    static final String AGENT_SANDBOX_WARM_POOLS = "agent_sandbox_warm_pools";

    /** A driver claiming {@value #AGENT_SANDBOX_WARM_POOLS} serves a create of its pool's shape from a pod made before it. */
    @Test
    void warmPoolsAreUsedAsClaimed() throws Exception {
        if (!claims.portFacts().available().contains(AGENT_SANDBOX_WARM_POOLS)) return;
        assertThat(driver.id()).as("only the kubernetes driver has a proof of " + AGENT_SANDBOX_WARM_POOLS).isEqualTo("kubernetes");
        MockClusterDrivers.proveWarmPool(under.dataDir());
    }

    private static boolean ended(Sandbox sandbox, long pid) {
        return sandbox.processes().stream().anyMatch(p -> p.pid() == pid && !p.running());
    }

    private static ExecOutput collect(ByteArrayOutputStream out) {
        return new ExecOutput() {
            @Override public void stdout(byte[] d, int o, int l) { synchronized (out) { out.write(d, o, l); } }
            @Override public void stderr(byte[] d, int o, int l) { synchronized (out) { out.write(d, o, l); } }
        };
    }

    private static String text(ByteArrayOutputStream out) {
        synchronized (out) {
            return out.toString(StandardCharsets.UTF_8);
        }
    }

    /**
     * A background counter goes on from its saved value after a memory checkpoint, restored in place and restored
     * into a new sandbox (a fork) whose workspace got the saved files first; a driver not claiming it offers none.
     * The counter writes a token drawn once when it started: the same token afterwards shows the same process, with
     * its memory, rather than one started again.
     */
    @Test
    void memoryCheckpointBringsProcessesBackOrIsNotOffered() throws Exception {
        if (!claims.supportsCheckpoint(MemoryCheckpoints.KIND)) {
            assertThat(driver.memoryCheckpoints()).as("memory checkpoints of a driver that does not claim them").isEmpty();
            return;
        }
        MemoryCheckpoints memory = driver.memoryCheckpoints().orElseThrow(() -> new AssertionError("memory checkpoints claimed but not offered"));
        sandbox.startProcess(ExecRequest.shell("t=$(od -An -N4 -tu4 /dev/urandom | tr -d ' '); i=0;"
                + " while true; do i=$((i+1)); echo \"$i $t\" > counter; sleep 0.05; done"));
        await().atMost(PATIENCE).until(() -> counter() > 3);
        String token = counterToken(sandbox);
        Path image = DataDirs.emptyDir(under.dataDir().resolve("memory-checkpoints").resolve(sandbox.ref().sandboxId()));

        memory.checkpoint(sandbox, image, false);
        long saved = counter();
        ByteArrayOutputStream files = new ByteArrayOutputStream();
        sandbox.workspace().exportTar("/workspace", files);
        assertThat(sandbox.inspect().alive()).as("the runtime ended with the save").isFalse();
        await().during(Duration.ofMillis(300)).atMost(PATIENCE).until(() -> counter() == saved);

        sandbox = memory.restore(under.spec(sandbox.ref().sandboxId()), new Fence("host-conformance", 1), image);
        await().atMost(PATIENCE).until(() -> counter() > saved);
        assertThat(counterToken(sandbox)).as("the same process counts on").isEqualTo(token);
        assertThat(Runs.shell(sandbox, "echo restored").stdout()).isEqualTo("restored\n");

        String forkId = Ids.newId("sbx");
        memory.forkWorkspace(forkId).importTar("/workspace", new ByteArrayInputStream(files.toByteArray()));
        Sandbox fork = memory.restore(under.spec(forkId), new Fence("host-conformance", 1), image);
        try {
            await().atMost(PATIENCE).until(() -> counterOf(fork) > saved);
            assertThat(counterToken(fork)).as("the fork counts on in the saved process").isEqualTo(token);
            assertThat(Runs.shell(fork, "echo forked").stdout()).isEqualTo("forked\n");
            long original = counter();
            await().atMost(PATIENCE).until(() -> counter() > original);
        } finally {
            fork.terminate(TerminationReason.USER_REQUEST);
            driver.purge(fork.ref());
        }
    }

    /** The token of the counter's line; waits out a read between the loop's truncate and its write. */
    private static String counterToken(Sandbox sandbox) {
        return await().atMost(PATIENCE).until(() -> {
            try {
                String[] fields = read(sandbox.workspace(), "counter").trim().split(" ");
                return fields.length == 2 ? fields[1] : "";
            } catch (PaddockException | IOException e) {
                return "";
            }
        }, token -> !token.isEmpty());
    }

    // ---- credential egress ---------------------------------------------------------------------------

    @Test
    @NoSandbox
    void credentialEgressClaimIsProven() throws Exception {
        Conformance.CredentialEgress egress = claims.credentialEgress();
        switch (egress.enforcement()) {
            case ENFORCED -> {
                EgressProofs.BypassProof proof = EgressProofs.BY_DRIVER.get(driver.id());
                assertThat(proof).as(driver.id() + " claims enforced credential egress, but no bypass test is registered in EgressProofs").isNotNull();
                assertThat(egress.interceptedProtocols()).isNotEmpty();
                proof.prove(driver, under.dataDir());
            }
            case ADVISORY -> assertThat(egress.interceptedProtocols()).as("advisory egress names what it intercepts").isNotEmpty();
            case UNSUPPORTED -> assertThat(egress.interceptedProtocols()).as("nothing is intercepted").isEmpty();
        }
        assertThat(egress.enforcement()).isIn((Object[]) Enforcement.values());
    }

    /**
     * A driver claiming {@value Conformance#FILE_WATCH} reports what a command inside does to the workspace, as
     * sandbox paths, also in a directory made after the watch began; one not claiming it refuses at once.
     */
    @Test
    void fileWatchBehavesAsClaimed() throws Exception {
        if (!claims.supportsFileWatch()) {
            assertThatThrownBy(() -> sandbox.workspace().watch("/workspace", true)).isInstanceOf(PaddockException.class)
                    .satisfies(e -> assertThat(((PaddockException) e).code()).isEqualTo("unsupported_capability"));
            return;
        }
        try (FileWatch watch = sandbox.workspace().watch("/workspace", true)) {
            List<FileChange> seen = new ArrayList<>();
            assertThat(Runs.shell(sandbox, "mkdir -p watched/sub").exit()).isZero();
            await().atMost(PATIENCE).until(() -> {
                seen.addAll(watch.next(Duration.ofMillis(200)));
                return seen.contains(new FileChange(FileChange.Kind.CREATED, "/workspace/watched/sub")); // watched from here on
            });
            assertThat(Runs.shell(sandbox, "echo hi > watched/sub/f").exit()).isZero();
            await().atMost(PATIENCE).until(() -> {
                seen.addAll(watch.next(Duration.ofMillis(200)));
                return seen.contains(new FileChange(FileChange.Kind.CREATED, "/workspace/watched/sub/f"));
            });
            assertThat(Runs.shell(sandbox, "rm watched/sub/f").exit()).isZero();
            await().atMost(PATIENCE).until(() -> {
                seen.addAll(watch.next(Duration.ofMillis(200)));
                return seen.contains(new FileChange(FileChange.Kind.DELETED, "/workspace/watched/sub/f"));
            });
            assertThat(seen).contains(new FileChange(FileChange.Kind.CREATED, "/workspace/watched")).allMatch(c -> c.path().startsWith("/workspace/"));
        }
    }

    /**
     * A running sandbox's network policy changes in place only through a listener the sandbox reaches as its one way
     * out, so the claim needs the proxy-only proof, which changes a policy while the sandbox runs and shows it hold.
     */
    @Test
    @NoSandbox
    void networkUpdateClaimIsProvenByTheEgressProof() {
        if (!claims.supportsNetworkUpdate()) return;
        assertThat(claims.credentialEgress().enforcement()).as("network_update needs enforced egress").isEqualTo(Enforcement.ENFORCED);
        assertThat(EgressProofs.BY_DRIVER).as("the egress proof of " + driver.id() + " changes a running sandbox's policy").containsKey(driver.id());
    }

    // ---- generic SPI behaviour -----------------------------------------------------------------------

    @Nested
    @DisplayName("exec")
    class Exec {
        @Test
        void exitCodesStdoutAndStderrAreSeparate() throws Exception {
            Runs run = Runs.shell(sandbox, "echo out; echo err >&2; exit 3");

            assertThat(run.exit()).isEqualTo(3);
            assertThat(run.stdout()).isEqualTo("out\n");
            assertThat(run.stderr()).isEqualTo("err\n");
            assertThat(run.result().timedOut()).isFalse();
            assertThat(run.result().oomKilled()).isFalse();
            assertThat(Runs.run(sandbox, ExecRequest.of("true")).exit()).isZero();
        }

        @Test
        void stdinIsDeliveredAndClosed() throws Exception {
            byte[] input = "line one\nline two\n".getBytes(StandardCharsets.UTF_8);
            assertThat(Runs.run(sandbox, ExecRequest.of("cat").withStdin(input)).stdout()).isEqualTo("line one\nline two\n");
            assertThat(Runs.run(sandbox, ExecRequest.of("cat")).stdout()).as("null stdin is empty, not a hang").isEmpty();
        }

        @Test
        void environmentComesFromTheRequest() throws Exception {
            Runs run = Runs.run(sandbox, new ExecRequest(List.of("/bin/sh", "-c", "echo \"$GREETING\"; echo \"$PATH\""),
                    Map.of("GREETING", "hello there"), null, null, null));

            assertThat(run.stdout().lines().toList()).first().isEqualTo("hello there");
            assertThat(run.stdout().lines().toList().get(1)).contains("/usr/bin");
        }

        @Test
        void cwdIsInsideTheWorkspace() throws Exception {
            sandbox.workspace().mkdir("/workspace/sub/dir");

            assertThat(Runs.run(sandbox, ExecRequest.of("pwd")).stdout().trim()).endsWith("/workspace");
            assertThat(Runs.run(sandbox, new ExecRequest(List.of("pwd"), Map.of(), "/workspace/sub/dir", null, null)).stdout().trim())
                    .endsWith("/workspace/sub/dir");
        }

        @Test
        void timeoutKillsTheCommand() throws Exception {
            Runs run = Runs.run(sandbox, ExecRequest.of("sleep", "600").withTimeout(Duration.ofMillis(500)));

            assertThat(run.result().timedOut()).isTrue();
            assertThat(run.exit()).isNotZero();
        }

        @Test
        void killEndsARunningCommand() throws Exception {
            ExecHandle handle = runningSleep();
            assertThat(handle.await(Duration.ofMillis(50))).as("still running").isNull();

            handle.kill();

            ExecResult result = handle.await(PATIENCE);
            assertThat(result).isNotNull();
            assertThat(result.timedOut()).isFalse();
            assertThat(result.exitCode()).isNotZero();
        }

        @Test
        void aMissingProgramFailsClearly() throws Exception {
            try {
                Runs run = Runs.run(sandbox, ExecRequest.of("/no/such/program"));
                assertThat(run.exit()).as("a missing program cannot succeed").isNotZero();
            } catch (PaddockException e) {
                assertThat(e.code()).isNotBlank();
                assertThat(e.getMessage()).isNotBlank();
            }
        }
    }

    @Nested
    @DisplayName("files")
    class Files {
        @Test
        void filesWrittenByExecAndByTheWorkspaceAreTheSame() throws Exception {
            sandbox.workspace().write("from-host.txt", text("host"));
            assertThat(Runs.shell(sandbox, "cat from-host.txt; printf sandbox > from-sandbox.txt").stdout()).isEqualTo("host");

            assertThat(read(sandbox.workspace(), "from-sandbox.txt")).isEqualTo("sandbox");
            assertThat(sandbox.workspace().list("/workspace")).extracting(FileEntry::path)
                    .contains("/workspace/from-host.txt", "/workspace/from-sandbox.txt");
        }

        @Test
        void pathTraversalIsRefused() throws Exception {
            assertThat(Runs.shell(sandbox, "ln -s /etc etc-link && ln -s ../../../../../../etc/passwd up-link").exit()).isZero();
            Workspace ws = sandbox.workspace();

            for (String path : List.of("../etc/passwd", "/etc/passwd", "/workspace/../etc/passwd", "a/../../etc/passwd",
                    "etc-link/passwd", "up-link")) {
                assertThatThrownBy(() -> ws.read(path)).as(path).isInstanceOf(PaddockException.class)
                        .satisfies(e -> assertThat(((PaddockException) e).code()).isEqualTo("path_outside_workspace"));
                assertThatThrownBy(() -> ws.write(path, text("x"))).as(path).isInstanceOf(PaddockException.class)
                        .satisfies(e -> assertThat(((PaddockException) e).code()).isEqualTo("path_outside_workspace"));
            }
            assertThat(ws.stat("etc-link").type()).isEqualTo(FileEntry.Type.SYMLINK);
        }
    }

    // ---- helpers -------------------------------------------------------------------------------------

    /**
     * Starts a long sleep and returns once it runs (it has left a mark in the workspace): a driver may queue a
     * command before it runs it, and what follows must act on a running one.
     */
    private ExecHandle runningSleep() {
        ExecHandle sleeper = sandbox.exec(ExecRequest.shell("touch .sleeping && exec sleep 600"), ExecOutput.DISCARD);
        await().atMost(PATIENCE).until(() -> exists(sandbox.workspace(), ".sleeping"));
        return sleeper;
    }

    protected static InputStream text(String s) {
        return new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8));
    }

    protected static String read(Workspace ws, String path) throws IOException {
        try (InputStream in = ws.read(path)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    protected static boolean exists(Workspace ws, String path) {
        try {
            ws.stat(path);
            return true;
        } catch (PaddockException notYet) {
            return false;
        }
    }

    /** Every entry as "path type mode size link content", in a stable order. */
    private static List<String> snapshot(Workspace ws) throws IOException {
        List<String> lines = new ArrayList<>();
        collect(ws, "/workspace", lines);
        return lines.stream().sorted().toList();
    }

    private static void collect(Workspace ws, String dir, List<String> lines) throws IOException {
        for (FileEntry e : ws.list(dir)) {
            String content = e.type() == FileEntry.Type.FILE ? read(ws, e.path()) : "";
            lines.add(String.join(" ", e.path(), e.type().name(), Integer.toOctalString(e.mode()),
                    e.type() == FileEntry.Type.DIRECTORY ? "-" : String.valueOf(e.size()), String.valueOf(e.linkTarget()), content));
            if (e.type() == FileEntry.Type.DIRECTORY) collect(ws, e.path(), lines);
        }
    }
}
