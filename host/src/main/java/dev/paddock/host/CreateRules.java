package dev.paddock.host;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.SandboxDriver;
import java.time.Duration;
import java.util.Map;

/**
 * What a create request becomes on this host: its driver, lifetime, idle policy and limits, with the host's defaults
 * filled in and its maximums enforced. Every refusal happens before a record exists: 400 for what the request may
 * not ask, 501 for a limit its driver cannot enforce.
 */
final class CreateRules {
    private final HostConfig config;
    private final Map<String, SandboxDriver> drivers;

    CreateRules(HostConfig config, Map<String, SandboxDriver> drivers) {
        this.config = config;
        this.drivers = drivers;
    }

    /** The driver a request names, or the default one. */
    SandboxDriver driver(String name) {
        String id = idOf(name);
        SandboxDriver d = drivers.get(id);
        if (d == null) throw new PaddockException(ErrorCode.UNKNOWN_DRIVER, "driver '" + id + "' is not available; available: " + drivers.keySet());
        return d;
    }

    /** The limits a sandbox of {@code driver} (null: the default) gets when its request names none; the defaults for an unknown driver. */
    Limits defaultLimits(String driver) {
        SandboxDriver d = drivers.get(idOf(driver));
        return d == null ? Limits.DEFAULT : d.limits(null);
    }

    private String idOf(String name) {
        return name == null || name.isBlank() ? config.defaultDriver() : name;
    }

    Duration lifetime(Duration requested) {
        Duration t = requested == null ? config.defaultTimeout() : requested;
        if (t != null && (t.isNegative() || t.isZero())) throw new PaddockException(ErrorCode.INVALID_TIMEOUT, "timeout must be positive");
        if (t != null && config.maxTimeout() != null && t.compareTo(config.maxTimeout()) > 0) {
            throw new PaddockException(ErrorCode.INVALID_TIMEOUT, "timeout " + t.toSeconds() + "s exceeds this server's maximum of "
                    + config.maxTimeout().toSeconds() + "s");
        }
        return t;
    }

    Duration idleSuspendAfter(SandboxRequest r) {
        return r.idleSuspendAfter() != null ? r.idleSuspendAfter() : config.defaultIdleSuspendAfter();
    }

    Duration idleTerminateAfter(SandboxRequest r) {
        return r.idleTerminateAfter() != null ? r.idleTerminateAfter() : config.defaultIdleTerminateAfter();
    }

    /**
     * The request's limits as the driver fills and checks them (it refuses what it cannot enforce), with the default
     * disk limit filled in, refused past the maximum or where it is not enforced.
     */
    Limits limits(Limits asked, SandboxDriver driver) {
        Limits limits = withDefaultDisk(driver.limits(asked), driver);
        if (limits.diskBytes() > 0 && !driver.conformance().supportsDiskLimits()) {
            throw new PaddockException(ErrorCode.DISK_QUOTA_UNAVAILABLE, "driver '" + driver.id()
                    + "' does not enforce limits.disk; create the sandbox without it or on a driver that does");
        }
        if (config.maxDiskBytes() > 0 && limits.diskBytes() > config.maxDiskBytes()) {
            throw new PaddockException(ErrorCode.INVALID_LIMITS, "limits.disk of " + limits.diskBytes() + " bytes exceeds this server's maximum of "
                    + config.maxDiskBytes() + " bytes");
        }
        return limits;
    }

    Limits withDefaultDisk(Limits asked, SandboxDriver driver) {
        if (asked.diskBytes() > 0 || config.defaultDiskBytes() == 0 || !driver.conformance().supportsDiskLimits()) return asked;
        return asked.withDisk(config.defaultDiskBytes());
    }
}
