package dev.paddock.bench;

import dev.paddock.app.client.ApiException;
import dev.paddock.app.client.PaddockClient;
import dev.paddock.app.serve.PaddockApp;
import dev.paddock.app.serve.ServeSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BooleanSupplier;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * browser-vm sandboxes, whole process: a real Paddock server (in this JVM) and a real headless Chromium that opens a
 * sandbox tab with a pairing code, boots the v86 VM from the assets of scripts/build-browser-vm
 * ($PADDOCK_BROWSER_VM_DIR) and serves exec over the relay. Measures the tab's start, the exec round trip (next to
 * the bwrap driver's, in the same run, as the baseline) and, with the browser killed, how long until an op fails
 * with {@code sandbox_tab_gone} and until the sandbox's record says {@code runtime_disconnected}. The browser-vm tests
 * print these too but assert none. Run with {@code scripts/bench BrowserVmBench}.
 */
public final class BrowserVmBench {
    private static final int TRIPS = Integer.getInteger("paddock.bench.browser-vm.trips", 25);

    public static void main(String[] args) {
        BenchReport.runAndExit(() -> run(args));
    }

    private static void run(String[] args) throws Exception {
        Path repo = Path.of(args.length > 0 ? args[0] : ".").toAbsolutePath().normalize();
        Path dataDir = Files.createTempDirectory(Path.of("/tmp"), "pvb");
        Path profile = Files.createTempDirectory(Path.of("/tmp"), "pvb-chromium");
        String report;
        Process chromium = null;
        try {
            ServeSettings settings = ServeSettings.resolve(Map.of("data_dir", dataDir.toString(), "port", "0", "driver", "bwrap",
                    "warm_pool_size", "0"), Map.of(), null, dataDir);
            try (PaddockApp app = PaddockApp.start(settings)) {
                PaddockClient api = new PaddockClient(app.url(), app.createdAdminKey().orElseThrow());
                String code = api.json("POST", "/v1/runtimes/pairing_codes", Map.of(), obj(Map.of("kind", "browser-vm"))).path("code").asString();
                long opened = System.nanoTime();
                chromium = new ProcessBuilder("/usr/bin/chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                        "--disable-background-networking", "--disable-component-update", "--user-data-dir=" + profile,
                        app.url() + "/sandbox-tab#code=" + code).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                waitFor("the tab online", 120, () -> api.get("/v1/runtimes").path("data").path(0).path("status").asString().equals("online"));
                double online = ms(opened);

                String vm = api.json("POST", "/v1/sandboxes", Map.of(), obj(Map.of("driver", "browser-vm"))).path("id").asString();
                String bwrap = api.json("POST", "/v1/sandboxes", Map.of(), obj(Map.of("driver", "bwrap"))).path("id").asString();
                exec(api, vm);
                double firstExec = ms(opened);
                double[] vmTrips = trips(api, vm), bwrapTrips = trips(api, bwrap);

                chromium.destroyForcibly().waitFor();
                long killed = System.nanoTime();
                String failure = "none";
                try {
                    exec(api, vm);
                } catch (ApiException e) {
                    failure = e.status() + " " + e.code();
                }
                double failed = ms(killed);
                waitFor("runtime_disconnected", 120, () -> "runtime_disconnected".equals(api.get("/v1/sandboxes/" + vm).path("state_reason").asString()));
                double recorded = ms(killed);

                report = String.format(Locale.ROOT, """
                        ## browser-vm sandboxes (BrowserVmBench)
                        %s. A headless Chromium opens a sandbox tab (v86 VM from its saved state) and serves the sandbox over
                        the relay; the bwrap driver's sandbox, in the same run, is the baseline for the exec round trip.

                        | measure | browser-vm | bwrap (baseline) |
                        |---|---|---|
                        | tab opened → runtime online | %.0f ms | |
                        | tab opened → sandbox created and first exec done | %.0f ms | |
                        | exec `true` round trip through the REST API, median of %d (p90) | %.1f ms (%.1f) | %.1f ms (%.1f) |
                        | browser killed → next op fails (%s) | %.0f ms | |
                        | browser killed → record says `runtime_disconnected` | %.0f ms | |
                        """, BenchReport.machine(), online, firstExec, TRIPS, BenchReport.median(vmTrips), BenchReport.percentile(vmTrips, 90),
                        BenchReport.median(bwrapTrips), BenchReport.percentile(bwrapTrips, 90), failure, failed, recorded);
                for (String id : List.of(vm, bwrap)) api.call("DELETE", "/v1/sandboxes/" + id, Map.of(), null);
            }
        } finally {
            if (chromium != null) chromium.destroyForcibly();
            for (Path p : List.of(dataDir, profile)) new ProcessBuilder("rm", "-rf", p.toString()).start().waitFor();
        }
        BenchReport.writeSection(repo, "browser-vm", report);
        System.out.println(report);
    }

    private static double[] trips(PaddockClient api, String id) {
        double[] out = new double[TRIPS];
        for (int i = 0; i < TRIPS; i++) {
            long t = System.nanoTime();
            exec(api, id);
            out[i] = ms(t);
        }
        return out;
    }

    private static void exec(PaddockClient api, String id) {
        JsonNode r = api.json("POST", "/v1/sandboxes/" + id + "/exec", Map.of(), obj(Map.of("argv", List.of("true"), "timeout_seconds", 60)));
        if (r.path("exit_code").asInt(-1) != 0) throw new IllegalStateException("exec true in " + id + " answered " + r);
    }

    private static void waitFor(String what, int seconds, BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new IllegalStateException("no " + what + " within " + seconds + " s");
            Thread.sleep(50);
        }
    }

    private static ObjectNode obj(Map<String, Object> fields) {
        return JsonMapper.shared().valueToTree(fields);
    }

    private static double ms(long since) {
        return (System.nanoTime() - since) / 1e6;
    }
}
