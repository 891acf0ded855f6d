package io.treecat.server;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Debian's Chromium, headless, driven through Debian's chromedriver by Selenium: the browser of the console's tests.
 * The packages ({@code chromium}, {@code chromium-driver}) are installed with apt-get when missing, so the build
 * needs nothing installed beforehand; nothing is downloaded from anywhere else (Selenium Manager is not used). Public,
 * and in catalog-server's test-jar, for spark-connector's console test.
 */
public final class Chromium {
    static final Path BROWSER = Path.of("/usr/bin/chromium");
    static final Path DRIVER = Path.of("/usr/bin/chromedriver");

    private Chromium() {}

    /** Installs Debian's chromium and chromium-driver unless they are there (as root, with apt-get). */
    public static synchronized void ensureInstalled() throws Exception {
        if (Files.isExecutable(BROWSER) && Files.isExecutable(DRIVER)) {
            return;
        }
        if (!Files.isExecutable(Path.of("/usr/bin/apt-get"))) {
            throw new IllegalStateException("The console's browser tests need Debian's chromium and chromium-driver "
                    + "(/usr/bin/chromium, /usr/bin/chromedriver), and this machine has no apt-get to install them");
        }
        run(List.of("apt-get", "update", "-q"));
        run(List.of("apt-get", "install", "-y", "-q", "--no-install-recommends", "chromium", "chromium-driver"));
    }

    private static void run(List<String> command) throws Exception {
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        if (!process.waitFor(10, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " did not finish in 10 minutes");
        }
        if (process.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed with " + process.exitValue()
                    + " (run it as root, or install chromium and chromium-driver by hand)");
        }
    }

    /**
     * A headless browser of {@code width}×{@code height} CSS pixels with a fresh profile under {@code directory}.
     * The switches keep Chromium from calling Google's services, which this machine's closed network refuses.
     */
    public static WebDriver headless(Path directory, int width, int height) throws Exception {
        ensureInstalled();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(BROWSER.toFile());
        options.addArguments(
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--user-data-dir=" + Files.createTempDirectory(directory, "chromium-profile"),
                "--window-size=" + width + "," + height);
        // No password manager: its prompts after a sign-in belong to the browser's window, not to the page.
        options.setExperimentalOption(
                "prefs",
                java.util.Map.of("credentials_enable_service", false, "profile.password_manager_enabled", false));
        // The page's console, for a failing test's message.
        options.setCapability("goog:loggingPrefs", java.util.Map.of("browser", "ALL"));
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(DRIVER.toString()))
                .usingAnyFreePort()
                .build();
        ChromeDriver driver = new ChromeDriver(service, options);
        driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(30));
        return driver;
    }

    /** Waits up to 20 s for {@code condition}; fails with {@code what} and the page's text if it never holds. */
    public static void await(WebDriver browser, String what, Supplier<Boolean> condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        RuntimeException last = null;
        while (System.nanoTime() < deadline) {
            try {
                if (Boolean.TRUE.equals(condition.get())) {
                    return;
                }
            } catch (RuntimeException e) {
                last = e; // an element not there yet, or replaced while read
            }
            Thread.sleep(50);
        }
        String text;
        try {
            text = browser.findElement(org.openqa.selenium.By.tagName("body")).getText();
        } catch (RuntimeException e) {
            text = "(no page text: " + e + ")";
        }
        Path shot;
        try {
            shot = screenshot(browser, "timed-out-" + System.currentTimeMillis());
        } catch (Exception e) {
            shot = null;
        }
        String console;
        try {
            console = browser.manage().logs().get("browser").getAll().toString();
        } catch (RuntimeException e) {
            console = "(no console: " + e + ")";
        }
        AssertionError failure = new AssertionError("Timed out waiting for " + what + " at " + browser.getCurrentUrl()
                + " (screenshot " + shot + "); the page says:\n" + text + "\nIts console: " + console);
        if (last != null) {
            failure.addSuppressed(last);
        }
        throw failure;
    }

    /** Saves what the browser shows as {@code target/console-screenshots/<name>.png}, for docs and for review. */
    public static Path screenshot(WebDriver browser, String name) throws Exception {
        Path directory = Path.of("target", "console-screenshots");
        Files.createDirectories(directory);
        Path file = directory.resolve(name + ".png");
        Files.write(file, ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
        return file;
    }
}
