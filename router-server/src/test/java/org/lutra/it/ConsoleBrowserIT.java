package org.lutra.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.lutra.config.RouterConfig;
import org.lutra.shards.Shards;
import org.lutra.shards.junit.EmbeddedShardsExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The placement console in a real browser: Debian's headless Chromium, driven through its
 * chromedriver by Selenium, against a running router with live traffic (point selects that make
 * one key hot, transactions over two partitions, a finished move). It checks what a person would
 * see: the four partitions with their backends and reachability, the status "ready", the hot key,
 * the lookup table's hit ratio, the move's progress, and four charts that Chart.js (served by the
 * router: every script comes from the router itself) drew with data, load over time among them;
 * and that the page logged no error. A screenshot is left in target/console.png.
 * Skipped, saying so, where /usr/bin/chromium or /usr/bin/chromedriver is missing (apt-get install chromium chromium-driver).
 */
@ExtendWith(EmbeddedShardsExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleBrowserIT {
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    static final int HOT = 7;

    OperatedRouter router;
    final AtomicBoolean stop = new AtomicBoolean();
    Thread traffic;
    WebDriver browser;
    Path profile;

    @BeforeAll
    void start(Shards shards) throws Exception {
        assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "ConsoleBrowserIT needs Debian's chromium and chromium-driver (/usr/bin/chromium, /usr/bin/chromedriver): apt-get install chromium chromium-driver");
        router = new OperatedRouter(shards, "consoleit", """
                CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(64) NOT NULL, karma INT NOT NULL DEFAULT 0)
                  PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id);
                """, new RouterConfig.Transactions("consoleit", 5, 0, 0), url -> url,
                config -> config.withOperations(new RouterConfig.Http("127.0.0.1:0"), null));
        try (var c = router.connect(); var st = c.createStatement()) {
            for (int id = 1; id <= 40; id++) st.executeUpdate("INSERT INTO users (id, name) VALUES (" + id + ", 'u" + id + "')");
            var users = (org.lutra.catalog.Partitioning.LookedUp) router.operations.router().catalog().table("users").partitioning();
            var away = java.util.stream.LongStream.rangeClosed(1, 40).filter(id -> users.table().get(id) != 3).limit(3)
                    .mapToObj(String::valueOf).collect(java.util.stream.Collectors.joining(", "));
            assertEquals(3, st.executeUpdate("ALTER TABLE users SET PARTITION = p3 WHERE id IN (" + away + ")"), "three keys moved to p3");
        }
        traffic = Thread.ofPlatform().daemon().name("console-traffic").start(this::traffic);

        profile = Files.createTempDirectory("lutra-chromium");
        var options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        // as this machine must start Chromium: no sandbox (root), and nothing that reaches out to the internet
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage", "--window-size=1400,1900", "--user-data-dir=" + profile);
        var logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability("goog:loggingPrefs", logs);
        var service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
    }

    /** Live traffic until the test ends: key HOT most, other keys some, a transaction over two partitions now and then. */
    void traffic() {
        try (var c = router.connect(); var ps = c.prepareStatement("SELECT name FROM users WHERE id = ?"); var tx = router.connect()) {
            int i = 0;
            while (!stop.get()) {
                ps.setInt(1, i % 3 == 0 ? 1 + (i / 3) % 40 : HOT);
                try (var rs = ps.executeQuery()) {
                    rs.next();
                }
                if (i % 50 == 0) {
                    tx.setAutoCommit(false);
                    tx.createStatement().executeUpdate("UPDATE users SET karma = karma + 1 WHERE id IN (10, 11, 12, 13)");
                    tx.commit();
                    tx.setAutoCommit(true);
                }
                i++;
                Thread.sleep(2);
            }
        } catch (Exception e) {
            if (!stop.get()) throw new IllegalStateException("traffic stopped: " + e, e);
        }
    }

    @AfterAll
    void stop() throws Exception {
        stop.set(true);
        if (traffic != null) traffic.join(10_000);
        if (browser != null) browser.quit();
        if (router != null) router.close();
    }

    @Test
    void aPersonSeesThePartitionsTheHotKeyTheHitRatioTheMoveAndChartsOfLiveTraffic() throws Exception {
        browser.get(router.base() + "/");
        assertEquals("Lutra placement console", browser.getTitle());
        var wait = new WebDriverWait(browser, Duration.ofSeconds(60));

        wait.until(d -> rows(d, "partitions").size() == 4);
        var partitions = rows(browser, "partitions");
        for (int p = 0; p < 4; p++) {
            var cells = partitions.get(p);
            assertEquals("p" + p, cells.get(0));
            assertEquals("shard" + p, cells.get(1));
            assertEquals(router.database + "_p" + p, cells.get(2));
        }
        // reachability comes from the router's health checks, every few seconds
        wait.until(d -> rows(d, "partitions").stream().allMatch(r -> r.get(4).equals("yes")));
        wait.until(d -> d.findElement(By.id("status")).getText().equals("ready"));

        wait.until(d -> !rows(d, "hot-keys").isEmpty() && cell(rows(d, "hot-keys").getFirst(), 2).equals(String.valueOf(HOT)));
        var hottest = rows(browser, "hot-keys").getFirst();
        assertEquals("users", cell(hottest, 0));
        assertEquals("1", cell(hottest, 1));

        var lookup = rows(browser, "lookups").getFirst();
        assertEquals("users", cell(lookup, 0));
        assertTrue(cell(lookup, 6).matches("\\d+\\.\\d %"), "hit ratio: " + cell(lookup, 6));

        wait.until(d -> !rows(d, "moves").isEmpty() && cell(rows(d, "moves").getFirst(), 2).equals("done"));
        var move = rows(browser, "moves").getFirst();
        assertEquals("users", cell(move, 1));
        assertTrue(cell(move, 3).contains("3 / 3 keys"), cell(move, 3));
        assertEquals("3", cell(move, 4), "rows moved");

        assertTrue(browser.findElement(By.id("share-single")).getText().matches("\\d+\\.\\d %"));
        assertTrue(browser.findElement(By.id("share-2pc")).getText().matches("\\d+\\.\\d %"));

        // the charts: drawn by Chart.js, with data; the load chart shows the live traffic over time
        var js = (JavascriptExecutor) browser;
        wait.until(d -> ((Number) js.executeScript("""
                const c = Chart.getChart('load-chart');
                return c ? c.data.datasets.reduce((s, d) => s + d.data.filter(v => v > 0).length, 0) : 0;""")).intValue() >= 2);
        for (String id : List.of("load-chart", "rows-chart", "share-chart", "hit-chart")) {
            @SuppressWarnings("unchecked")
            var chart = (Map<String, Object>) js.executeScript("""
                    const canvas = document.getElementById(arguments[0]);
                    const c = Chart.getChart(canvas);
                    const blank = document.createElement('canvas');
                    blank.width = canvas.width; blank.height = canvas.height;
                    return { type: c.config.type, datasets: c.data.datasets.length,
                             points: c.data.datasets.reduce((s, d) => s + d.data.length, 0),
                             drawn: canvas.toDataURL() !== blank.toDataURL(), width: canvas.width };""", id);
            assertTrue(((Number) chart.get("datasets")).intValue() >= 1, id + ": " + chart);
            assertTrue(((Number) chart.get("points")).intValue() >= 1, id + ": " + chart);
            assertEquals(Boolean.TRUE, chart.get("drawn"), id + " has pixels: " + chart);
            assertTrue(((Number) chart.get("width")).intValue() > 100, id + ": " + chart);
        }
        assertEquals(4L, js.executeScript("return Chart.getChart('load-chart').data.datasets.length"), "a line per partition");
        assertEquals(Boolean.TRUE, js.executeScript("return [...document.scripts].every(s => s.src.startsWith(location.origin))"),
                "every script is the router's own: no internet needed");

        var errors = browser.manage().logs().get(LogType.BROWSER).getAll().stream().filter(e -> e.getLevel().intValue() >= Level.SEVERE.intValue()).toList();
        assertTrue(errors.isEmpty(), "the page logged errors: " + errors);

        File shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
        Files.copy(shot.toPath(), Path.of("target", "console.png"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    /**
     * The text of a table's body rows, cell by cell, read in one script (the page redraws its tables every few seconds, so
     * elements found one by one may be gone by the next call); a placeholder row ("no moves") counts as none.
     */
    @SuppressWarnings("unchecked")
    static List<List<String>> rows(WebDriver d, String table) {
        return (List<List<String>>) ((JavascriptExecutor) d).executeScript("""
                return [...document.querySelectorAll('#' + arguments[0] + ' tbody tr')]
                    .filter(r => !r.querySelector('td.muted[colspan]'))
                    .map(r => [...r.querySelectorAll('td')].map(td => td.innerText.trim()));""", table);
    }

    static String cell(List<String> row, int i) {
        return row.get(i);
    }
}
