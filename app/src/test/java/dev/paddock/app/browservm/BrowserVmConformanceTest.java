package dev.paddock.app.browservm;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import com.microsoft.playwright.assertions.PlaywrightAssertions;
import dev.paddock.conformance.DriverConformanceKit;
import dev.paddock.conformance.DriverUnderTest;
import dev.paddock.conformance.Runs;
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
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.UnsupportedCapabilityException;
import dev.paddock.driver.browservm.BrowserVmConfig;
import dev.paddock.driver.browservm.BrowserVmDriver;
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
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The conformance kit run against the browser-vm driver. A sandbox needs a paired browser tab, so this suite pairs
 * one headless Chromium tab for the class and hands the kit that driver before every check; the kit creates each
 * check's sandbox in that tab and proves every claim of {@link BrowserVmDriver#conformance()}. The tests here are
 * what only this driver has: the record's values, the VM's fixed resources, its shell's in-place builtins, the
 * OPFS mirror, and refusals that never reach the tab. It also prints the exec round trip of the SPI path (median
 * of 25, no threshold).
 */
@Tag("browser")
class BrowserVmConformanceTest extends DriverConformanceKit {
    private static final String TENANT = "tenant_a";

    @TempDir static Path dataDir;
    static BrowserVmStack stack;
    static Playwright playwright;
    static Browser browser;
    static Page tab;
    static BrowserVmDriver driver;

    @BeforeAll
    static void pairOneTab() throws Exception {
        Path assets = Path.of(System.getProperty("paddock.browser-vm.assets", BrowserVmConfig.defaultAssetsDir().toString()));
        if (!Files.isRegularFile(assets.resolve("manifest.json"))) {
            throw new IllegalStateException("browser-vm assets missing in " + assets + "; build them with scripts/build-browser-vm");
        }
        stack = new BrowserVmStack(dataDir, assets);
        driver = new BrowserVmDriver(stack.vm);
        playwright = Playwright.create();
        browser = playwright.chromium().launch(new BrowserType.LaunchOptions()
                .setExecutablePath(Paths.get("/usr/bin/chromium")).setHeadless(true)
                .setArgs(List.of("--no-sandbox", "--disable-gpu", "--disable-background-networking",
                        "--disable-component-update", "--disable-sync", "--no-first-run")));
        tab = browser.newContext().newPage();
        tab.setDefaultTimeout(60_000);
        PlaywrightAssertions.setDefaultAssertionTimeout(60_000);
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

    @Override
    protected String driverName() {
        return BrowserVmDriver.ID;
    }

    @Override
    protected DriverUnderTest driverUnderTest() {
        return new PairedDriverUnderTest(driver, TENANT, () -> new BrowserVmDriver(stack.vm), dataDir);
    }

    // ---- the record ----------------------------------------------------------------------------------

    @Test
    void recordStatesWhatTheTabCanAndCannotDo() {
        Conformance claims = driver.conformance();
        assertThat(claims.lifecycle().suspendResume()).isEqualTo(Support.UNSUPPORTED);
        assertThat(claims.lifecycle().hardTerminate()).isEqualTo(Support.SUPPORTED);
        assertThat(claims.lifecycle().orphanReap()).isEqualTo(OrphanReap.UNAVAILABLE);
        assertThat(claims.workspace().durability()).isEqualTo(Durability.BEST_EFFORT);
        assertThat(claims.outputs().collection()).isEqualTo("unavailable");
        assertThat(claims.credentialEgress().enforcement()).isEqualTo(Enforcement.UNSUPPORTED);
        assertThat(claims.runtimeCheckpoints()).as("no checkpoint kind is claimed").isEmpty();
        assertThat(claims.portFacts().unavailable()).as("the VM's resources are fixed: see limitsAreWhatTheVmHas…")
                .contains("memory_limits", "cpu_limits", "pids_limits");
    }

    // ---- refused without a trip to the tab -------------------------------------------------------------

    @Test
    void suspendAndResumeAreRefusedWithoutATripToTheTab() {
        String ops = tab.locator("#op-log").textContent();
        assertThatThrownBy(sandbox()::suspend).isInstanceOf(UnsupportedCapabilityException.class);
        assertThatThrownBy(sandbox()::resume).isInstanceOf(UnsupportedCapabilityException.class);
        assertThat(tab.locator("#op-log").textContent()).as("the tab saw no operation").isEqualTo(ops);
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

    // ---- the workspace: best effort, through the tab's OPFS mirror ---------------------------------------

    @Test
    void workspaceSurvivesATabReloadThroughOpfs() throws Exception {
        assertThat(shell("mkdir -p out && echo durable > out/result.txt").exit()).isZero();
        assertThat(tab.locator("#mirror-state")).containsText("saved");
        tab.reload();
        assertThat(tab.locator("#relay-state")).hasText("online");
        assertThat(tab.locator("#mirror-state")).containsText("restored");
        assertThat(read(sandbox().workspace(), "/workspace/out/result.txt")).isEqualTo("durable\n");
        assertThat(shell("cat out/result.txt").stdout()).isEqualTo("durable\n");
        assertThat(driver.workspace(sandbox().ref())).as("nothing of the workspace is kept on the server").isEmpty();
    }

    // ---- the VM's shell ------------------------------------------------------------------------------

    /** {@code true}, {@code false} and {@code :} run in place as shell builtins; they must answer as the programs would. */
    @Test
    void commandsTheShellRunsInPlaceAnswerAsThePrograms() throws Exception {
        assertThat(run(ExecRequest.of("false")).exit()).isEqualTo(1);
        assertThat(run(ExecRequest.of("/bin/true")).exit()).isZero();
        assertThat(run(new ExecRequest(List.of("false"), Map.of("WITH_ENV", "1"), null, null, null)).exit())
                .as("the same answer when the command cannot run in place").isEqualTo(1);
        assertThat(run(ExecRequest.of("true").withStdin("ignored".getBytes(StandardCharsets.UTF_8))).exit()).isZero();
        assertThat(run(new ExecRequest(List.of("true"), Map.of(), "/workspace/missing", null, null)).exit())
                .as("a missing cwd fails even for a command the shell runs in place").isNotZero();
    }

    @Test
    void theShellAnswersInTheGuestsOwnTerms() throws Exception {
        sandbox().workspace().mkdir("/workspace/sub/dir");
        assertThat(run(ExecRequest.of("pwd")).stdout().trim()).as("the cwd is the guest's /workspace").isEqualTo("/workspace");
        assertThat(run(new ExecRequest(List.of("pwd"), Map.of(), "/workspace/sub/dir", null, null)).stdout().trim()).isEqualTo("/workspace/sub/dir");
        assertThat(run(ExecRequest.of("/no/such/program")).exit()).as("a missing program is an exit code, not an error").isNotZero();
    }

    @Test
    void aTimedOutCommandLeavesTheShellServingTheNext() throws Exception {
        Runs r = run(ExecRequest.of("sleep", "600").withTimeout(Duration.ofMillis(500)));
        assertThat(r.result().timedOut()).isTrue();
        assertThat(shell("echo next").stdout()).as("the shell serves the next command").isEqualTo("next\n");
    }

    /**
     * The tab's one shell runs commands in turn; a kill (or a terminate) that reaches a command still waiting its turn
     * means it never runs, instead of being dropped and leaving it to hold the shell when its turn comes.
     */
    @Test
    void aCommandKilledWhileItWaitsItsTurnNeverRuns() throws Exception {
        ExecHandle first = sandbox().exec(ExecRequest.shell("touch .first && exec sleep 600"), ExecOutput.DISCARD);
        await().atMost(Duration.ofSeconds(60)).until(() -> exists(sandbox().workspace(), ".first"));
        ExecHandle queued = sandbox().exec(ExecRequest.shell("touch .queued"), ExecOutput.DISCARD);
        queued.kill();
        first.kill();
        assertThat(first.await(Duration.ofSeconds(60)).exitCode()).as("the running command was killed").isNotZero();
        assertThat(queued.await(Duration.ofSeconds(60)).exitCode()).as("the queued command reports the kill").isNotZero();
        assertThat(exists(sandbox().workspace(), ".queued")).as("the queued command never ran").isFalse();
        assertThat(shell("echo next").stdout()).as("the shell serves the next command").isEqualTo("next\n");
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

    private Runs run(ExecRequest request) throws InterruptedException {
        return Runs.run(sandbox(), request);
    }

    private Runs shell(String line) throws InterruptedException {
        return Runs.shell(sandbox(), line);
    }
}
