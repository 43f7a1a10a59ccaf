package dev.paddock.driver.kubernetes;

import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.SandboxSpec;
import java.util.List;

/**
 * The cluster side of sandboxes, whichever objects they are made of: plain Pods ({@link SandboxPods}) or
 * agent-sandbox {@code Sandbox} objects whose controller makes the pod ({@link AgentSandboxes}). Either way the pod
 * is named {@link ObjectNames#pod}, so exec and files work the same ({@link ClusterPods}); what differs is who makes
 * the pod and how a suspend keeps the workspace.
 */
interface ClusterSandboxes {
    /** The sandbox's pod, the same in both modes: exec, whether it exists or runs. */
    ClusterPods pods();

    /** Makes the sandbox's objects and waits for its pod to run; a failed create removes what it made. */
    void create(SandboxSpec spec, Fence fence, Limits limits);

    /** Whether the sandbox is suspended on purpose (its pod gone, its workspace kept). */
    boolean suspended(String sandboxId);

    /** Whether this installation's pod of the sandbox runs; if so its egress is routed again (a restarted server's re-attach). */
    boolean ownPodRunning(String sandboxId);

    void suspend(String sandboxId);

    void resume(String sandboxId);

    /** Ends the sandbox: its pod and NetworkPolicy go, its workspace claim stays. */
    void release(String sandboxId);

    /** Deletes what is left of an ended sandbox: its workspace claim (and the objects that held it). */
    void deleteClaim(String sandboxId);

    /** Sandboxes with a pod, or suspended: what a host may re-attach or reap. */
    List<String> live();
}
