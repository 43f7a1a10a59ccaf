package dev.paddock.app;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import com.microsoft.playwright.options.AriaRole;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The console's terminal (xterm.js) in a real Chromium against a real bubblewrap sandbox, under the console's
 * Content-Security-Policy: typed keys reach bash on the sandbox's pty, its output is drawn, and its exit shows;
 * a forwarded port appears in the list as a link. Any console error fails the test.
 */
@Tag("browser")
@Tag("bwrap")
class ConsoleTerminalBrowserTest {
    static BwrapServer server;
    static Playwright playwright;
    static Browser browser;

    @BeforeAll
    static void start() throws Exception {
        server = new BwrapServer("pct", Map.of("warm_pool_size", "0"));
        playwright = Playwright.create();
        browser = playwright.chromium().launch(new BrowserType.LaunchOptions()
                .setExecutablePath(Paths.get("/usr/bin/chromium"))
                .setHeadless(true)
                .setArgs(List.of("--no-sandbox", "--disable-gpu", "--disable-background-networking",
                        "--disable-component-update", "--disable-sync", "--no-first-run")));
    }

    @AfterAll
    static void stop() throws Exception {
        if (browser != null) browser.close();
        if (playwright != null) playwright.close();
        if (server != null) server.close();
    }

    @Test
    void aTerminalOnTheSandboxPageRunsBashAndShowsItsExit() {
        String id = server.api.json("POST", "/v1/sandboxes", Map.of(), null).path("id").asString();
        Page page = browser.newPage(new Browser.NewPageOptions().setViewportSize(1280, 1200));
        page.setDefaultTimeout(20_000);
        List<String> problems = new CopyOnWriteArrayList<>();
        page.onConsoleMessage(m -> { if (m.type().equals("error")) problems.add(m.text()); });
        page.onPageError(problems::add);

        page.navigate(server.app.url() + "/");
        page.locator("#api-key").fill(server.app.createdAdminKey().orElseThrow());
        page.getByRole(AriaRole.BUTTON, new Page.GetByRoleOptions().setName("Sign in")).click();
        assertThat(page.locator("#sandboxes-table")).isVisible();
        page.locator("a[href='#/sandboxes/" + id + "']").click();
        assertThat(page.locator("#sandbox-details")).containsText("bwrap");

        page.locator("#open-terminal").click();
        assertThat(page.locator("#terminal-status")).hasText("connected");
        page.locator("#terminal-screen .xterm").click();
        page.keyboard().type("echo hello-$((6*7))\n");
        assertThat(page.locator("#terminal-screen .xterm-rows")).containsText("hello-42");
        page.keyboard().type("stty size\n");
        assertThat(page.locator("#terminal-screen .xterm-rows")).containsText("24 100");
        page.keyboard().type("exit 3\n");
        assertThat(page.locator("#terminal-exit")).hasText("exited with code 3");

        page.locator("#port-number").fill("8000");
        page.locator("#open-port").click();
        assertThat(page.locator("#port-link-8000")).hasAttribute("href", Pattern.compile("/v1/sandboxes/" + id + "/ports/8000/t/prt_.+/"));
        assertThat(problems).as("browser console errors (CSP violations show up here)").isEmpty();
    }
}
