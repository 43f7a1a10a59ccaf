package dev.paddock.app;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import com.microsoft.playwright.assertions.PlaywrightAssertions;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Debian's Chromium driven by Playwright for the console's tests: pages that collect every console error and page
 * error (CSP violations show up there), signed in with a key.
 */
final class ConsoleChromium implements AutoCloseable {
    private final Playwright playwright = Playwright.create();
    private final Browser browser = playwright.chromium().launch(new BrowserType.LaunchOptions()
            .setExecutablePath(Paths.get("/usr/bin/chromium"))
            .setHeadless(true)
            .setArgs(List.of("--no-sandbox", "--disable-gpu", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync", "--no-first-run")));

    ConsoleChromium() {
        // an agent's turn or a sandbox's first samples can take seconds on a busy machine: assertions wait for them
        PlaywrightAssertions.setDefaultAssertionTimeout(30_000);
    }

    /** A page with what went wrong in it. */
    record Tab(Page page, List<String> problems) {}

    /** A new page signed in to the console at {@code url} with {@code key}; dialogs (confirm) are accepted. */
    Tab signedIn(String url, String key) {
        Page page = browser.newPage(new Browser.NewPageOptions().setViewportSize(1280, 900));
        page.setDefaultTimeout(20_000);
        List<String> problems = new CopyOnWriteArrayList<>();
        page.onConsoleMessage(m -> { if (m.type().equals("error")) problems.add(m.text()); });
        page.onPageError(problems::add);
        page.onDialog(d -> d.accept());
        page.navigate(url + "/");
        page.locator("#api-key").fill(key);
        page.locator("form.signin-form button[type=submit]").click();
        assertThat(page.locator("#sandboxes-table")).isVisible();
        return new Tab(page, problems);
    }

    @Override
    public void close() {
        browser.close();
        playwright.close();
    }
}
