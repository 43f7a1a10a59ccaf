package dev.paddock.driver.browservm;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Settings of the browser-vm runtime. {@code pairingTtl}: how long a pairing code may be exchanged.
 * {@code heartbeat}: how often both sides send a heartbeat; a peer silent for {@code peerTimeout} is offline.
 * {@code reconnectGrace}: how long an operation waits for an offline tab to come back (a reload) before failing
 * with "reopen your sandbox tab". {@code fileOpTimeout}: the bound on any non-exec operation. {@code assetsDir}:
 * the VM assets built by scripts/build-browser-vm (null: the tab page says they are missing).
 */
public record BrowserVmConfig(Duration pairingTtl, Duration heartbeat, Duration peerTimeout, Duration reconnectGrace,
                              Duration fileOpTimeout, Path assetsDir) {
    public static final String ASSET_VERSION = "v1";

    public static BrowserVmConfig defaults(Path assetsDir) {
        return new BrowserVmConfig(Duration.ofMinutes(5), Duration.ofSeconds(25), Duration.ofSeconds(60),
                Duration.ofSeconds(5), Duration.ofSeconds(30), assetsDir);
    }

    /** Where scripts/build-browser-vm puts the assets by default: $PADDOCK_BROWSER_VM_DIR or ~/.cache/paddock/browser-vm/v1. */
    public static Path defaultAssetsDir() {
        String env = System.getenv("PADDOCK_BROWSER_VM_DIR");
        if (env != null && !env.isBlank()) return Path.of(env);
        return Path.of(System.getProperty("user.home"), ".cache", "paddock", "browser-vm", ASSET_VERSION);
    }

    public BrowserVmConfig withTimings(Duration heartbeat, Duration peerTimeout, Duration reconnectGrace) {
        return new BrowserVmConfig(pairingTtl, heartbeat, peerTimeout, reconnectGrace, fileOpTimeout, assetsDir);
    }

    public BrowserVmConfig withPairingTtl(Duration ttl) {
        return new BrowserVmConfig(ttl, heartbeat, peerTimeout, reconnectGrace, fileOpTimeout, assetsDir);
    }
}
