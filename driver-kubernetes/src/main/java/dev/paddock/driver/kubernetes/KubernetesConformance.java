package dev.paddock.driver.kubernetes;

import dev.paddock.core.conformance.Conformance;
import dev.paddock.core.conformance.Conformance.CredentialEgress;
import dev.paddock.core.conformance.Conformance.Durability;
import dev.paddock.core.conformance.Conformance.Enforcement;
import dev.paddock.core.conformance.Conformance.Lane;
import dev.paddock.core.conformance.Conformance.Lease;
import dev.paddock.core.conformance.Conformance.Lifecycle;
import dev.paddock.core.conformance.Conformance.OrphanReap;
import dev.paddock.core.conformance.Conformance.Outputs;
import dev.paddock.core.conformance.Conformance.PortFacts;
import dev.paddock.core.conformance.Conformance.Support;
import dev.paddock.core.conformance.Conformance.WorkspaceFacts;
import dev.paddock.core.conformance.Conformance.WorkspaceStrategy;
import java.util.List;
import java.util.Set;

/**
 * The kubernetes driver's claims. The record has no field for how a claim was proven, so the facts say it: every
 * claim, credential egress included, is proven against fabric8's mock API server with a fake kubelet that runs each
 * pod as a bwrap sandbox and gives it only the network its NetworkPolicy allows ({@code proven_against_mock_api_server}),
 * never against a real cluster here: that a cluster's CNI enforces the policy is the cluster's part. The agent-sandbox
 * mode ({@code agent_sandbox_crds}) runs the whole kit too, with a fake of agent-sandbox's controller making the pods
 * ({@code agent_sandbox_proven_against_fake_controller}). Warm pools ({@code agent_sandbox_warm_pools}: a
 * {@code SandboxWarmPool} of a configured shape, a {@code SandboxClaim} per create of that shape) are proven only against
 * a fake of agent-sandbox's extensions controller ({@code agent_sandbox_warm_pools_proven_against_fake_controller}).
 */
final class KubernetesConformance {
    static final Conformance RECORD = new Conformance(
            KubernetesDriver.ID,
            "Kubernetes Pods (runtimeClassName for gVisor or Kata) with /workspace and outputs on a PersistentVolumeClaim, "
                    + "a NetworkPolicy per sandbox that denies everything but Paddock's egress proxy (reached with a per-sandbox proxy credential), "
                    + "exec and files through the pods/exec API; suspend deletes the pod and keeps the claim. "
                    + "Where the cluster serves kubernetes-sigs/agent-sandbox (agents.x-k8s.io/v1alpha1) and kubernetes_agent_sandbox asks for it, "
                    + "each sandbox is a Sandbox object whose controller makes the pod and claim, and suspend is its replicas 0. "
                    + "Proven against mock API server + fake kubelet, not a real cluster; the agent-sandbox mode also only against a fake "
                    + "agent-sandbox controller (fixture kubernetes-agent-sandbox), never the real one. "
                    + "With kubernetes_warm_pool_size, creates of the pool's shape take a pod an agent-sandbox SandboxWarmPool made ahead "
                    + "(a SandboxClaim per sandbox), given its variables and proxy credential through exec after the claim; "
                    + "proven only against a fake of agent-sandbox's extensions controller",
            Set.of(Lane.SUPERVISED, Lane.WORKER),
            new Lifecycle(Lease.HOST_FENCED, Support.SUPPORTED, Support.SUPPORTED, OrphanReap.HOST_MANAGED),
            // the claim outlives every pod of the sandbox (suspend, pod loss), but an ended sandbox has no pod to read it through
            new WorkspaceFacts(List.of(WorkspaceStrategy.CHECKPOINT_RESTORE), Durability.BEST_EFFORT),
            new Outputs("persistent_volume_claim"),
            new CredentialEgress(Enforcement.ENFORCED, List.of("https")),
            List.of("workspace_tar"),
            new PortFacts(
                    List.of("workspace_file_io", "background_processes", "cgroup_limits", "survives_host_restart", "deny_all_network_policy", "runtime_class",
                            "suspend_stops_processes", "proxy_only_network", Conformance.NETWORK_UPDATE, "proven_against_mock_api_server",
                            "agent_sandbox_crds", "agent_sandbox_proven_against_fake_controller", "agent_sandbox_warm_pools",
                            "agent_sandbox_warm_pools_proven_against_fake_controller", Conformance.DISK_LIMITS),
                    List.of("freezer_suspend_resume", "per_sandbox_pids_limit",
                            "process_memory_checkpoint")));

    private KubernetesConformance() {}
}
