package dev.paddock.driver.gvisor;

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
import dev.paddock.core.spi.MemoryCheckpoints;
import java.util.List;
import java.util.Set;

/** The gVisor driver's claims; each one is proven by the conformance kit and this module's tests. */
final class GvisorConformance {
    static final Conformance RECORD = new Conformance(
            GvisorDriver.ID,
            "gVisor (runsc) user-space kernel per sandbox, from an OCI bundle; cgroup limits, loopback-only network, init agent as pid 1",
            Set.of(Lane.SUPERVISED, Lane.WORKER),
            new Lifecycle(Lease.HOST_FENCED, Support.SUPPORTED, Support.SUPPORTED, OrphanReap.HOST_MANAGED),
            new WorkspaceFacts(List.of(WorkspaceStrategy.DURABLE_MOUNT), Durability.DURABLE),
            new Outputs("host_directory"),
            new CredentialEgress(Enforcement.ENFORCED, List.of("https")),
            List.of("workspace_tar", MemoryCheckpoints.KIND),
            new PortFacts(
                    List.of("duplex_process", "workspace_file_io", "background_processes", "cgroup_limits",
                            "pause_resume", "workspace_tar_checkpoint", "process_memory_checkpoint", "survives_host_restart",
                            "proxy_only_network", Conformance.CHROMIUM_SANDBOX, Conformance.TERMINAL, Conformance.PORT_FORWARD,
                            Conformance.NETWORK_UPDATE, Conformance.FILE_WATCH),
                    List.of(Conformance.DISK_LIMITS)));

    private GvisorConformance() {}
}
