package dev.paddock.browservm.web;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The sandbox tab page and its VM assets (its scripts are static files, {@link BrowserVmWeb#STATIC}). The page is cross-origin isolated (COOP same-origin, COEP require-corp)
 * and its CSP differs from the console's in one point only: {@code 'wasm-unsafe-eval'}, which the emulator needs to
 * compile WebAssembly. The assets come from the directory scripts/build-browser-vm fills, by an allowlist of names.
 */
final class SandboxTabPage {
    static final String PAGE = "/sandbox-tab";
    static final Map<String, String> HEADERS = Map.of(
            "Content-Security-Policy", "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self' blob:;"
                    + " connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
            "Cross-Origin-Opener-Policy", "same-origin",
            "Cross-Origin-Embedder-Policy", "require-corp",
            "Cross-Origin-Resource-Policy", "same-origin",
            "X-Frame-Options", "DENY",
            "Referrer-Policy", "no-referrer",
            "Cache-Control", "no-store");
    private static final Map<String, String> ASSETS = Map.of(
            "libv86.mjs", "text/javascript", "v86.wasm", "application/wasm", "bios.bin", "application/octet-stream",
            "vgabios.bin", "application/octet-stream", "bzImage", "application/octet-stream", "initrd.img", "application/octet-stream",
            "state.bin.zst", "application/octet-stream", "vm.json", "application/json", "manifest.json", "application/json");

    private final Path assetsDir;

    SandboxTabPage(Path assetsDir) {
        this.assetsDir = assetsDir;
    }

    void register(RoutesConfig r) {
        r.get(PAGE, this::page);
        r.get(PAGE + "/vm/{file}", this::asset);
    }

    private void page(Context ctx) throws IOException {
        try (InputStream in = SandboxTabPage.class.getResourceAsStream(BrowserVmWeb.STATIC + "/sandbox-tab.html")) {
            if (in == null) throw new PaddockException(ErrorCode.ROUTE_NOT_FOUND, "this server has no sandbox tab page");
            HEADERS.forEach(ctx::header);
            ctx.contentType("text/html; charset=utf-8").result(in.readAllBytes());
        }
    }

    private void asset(Context ctx) throws IOException {
        String name = ctx.pathParam("file");
        String type = ASSETS.get(name);
        if (type == null) throw new PaddockException(ErrorCode.ASSET_NOT_FOUND, "no such browser-vm asset");
        Path file = assetsDir == null ? null : assetsDir.resolve(name);
        if (file == null || !Files.isRegularFile(file)) {
            if (name.equals("state.bin.zst") && assetsDir != null && Files.isRegularFile(assetsDir.resolve("manifest.json"))) {
                throw new PaddockException(ErrorCode.ASSET_NOT_FOUND, "these assets have no saved VM state; the tab boots cold");
            }
            throw new PaddockException(ErrorCode.BROWSER_VM_ASSETS_MISSING,
                    "the browser-vm assets are not built on this server; run scripts/build-browser-vm and restart");
        }
        ctx.header("Cross-Origin-Resource-Policy", "same-origin");
        ctx.header("Cache-Control", "no-cache");
        ctx.contentType(type);
        ctx.result(Files.newInputStream(file));
    }
}
