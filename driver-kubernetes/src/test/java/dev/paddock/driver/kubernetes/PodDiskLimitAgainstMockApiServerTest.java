package dev.paddock.driver.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.core.BoundedBuffer;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.ExecResult;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxSpec;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code limits.disk} on Kubernetes: the workspace claim requests exactly that much storage and the sandbox container
 * gets the same {@code ephemeral-storage} limit. The fake kubelet's provisioner makes a sized claim a filesystem of
 * its size ({@link ClaimDisks}), so a write past the limit fails inside the pod with ENOSPC, as under bwrap.
 */
class PodDiskLimitAgainstMockApiServerTest extends DriverOnMockCluster {
    private static final long DISK = 64L << 20;

    private Sandbox create(boolean agentSandbox, String id) {
        start(agentSandbox, agentSandbox ? AgentSandboxMode.ON : AgentSandboxMode.OFF);
        Limits limits = driver.limits(new Limits(256L << 20, 64, 0.5, DISK));
        return driver.create(new SandboxSpec(id, "ten_1", null, false, limits, Map.of(), NetworkPolicy.NONE), KubernetesDriverAgainstMockApiServerTest.FENCE);
    }

    private static ExecResult run(Sandbox sandbox, String line, BoundedBuffer err) throws InterruptedException {
        return sandbox.exec(ExecRequest.shell(line), ExecOutput.into(new BoundedBuffer(1 << 16), err)).await();
    }

    @Test
    void theClaimIsTheDiskLimitAndWritesPastItFailWithNoSpaceAgainstMockApiServer() throws Exception {
        Sandbox sandbox = create(false, "sbx_disk");

        PersistentVolumeClaim claim = api.persistentVolumeClaims().inNamespace(MockCluster.NAMESPACE).withName(ObjectNames.claim("sbx_disk")).get();
        assertThat(claim.getSpec().getResources().getRequests().get("storage").getNumericalAmount().longValueExact()).isEqualTo(DISK);
        Pod pod = api.pods().inNamespace(MockCluster.NAMESPACE).withName(ObjectNames.pod("sbx_disk")).get();
        assertThat(pod.getSpec().getContainers().getFirst().getResources().getLimits()).containsEntry("ephemeral-storage", new Quantity(Long.toString(DISK)));
        assertThat(pod.getSpec().getContainers().getFirst().getResources().getRequests()).containsEntry("ephemeral-storage", new Quantity(Long.toString(DISK)));

        assertNoSpaceBeyondTheLimit(sandbox);
        // the bound is the claim's: it holds after the pod is made again on it
        sandbox.suspend();
        sandbox.resume();
        BoundedBuffer err = new BoundedBuffer(1 << 16);
        assertThat(run(sandbox, "head -c 100000000 /dev/zero > /mnt/session/outputs/more", err).exitCode()).isNotZero();
        assertThat(err.text()).contains("No space left on device");
    }

    @Test
    void anAgentSandboxClaimTemplateIsTheDiskLimitAgainstMockApiServer() throws Exception {
        Sandbox sandbox = create(true, "sbx_adisk");

        AgentSandbox s = api.resources(AgentSandbox.class).inNamespace(MockCluster.NAMESPACE).withName(ObjectNames.pod("sbx_adisk")).get();
        assertThat(s.getSpec().volumeClaimTemplates.getFirst().spec.getResources().getRequests().get("storage").getNumericalAmount().longValueExact())
                .isEqualTo(DISK);
        assertNoSpaceBeyondTheLimit(sandbox);
    }

    @Test
    void withoutADiskLimitTheClaimIsTheConfiguredSizeAndNoEphemeralStorageIsAskedAgainstMockApiServer() {
        start(false, AgentSandboxMode.OFF);
        driver.create(KubernetesDriverAgainstMockApiServerTest.spec("sbx_nodisk"), KubernetesDriverAgainstMockApiServerTest.FENCE);

        PersistentVolumeClaim claim = api.persistentVolumeClaims().inNamespace(MockCluster.NAMESPACE).withName(ObjectNames.claim("sbx_nodisk")).get();
        assertThat(claim.getSpec().getResources().getRequests()).containsEntry("storage", new Quantity(driver.config().workspaceSize()));
        Pod pod = api.pods().inNamespace(MockCluster.NAMESPACE).withName(ObjectNames.pod("sbx_nodisk")).get();
        assertThat(pod.getSpec().getContainers().getFirst().getResources().getLimits()).doesNotContainKey("ephemeral-storage");
    }

    private static void assertNoSpaceBeyondTheLimit(Sandbox sandbox) throws InterruptedException {
        BoundedBuffer err = new BoundedBuffer(1 << 16);
        assertThat(run(sandbox, "head -c 1000000 /dev/zero > /workspace/small", err).exitCode()).isZero();
        ExecResult big = run(sandbox, "head -c 100000000 /dev/zero > /workspace/big", err);
        assertThat(big.exitCode()).isNotZero();
        assertThat(err.text()).contains("No space left on device");
    }
}
