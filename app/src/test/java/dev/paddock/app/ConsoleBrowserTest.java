package dev.paddock.app;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import dev.paddock.app.client.Json;
import dev.paddock.app.serve.PaddockApp;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The web console in a real Chromium (Debian's, /usr/bin/chromium) against a real server with the subprocess
 * driver, under the server's strict Content-Security-Policy. Any console error (a CSP violation among them)
 * fails the test.
 */
@Tag("browser")
class ConsoleBrowserTest {
    @TempDir static Path dataDir;

    static PaddockApp app;
    static Playwright playwright;
    static Browser browser;

    @BeforeAll
    static void start() {
        app = TestServer.start(dataDir);
        playwright = Playwright.create();
        browser = playwright.chromium().launch(new BrowserType.LaunchOptions()
                .setExecutablePath(Paths.get("/usr/bin/chromium"))
                .setHeadless(true)
                .setArgs(List.of("--no-sandbox", "--disable-gpu", "--disable-background-networking",
                        "--disable-component-update", "--disable-sync", "--no-first-run")));
    }

    @AfterAll
    static void stop() {
        if (browser != null) browser.close();
        if (playwright != null) playwright.close();
        if (app != null) app.close();
    }

    @Test
    void signInCreateRunAndBrowse() throws Exception {
        String key = Files.readString(dataDir.resolve("admin.key")).trim();
        Page page = browser.newPage(new Browser.NewPageOptions().setViewportSize(1280, 900));
        page.setDefaultTimeout(15_000);
        List<String> problems = new CopyOnWriteArrayList<>();
        page.onConsoleMessage(m -> { if (m.type().equals("error")) problems.add(m.text()); });
        page.onPageError(e -> problems.add(e));

        page.navigate(app.url() + "/");
        page.locator("#api-key").fill(key);
        page.getByRole(com.microsoft.playwright.options.AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Sign in")).click();
        assertThat(page.locator("#sandboxes-table")).isVisible();
        assertThat(page.locator("#nav")).isVisible();

        page.locator("#new-sandbox").click();
        page.locator("#new-memory").fill("256m");
        page.locator("#create-sandbox").click();
        assertThat(page.locator("#sandbox-details")).containsText("subprocess");
        assertThat(page.locator("#sandbox-details")).containsText("256 MiB");
        String id = page.locator("h1.mono").textContent();
        assertThat(id).matches("sbx_[0-9a-z]{26}");

        page.locator("#command").fill("echo hello | tee greeting.txt");
        page.locator("#run-command").click();
        assertThat(page.locator("#exec-stdout")).hasText("hello\n");
        assertThat(page.locator("#exec-exit")).hasText("exit 0");

        // the file the command wrote shows up in the browser and opens
        Locator file = page.locator("#files-table a.file[data-name='greeting.txt']");
        assertThat(file).isVisible();
        file.click();
        assertThat(page.locator("#file-preview")).hasText("hello\n");

        // upload a file from this machine, then download it back
        Path upload = Files.writeString(dataDir.resolveSibling(dataDir.getFileName() + "-upload.txt"), "uploaded through the console\n");
        try {
            page.locator("#upload-input").setInputFiles(upload);
            Locator uploaded = page.locator("#files-table a.file[data-name='" + upload.getFileName() + "']");
            assertThat(uploaded).isVisible();
            com.microsoft.playwright.Download download = page.waitForDownload(() ->
                    uploaded.locator("xpath=ancestor::tr").getByRole(com.microsoft.playwright.options.AriaRole.BUTTON,
                            new Locator.GetByRoleOptions().setName("Download")).click());
            assertThat(Files.readString(download.path())).isEqualTo("uploaded through the console\n");
        } finally {
            Files.deleteIfExists(upload);
        }

        // a failing command shows its exit code and stderr
        page.locator("#command").fill("ls /workspace/missing");
        page.locator("#run-command").click();
        assertThat(page.locator("#exec-exit")).hasText("exit 2");
        assertThat(page.locator("#exec-stderr")).containsText("missing");

        page.locator("#command").fill("echo hello");
        page.locator("#run-command").click();
        assertThat(page.locator("#exec-exit")).hasText("exit 0");
        page.screenshot(new Page.ScreenshotOptions().setPath(Paths.get("target/console.png")).setFullPage(true));

        // back on the list the new sandbox is there with its state
        page.locator("a[href='#/sandboxes']").first().click();
        assertThat(page.locator("#sandboxes-table tr[data-id='" + id + "']")).containsText("running");
        page.screenshot(new Page.ScreenshotOptions().setPath(Paths.get("target/console-list.png")));

        page.locator("#nav a[data-view='drivers']").click();
        assertThat(page.locator("#drivers-table")).containsText("subprocess");
        assertThat(page.locator("#drivers-table")).containsText("workspace_tar");
        page.screenshot(new Page.ScreenshotOptions().setPath(Paths.get("target/console-drivers.png")));

        // the key never travels in a URL, and signing out forgets it
        assertThat(page.url()).doesNotContain(key);
        page.locator("#sign-out").click();
        assertThat(page.locator("#api-key")).isVisible();
        assertThat(page.evaluate("() => sessionStorage.length")).isEqualTo(0);
        assertThat(problems).as("browser console errors (CSP violations show up here)").isEmpty();
        page.close();
    }

    @Test
    void execOutputStreamsAndFilesCanBeMadeAndDeleted() throws Exception {
        String key = Files.readString(dataDir.resolve("admin.key")).trim();
        dev.paddock.app.client.PaddockClient api = new dev.paddock.app.client.PaddockClient(app.url(), key);
        String id = api.json("POST", "/v1/sandboxes", java.util.Map.of(), Json.read("{}")).path("id").asString();
        Page page = browser.newPage(new Browser.NewPageOptions().setViewportSize(1280, 900));
        page.setDefaultTimeout(15_000);
        List<String> problems = new CopyOnWriteArrayList<>();
        page.onConsoleMessage(m -> { if (m.type().equals("error")) problems.add(m.text()); });
        page.onPageError(e -> problems.add(e));
        page.onDialog(d -> { if (d.type().equals("prompt")) d.accept("made-in-console"); else d.accept(); });
        page.navigate(app.url() + "/");
        page.locator("#api-key").fill(key);
        page.locator("form.signin-form button[type=submit]").click();
        assertThat(page.locator("#sandboxes-table")).isVisible();
        page.navigate(app.url() + "/#/sandboxes/" + id);
        assertThat(page.locator("#sandbox-details")).containsText("subprocess");

        // the first line shows while the command still runs: output is streamed, not collected at the end
        page.locator("#command").fill("echo first; sleep 2; echo second >&2; echo third");
        page.locator("#run-command").click();
        assertThat(page.locator("#exec-stdout")).hasText("first\n");
        assertThat(page.locator("#exec-running")).isVisible();
        assertThat(page.locator("#exec-exit")).hasText("exit 0");
        assertThat(page.locator("#exec-stdout")).hasText("first\nthird\n");
        assertThat(page.locator("#exec-stderr")).hasText("second\n");

        // Stop disconnects the stream
        page.locator("#command").fill("sleep 30");
        page.locator("#run-command").click();
        assertThat(page.locator("#stop-command")).isVisible();
        page.locator("#stop-command").click();
        assertThat(page.locator("#exec-exit")).hasText("stopped");
        assertThat(page.locator("#run-command")).isEnabled();

        // a new folder, then delete a file and the folder
        page.locator("#files-mkdir").click();
        Locator folder = page.locator("#files-table a.dir[data-name='made-in-console']");
        assertThat(folder).isVisible();
        assertThat(api.get("/v1/sandboxes/" + id + "/files/stat", java.util.Map.of("path", "made-in-console")).path("type").asString()).isEqualTo("directory");

        page.locator("#command").fill("echo bye > doomed.txt && echo x > made-in-console/inner.txt");
        page.locator("#run-command").click();
        assertThat(page.locator("#exec-exit")).hasText("exit 0");
        Locator doomed = page.locator("#files-table a.file[data-name='doomed.txt']");
        assertThat(doomed).isVisible();
        page.locator("#files-table button[data-delete='doomed.txt']").click();
        assertThat(doomed).hasCount(0);
        page.locator("#files-table button[data-delete='made-in-console']").click();
        assertThat(folder).hasCount(0);
        var listing = api.get("/v1/sandboxes/" + id + "/files/list", java.util.Map.of("path", "/workspace")).path("data");
        List<String> names = new java.util.ArrayList<>();
        listing.forEach(e -> names.add(e.path("name").asString()));
        assertThat(names).doesNotContain("doomed.txt", "made-in-console");
        page.screenshot(new Page.ScreenshotOptions().setPath(Paths.get("target/console-files.png")).setFullPage(true));
        assertThat(problems).as("browser console errors (CSP violations show up here)").isEmpty();
        page.close();
    }

    @Test
    void wrongKeyShowsAClearError() {
        Page page = browser.newPage();
        page.setDefaultTimeout(15_000);
        page.navigate(app.url() + "/");
        page.locator("#api-key").fill("pdk_this_key_does_not_exist_at_all");
        page.locator("form.signin-form button[type=submit]").click();
        assertThat(page.locator("#sign-in-error")).isVisible();
        assertThat(page.locator("#sign-in-error")).containsText("That API key was not accepted");
        assertThat(page.locator("#sandboxes-table")).hasCount(0);
        page.screenshot(new Page.ScreenshotOptions().setPath(Paths.get("target/console-signin-error.png")));
        page.close();
    }
}
