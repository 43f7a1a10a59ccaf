package dev.paddock.host;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxDriver;
import dev.paddock.core.spi.SandboxState;
import dev.paddock.core.spi.TerminationReason;
import dev.paddock.core.spi.Workspace;
import dev.paddock.core.store.CheckpointRecord;
import dev.paddock.core.store.PageRequest;
import dev.paddock.core.store.SandboxEvent;
import dev.paddock.core.store.SandboxRecord;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sandboxes another node made for this one after their node was lost: a {@code creating} record held by this host,
 * with the reason {@code restoring from checkpoint … of sbx_… on node …} and a first event ({@link #EVENT}) that
 * names the checkpoint and the lost sandbox. This host starts it on its driver with the record's settings, lays the
 * checkpoint's archive (in the checkpoint directory it shares with the lost node) into the workspace and marks it
 * running, with the reason {@code restored from checkpoint …} and the event {@code sandbox.restored}. Processes do not
 * come along: what ran in the sandbox must be started again. One it cannot bring back fails, with the reason.
 */
public final class HandedOver {
    /** The first event of a sandbox made to go on from a lost node's sandbox: its checkpoint, from where, why. */
    public static final String EVENT = "sandbox.relocating";
    private static final Logger log = LoggerFactory.getLogger(HandedOver.class);
    private static final String PREFIX = "restoring from checkpoint ";
    private static final String GOES_ON = "; the sandbox goes on as ";
    private static final Pattern SUCCESSOR = Pattern.compile(Pattern.quote(GOES_ON) + "(sbx_[A-Za-z0-9_-]{1,60}) on node ");

    private final OwnedSandboxes host;
    private final Checkpoints checkpoints;
    private final SandboxLocks locks;
    private final Operations operations;
    private final Templates templates;

    HandedOver(OwnedSandboxes host, Checkpoints checkpoints, SandboxLocks locks, Operations operations, Templates templates) {
        this.host = host;
        this.checkpoints = checkpoints;
        this.locks = locks;
        this.operations = operations;
        this.templates = templates;
    }

    /** The reason a handed-over sandbox carries until its new node restored it. */
    public static String reason(String checkpointId, String fromSandbox, String targetNode, String why) {
        return PREFIX + checkpointId + " of " + fromSandbox + " on node " + targetNode + ": " + why;
    }

    /** The failure reason of a lost node's sandbox that goes on as {@code nextId} on {@code targetNode}. */
    public static String goesOn(String why, String nextId, String targetNode, String checkpointId) {
        return why + GOES_ON + nextId + " on node " + targetNode + ", from its checkpoint " + checkpointId
                + " (its workspace as of that checkpoint; no process came along)";
    }

    /** The sandbox a failed sandbox of a lost node goes on as, when it went on from a checkpoint ({@link #goesOn}). */
    public static Optional<String> successorOf(SandboxRecord failed) {
        if (failed.state() != SandboxState.FAILED || failed.stateReason() == null) return Optional.empty();
        Matcher m = SUCCESSOR.matcher(failed.stateReason());
        return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    }

    static boolean pending(SandboxRecord r) {
        return r.state() == SandboxState.CREATING && r.stateReason() != null && r.stateReason().startsWith(PREFIX);
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
        if (r == null || !host.ownerId().equals(r.fence().ownerId()) || !pending(r) || host.live(id) != null) return false;
        String why = r.stateReason();
        Optional<CheckpointRecord> cp = checkpointOf(r).filter(checkpoints::inThisDirectory);
        if (cp.isEmpty()) {
            host.fail(r, "node_lost", why + "; but its checkpoint is not in this node's checkpoint directory " + checkpoints.directory()
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
        SandboxRecord running = host.store().sandboxes().transition(id, r.fence(), SandboxState.RUNNING, "restored" + why.substring("restoring".length()));
        host.event(running, "sandbox.restored", Map.of("checkpoint_id", cp.get().id(), "reason", why));
        templates.created(running);
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

    /** The checkpoint the sandbox's first event names. */
    private Optional<CheckpointRecord> checkpointOf(SandboxRecord r) {
        for (SandboxEvent e : host.store().events().list(r.id(), PageRequest.first(10)).data()) {
            if (!EVENT.equals(e.type())) continue;
            Object cp = e.data().get("checkpoint_id");
            return cp == null ? Optional.empty() : host.store().checkpoints().find(cp.toString());
        }
        return Optional.empty();
    }
}
