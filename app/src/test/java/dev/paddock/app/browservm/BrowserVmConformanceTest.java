package dev.paddock.app.browservm;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import dev.paddock.core.Ids;
import dev.paddock.core.PaddockException;
import dev.paddock.core.conformance.Conformance;
import dev.paddock.core.conformance.Conformance.Durability;
import dev.paddock.core.conformance.Conformance.Enforcement;
import dev.paddock.core.conformance.Conformance.OrphanReap;
import dev.paddock.core.conformance.Conformance.Support;
import dev.paddock.core.spi.ExecHandle;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.ExecResult;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.FileEntry;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.TerminationReason;
import dev.paddock.core.spi.UnsupportedCapabilityException;
import dev.paddock.core.spi.Workspace;
import dev.paddock.driver.browservm.BrowserVmConfig;
import dev.paddock.driver.browservm.BrowserVmDriver;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The conformance kit's claims, walked for the browser-vm driver. The kit (conformance/) builds a fresh driver per
 * test and cannot hold a paired browser tab, so this suite pairs one headless Chromium tab once and proves every
 * claim of {@link BrowserVmDriver#conformance()} through the driver's SPI against that live tab: supported
 * capabilities work, unsupported ones fail fast with {@code unsupported_capability}. It also prints the exec round
 * trip of the SPI path (median of 25, no threshold).
 */
@Tag("browser")
class BrowserVmConformanceTest {
    private static final Duration PATIENCE = Duration.ofSeconds(20);
    private static final String TENANT = "tenant_a";

    @TempDir static Path dataDir;
    static BrowserVmStack stack;
    static Playwright playwright;
    static Browser browser;
    static Page tab;
    static BrowserVmDriver driver;
    static Conformance claims;

    Sandbox sandbox;

    @BeforeAll
    static void pairOneTab() throws Exception {
        Path assets = Path.of(System.getProperty("paddock.browser-vm.assets", BrowserVmConfig.defaultAssetsDir().toString()));
        if (!Files.isRegularFile(assets.resolve("manifest.json"))) {
            throw new IllegalStateException("browser-vm assets missing in " + assets + "; build them with scripts/build-browser-vm");
        }
        stack = new BrowserVmStack(dataDir, assets);
        driver = new BrowserVmDriver(stack.vm);
        claims = driver.conformance();
        playwright = Playwright.create();
        browser = playwright.chromium().launch(new BrowserType.LaunchOptions()
                .setExecutablePath(Paths.get("/usr/bin/chromium")).setHeadless(true)
                .setArgs(List.of("--no-sandbox", "--disable-gpu", "--disable-background-networking",
                        "--disable-component-update", "--disable-sync", "--no-first-run")));
        tab = browser.newContext().newPage();
        tab.setDefaultTimeout(60_000);
        com.microsoft.playwright.assertions.PlaywrightAssertions.setDefaultAssertionTimeout(60_000);
        tab.navigate(stack.url + "/sandbox-tab#code=" + stack.vm.pair(TENANT).code());
        assertThat(tab.locator("#relay-state")).hasText("online");
    }

    @AfterAll
    static void stop() {
        if (browser != null) browser.close();
        if (playwright != null) playwright.close();
        if (driver != null) driver.close();
        if (stack != null) stack.close();
    }

    @BeforeEach
    void createSandbox() {
        sandbox = driver.create(new SandboxSpec(Ids.newId("sbx"), TENANT, null, false, driver.limits(null), Map.of(),
                dev.paddock.core.spi.NetworkPolicy.NONE), new Fence("host-conformance", 1));
    }

    @AfterEach
    void terminateSandbox() {
        try {
            sandbox.terminate(TerminationReason.USER_REQUEST);
        } catch (RuntimeException ignored) {
            // already terminated by the test
        }
    }

    // ---- the record ----------------------------------------------------------------------------------

    @Test
    void recordStatesWhatTheTabCanAndCannotDo() {
        assertThat(claims.driver()).isEqualTo(driver.id());
        assertThat(claims.lifecycle().suspendResume()).isEqualTo(Support.UNSUPPORTED);
        assertThat(claims.lifecycle().hardTerminate()).isEqualTo(Support.SUPPORTED);
        assertThat(claims.lifecycle().orphanReap()).isEqualTo(OrphanReap.UNAVAILABLE);
        assertThat(claims.workspace().durability()).isEqualTo(Durability.BEST_EFFORT);
        assertThat(claims.outputs().collection()).isEqualTo("unavailable");
        assertThat(claims.credentialEgress().enforcement()).isEqualTo(Enforcement.UNSUPPORTED);
        assertThat(claims.credentialEgress().interceptedProtocols()).isEmpty();
        assertThat(claims.runtimeCheckpoints()).as("no checkpoint kind is claimed").isEmpty();
        assertThat(claims.portFacts().available()).doesNotContainAnyElementsOf(claims.portFacts().unavailable());
        assertThat(claims.portFacts().unavailable()).as("the VM's resources are fixed: see limitsAreWhatTheVmHas…")
                .contains("memory_limits", "cpu_limits", "pids_limits");
    }

    @Test
    void laneRunsAToolCallRoundTrip() throws Exception {
        sandbox.workspace().write("/workspace/task/input.txt", text("3\n1\n2\n"));
        Run sort = run(new ExecRequest(List.of("/bin/sh", "-c", "sort input.txt > sorted.txt && wc -l < sorted.txt"),
                Map.of(), "/workspace/task", Duration.ofSeconds(30), null));
        assertThat(sort.exit()).isZero();
        assertThat(sort.stdout().trim()).isEqualTo("3");
        assertThat(read(sandbox.workspace(), "task/sorted.txt")).isEqualTo("1\n2\n3\n");
    }

    // ---- lifecycle -----------------------------------------------------------------------------------

    @Test
    void suspendAndResumeAreUnsupportedAndRefusedWithoutATripToTheTab() throws Exception {
        String ops = tab.locator("#op-log").textContent();
        assertThatThrownBy(sandbox::suspend).isInstanceOf(UnsupportedCapabilityException.class)
                .satisfies(e -> assertThat(((PaddockException) e).code()).isEqualTo("unsupported_capability"));
        assertThatThrownBy(sandbox::resume).isInstanceOf(UnsupportedCapabilityException.class);
        assertThat(tab.locator("#op-log").textContent()).as("the tab saw no operation").isEqualTo(ops);
        assertThat(shell("echo still-running").stdout()).isEqualTo("still-running\n");
    }

    @Test
    void limitsAreWhatTheVmHasAndOthersAreRefused() throws Exception {
        Limits vm = driver.limits(null);
        assertThat(vm.memoryBytes()).isEqualTo(128L << 20);
        assertThat(vm.cpus()).isEqualTo(1.0);
        assertThat(driver.limits(vm)).isEqualTo(vm);
        long memTotalKib = Long.parseLong(shell("awk '/MemTotal/ {print $2}' /proc/meminfo").stdout().trim());
        assertThat(memTotalKib << 10).as("the guest sees no more than the reported memory").isLessThanOrEqualTo(vm.memoryBytes());
        assertThat(shell("grep -c ^processor /proc/cpuinfo").stdout().trim()).as("one CPU").isEqualTo("1");
        assertThatThrownBy(() -> driver.limits(Limits.DEFAULT)).isInstanceOf(PaddockException.class)
                .satisfies(e -> assertThat(((PaddockException) e).code()).isEqualTo("memory_limit_unavailable"));
        assertThatThrownBy(() -> driver.limits(new Limits(vm.memoryBytes(), vm.pids(), 4)))
                .satisfies(e -> assertThat(((PaddockException) e).code()).isEqualTo("cpus_limit_unavailable"));
        assertThatThrownBy(() -> driver.limits(new Limits(vm.memoryBytes(), 64, 1)))
                .satisfies(e -> assertThat(((PaddockException) e).code()).isEqualTo("pids_limit_unavailable"));
        String spec = Ids.newId("sbx");
        assertThatThrownBy(() -> driver.create(SandboxSpec.defaults(spec, TENANT), new Fence("host-conformance", 1)))
                .as("create refuses them too, before it takes a tab")
                .satisfies(e -> assertThat(((PaddockException) e).code()).isEqualTo("memory_limit_unavailable"));
    }

    @Test
    void hardTerminateEndsRunningCommandsAndRefusesNewOnes() throws Exception {
        ExecHandle sleeper = sandbox.exec(ExecRequest.of("sleep", "600"), ExecOutput.DISCARD);
        assertThat(sleeper.await(Duration.ofMillis(200))).as("still running").isNull();
        sandbox.terminate(TerminationReason.USER_REQUEST);
        try {
            ExecResult ended = sleeper.await(PATIENCE);
            assertThat(ended).as("the running sleep was ended").isNotNull();
            assertThat(ended.exitCode()).isNotZero();
        } catch (PaddockException e) {
            assertThat(e.code()).isNotBlank();
        }
        assertThatThrownBy(() -> sandbox.exec(ExecRequest.of("true"), ExecOutput.DISCARD).await())
                .isInstanceOf(PaddockException.class)
                .satisfies(e -> assertThat(e.getMessage()).isNotBlank());
    }

    @Test
    void orphansAreNotReapableByAnotherDriverInstance() {
        try (BrowserVmDriver second = new BrowserVmDriver(stack.vm)) {
            assertThat(second.list()).extracting(r -> r.sandboxId()).doesNotContain(sandbox.ref().sandboxId());
            assertThat(second.attach(sandbox.ref())).isEmpty();
        }
    }

    @Test
    void checkpointsAndOutputsAreUnsupported() {
        assertThat(claims.supportsCheckpoint("workspace_tar")).isFalse();
        assertThat(driver.workspace(sandbox.ref())).as("nothing of the workspace is kept on the server").isEmpty();
        assertThatThrownBy(sandbox::outputs).isInstanceOf(UnsupportedCapabilityException.class);
        assertThat(driver.outputs(sandbox.ref())).isEmpty();
    }

    // ---- workspace: best effort, through the tab's OPFS mirror -------------------------------------------

    @Test
    void workspaceSurvivesATabReloadThroughOpfs() throws Exception {
        assertThat(shell("mkdir -p out && echo durable > out/result.txt").exit()).isZero();
        assertThat(tab.locator("#mirror-state")).containsText("saved");
        tab.reload();
        assertThat(tab.locator("#relay-state")).hasText("online");
        assertThat(tab.locator("#mirror-state")).containsText("restored");
        assertThat(read(sandbox.workspace(), "/workspace/out/result.txt")).isEqualTo("durable\n");
        assertThat(shell("cat out/result.txt").stdout()).isEqualTo("durable\n");
    }

    // ---- exec ----------------------------------------------------------------------------------------

    @Test
    void exitCodesStdoutAndStderrAreSeparate() throws Exception {
        Run r = shell("echo out; echo err >&2; exit 3");
        assertThat(r.exit()).isEqualTo(3);
        assertThat(r.stdout()).isEqualTo("out\n");
        assertThat(r.stderr()).isEqualTo("err\n");
        assertThat(r.result().timedOut()).isFalse();
        assertThat(run(ExecRequest.of("true")).exit()).isZero();
        assertThat(run(ExecRequest.of("false")).exit()).isEqualTo(1);
        assertThat(run(ExecRequest.of("/bin/true")).exit()).isZero();
        assertThat(run(new ExecRequest(List.of("false"), Map.of("WITH_ENV", "1"), null, null, null)).exit())
                .as("the same answer when the command cannot run in place").isEqualTo(1);
        assertThat(run(ExecRequest.of("true").withStdin("ignored".getBytes(StandardCharsets.UTF_8))).exit()).isZero();
    }

    @Test
    void stdinIsDeliveredAndClosed() throws Exception {
        assertThat(run(ExecRequest.of("cat").withStdin("line one\nline two\n".getBytes(StandardCharsets.UTF_8))).stdout())
                .isEqualTo("line one\nline two\n");
        assertThat(run(ExecRequest.of("cat")).stdout()).as("no stdin is empty, not a hang").isEmpty();
    }

    @Test
    void environmentComesFromTheRequest() throws Exception {
        Run r = run(new ExecRequest(List.of("/bin/sh", "-c", "echo \"$GREETING\"; echo \"$PATH\""), Map.of("GREETING", "hello there"), null, null, null));
        assertThat(r.stdout().lines().toList().get(0)).isEqualTo("hello there");
        assertThat(r.stdout().lines().toList().get(1)).contains("/usr/bin");
    }

    @Test
    void cwdIsInsideTheWorkspace() throws Exception {
        sandbox.workspace().mkdir("/workspace/sub/dir");
        assertThat(run(ExecRequest.of("pwd")).stdout().trim()).isEqualTo("/workspace");
        assertThat(run(new ExecRequest(List.of("pwd"), Map.of(), "/workspace/sub/dir", null, null)).stdout().trim()).isEqualTo("/workspace/sub/dir");
        assertThat(run(new ExecRequest(List.of("true"), Map.of(), "/workspace/missing", null, null)).exit())
                .as("a missing cwd fails even for a command the shell runs in place").isNotZero();
    }

    @Test
    void timeoutKillsTheCommand() throws Exception {
        Run r = run(ExecRequest.of("sleep", "600").withTimeout(Duration.ofMillis(500)));
        assertThat(r.result().timedOut()).isTrue();
        assertThat(r.exit()).isNotZero();
        assertThat(shell("echo next").stdout()).as("the shell serves the next command").isEqualTo("next\n");
    }

    @Test
    void killEndsARunningCommand() throws Exception {
        ExecHandle handle = sandbox.exec(ExecRequest.of("sleep", "600"), ExecOutput.DISCARD);
        assertThat(handle.await(Duration.ofMillis(50))).as("still running").isNull();
        handle.kill();
        ExecResult result = handle.await(PATIENCE);
        assertThat(result).isNotNull();
        assertThat(result.timedOut()).isFalse();
        assertThat(result.exitCode()).isNotZero();
    }

    @Test
    void aMissingProgramFailsClearly() throws Exception {
        assertThat(run(ExecRequest.of("/no/such/program")).exit()).isNotZero();
    }

    @Test
    void execRoundTripThroughTheDriver() throws Exception {
        for (String program : List.of("true", "/bin/true")) {
            List<Double> trips = new ArrayList<>();
            for (int i = 0; i < 25; i++) {
                long t = System.nanoTime();
                assertThat(run(ExecRequest.of(program)).exit()).isZero();
                trips.add((System.nanoTime() - t) / 1e6);
            }
            Collections.sort(trips);
            System.out.printf("[browser-vm bench] SPI -> relay -> VM exec round trip for `%s`, median of 25: %.1f ms (min %.1f, max %.1f)%n",
                    program, trips.get(12), trips.get(0), trips.get(24));
        }
    }

    // ---- files ---------------------------------------------------------------------------------------

    @Test
    void filesWrittenByExecAndByTheWorkspaceAreTheSame() throws Exception {
        sandbox.workspace().write("from-host.txt", text("host"));
        assertThat(shell("cat from-host.txt; printf sandbox > from-sandbox.txt").stdout()).isEqualTo("host");
        assertThat(read(sandbox.workspace(), "from-sandbox.txt")).isEqualTo("sandbox");
        assertThat(sandbox.workspace().list("/workspace")).extracting(FileEntry::path)
                .contains("/workspace/from-host.txt", "/workspace/from-sandbox.txt");
    }

    @Test
    void pathTraversalIsRefused() throws Exception {
        assertThat(shell("ln -s /etc etc-link && ln -s ../../../../../../etc/passwd up-link").exit()).isZero();
        Workspace ws = sandbox.workspace();
        for (String path : List.of("../etc/passwd", "/etc/passwd", "/workspace/../etc/passwd", "a/../../etc/passwd", "etc-link/passwd", "up-link")) {
            assertThatThrownBy(() -> ws.read(path)).as(path).isInstanceOf(PaddockException.class)
                    .satisfies(e -> assertThat(((PaddockException) e).code()).isEqualTo("path_outside_workspace"));
            assertThatThrownBy(() -> ws.write(path, text("x"))).as(path).isInstanceOf(PaddockException.class)
                    .satisfies(e -> assertThat(((PaddockException) e).code()).isEqualTo("path_outside_workspace"));
        }
        assertThat(ws.stat("etc-link").type()).isEqualTo(FileEntry.Type.SYMLINK);
    }

    // ---- helpers -------------------------------------------------------------------------------------

    record Run(ExecResult result, String stdout, String stderr) {
        int exit() { return result.exitCode(); }
    }

    Run run(ExecRequest request) throws InterruptedException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        ExecResult result = sandbox.exec(request, new ExecOutput() {
            @Override public void stdout(byte[] d, int o, int l) { synchronized (out) { out.write(d, o, l); } }
            @Override public void stderr(byte[] d, int o, int l) { synchronized (err) { err.write(d, o, l); } }
        }).await();
        synchronized (out) {
            synchronized (err) {
                return new Run(result, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
            }
        }
    }

    Run shell(String line) throws InterruptedException {
        return run(ExecRequest.shell(line));
    }

    static InputStream text(String s) {
        return new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8));
    }

    static String read(Workspace ws, String path) throws java.io.IOException {
        try (InputStream in = ws.read(path)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
