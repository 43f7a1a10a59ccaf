package dev.paddock.driver.docker;

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
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** The Docker driver's claims; each one is proven by the conformance kit and this module's tests. */
final class DockerConformance {
    /** The claims with the engine's default runtime (runc): what the driver is listed with where it cannot run. */
    static final Conformance RECORD = record(DockerConfig.DEFAULT_RUNTIME);

    /** Under runsc, gVisor's kernel gives Chromium the user namespaces and seccomp its own sandbox needs. */
    static Conformance record(String runtime) {
        List<String> facts = new ArrayList<>(List.of("duplex_process", "workspace_file_io", "background_processes", "cgroup_limits",
                "freezer_suspend_resume", "workspace_tar_checkpoint", "survives_host_restart", "proxy_only_network",
                Conformance.TERMINAL, Conformance.PORT_FORWARD, Conformance.NETWORK_UPDATE, Conformance.FILE_WATCH));
        if (DockerConfig.GVISOR.equals(runtime)) facts.add(Conformance.CHROMIUM_SANDBOX);
        return new Conformance(
                DockerDriver.ID,
                "Docker containers (OCI runtime runc, or runsc for gVisor, which adds chromium_sandbox) through the Engine API on its unix socket; no network but the egress proxy, one unprivileged uid, init agent per sandbox",
                Set.of(Lane.SUPERVISED, Lane.WORKER),
                new Lifecycle(Lease.HOST_FENCED, Support.SUPPORTED, Support.SUPPORTED, OrphanReap.HOST_MANAGED),
                new WorkspaceFacts(List.of(WorkspaceStrategy.DURABLE_MOUNT), Durability.DURABLE),
                new Outputs("host_directory"),
                new CredentialEgress(Enforcement.ENFORCED, List.of("https")),
                List.of("workspace_tar"),
                new PortFacts(List.copyOf(facts), List.of("process_memory_checkpoint", Conformance.DISK_LIMITS)));
    }

    private DockerConformance() {}
}
