package dev.paddock.host;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxDriver;
import dev.paddock.core.spi.SandboxState;
import dev.paddock.core.spi.TerminationReason;
import dev.paddock.core.spi.Workspace;
import dev.paddock.core.store.CheckpointRecord;
import dev.paddock.core.store.PageRequest;
import dev.paddock.core.store.SandboxRecord;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sandboxes another node handed to this one after their node was lost: the record (same id, this node's fence)
 * says {@code restoring from checkpoint …} and no backend runs it here yet. This host starts it on its driver with
 * the record's settings, lays the newest checkpoint in its checkpoint directory (shared with the lost node) into the
 * workspace, and its reason becomes {@code restored from checkpoint …}; the event log says {@code sandbox.restored}. Processes do not come along: what
 * ran in the sandbox must be started again. A sandbox it cannot bring back is failed, with the reason.
 */
public final class HandedOver {
    private static final Logger log = LoggerFactory.getLogger(HandedOver.class);
    private static final String PREFIX = "restoring from checkpoint ";

    private final OwnedSandboxes host;
    private final Checkpoints checkpoints;
    private final SandboxLocks locks;
    private final Operations operations;

    HandedOver(OwnedSandboxes host, Checkpoints checkpoints, SandboxLocks locks, Operations operations) {
        this.host = host;
        this.checkpoints = checkpoints;
        this.locks = locks;
        this.operations = operations;
    }

    /** The reason a handed-over sandbox carries until its new node restored it. */
    public static String reason(String checkpointId, String targetNode, String why) {
        return PREFIX + checkpointId + " on node " + targetNode + ": " + why;
    }

    /** The reason a restored sandbox keeps: where it came from and why. */
    private static String restoredReason(String restoring) {
        return "restored" + restoring.substring("restoring".length());
    }

    static boolean pending(SandboxRecord r) {
        return r.stateReason() != null && r.stateReason().startsWith(PREFIX);
    }

    /** Restores every sandbox handed to this host that is not restored yet; returns their ids. */
    List<String> restoreAll() {
        List<String> restored = new ArrayList<>();
        for (SandboxRecord r : host.activeRecords()) {
            if (!host.ownerId().equals(r.fence().ownerId()) || !pending(r) || host.live(r.id()) != null) continue;
            try {
                if (locks.withLock(r.id(), () -> restore(r.id()))) restored.add(r.id());
            } catch (RuntimeException e) {
                log.warn("could not restore handed-over sandbox {}: {}", r.id(), e.getMessage());
            }
        }
        return restored;
    }

    private boolean restore(String id) {
        SandboxRecord r = host.store().sandboxes().find(id).orElse(null);
        if (r == null || r.state().isTerminal() || !host.ownerId().equals(r.fence().ownerId()) || !pending(r) || host.live(id) != null) {
            return false;
        }
        String why = r.stateReason();
        Optional<CheckpointRecord> cp = newestHere(r);
        if (cp.isEmpty()) {
            host.fail(r, "node_lost", why + "; but no checkpoint of it is in this node's checkpoint directory " + checkpoints.directory()
                    + ", so it cannot go on: create a new sandbox");
            return false;
        }
        SandboxDriver driver = host.drivers().get(r.driver());
        Sandbox sandbox;
        try {
            if (driver == null || driver.unavailableReason().isPresent()) {
                throw new IllegalStateException("driver '" + r.driver() + "' cannot run on this node");
            }
            sandbox = operations.bounded("restore", () -> start(r, driver, cp.get()));
        } catch (RuntimeException e) {
            host.fail(r, ErrorCode.CHECKPOINT_FAILED.wire(), why + "; but restoring it failed: " + e.getMessage() + "; create a new sandbox");
            return false;
        }
        host.adopt(id, sandbox);
        host.store().sandboxes().setHandle(id, r.fence(), sandbox.ref().handle());
        host.store().sandboxes().replaceReason(id, r.fence(), r.state(), why, restoredReason(why));
        if (r.state() == SandboxState.SUSPENDED && driver.conformance().supportsSuspendResume()) sandbox.suspend();
        host.event(r, "sandbox.restored", Map.of("checkpoint_id", cp.get().id(), "reason", why));
        log.info("restored sandbox {} from checkpoint {} ({})", id, cp.get().id(), why);
        return true;
    }

    private Sandbox start(SandboxRecord r, SandboxDriver driver, CheckpointRecord cp) throws Exception {
        Sandbox sandbox = driver.create(host.openEgress(r.spec()), r.fence());
        try (InputStream files = checkpoints.archiveOf(cp)) {
            sandbox.workspace().importTar(Workspace.ROOT, files);
            return sandbox;
        } catch (Exception e) {
            sandbox.terminate(TerminationReason.BACKEND_LOST);
            throw e;
        }
    }

    /** The sandbox's newest checkpoint whose archive is in this host's checkpoint directory. */
    private Optional<CheckpointRecord> newestHere(SandboxRecord r) {
        return host.store().checkpoints().list(r.id(), PageRequest.first(50)).data().stream().filter(checkpoints::inThisDirectory).findFirst();
    }
}
