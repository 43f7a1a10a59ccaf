package dev.paddock.driver.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.paddock.core.BoundedBuffer;
import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.ExecResult;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxRef;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.TerminationReason;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Sandboxes as agent-sandbox {@code Sandbox} objects, against fabric8's mock API server with a fake agent-sandbox
 * controller (no real controller runs here) and the fake kubelet that runs pods as bwrap sandboxes.
 */
@Tag("bwrap")
class AgentSandboxDriverAgainstMockApiServerTest extends DriverOnMockCluster {
    private AgentSandbox sandboxObject(String id) {
        return api.resources(AgentSandbox.class).inNamespace(MockCluster.NAMESPACE).withName(ObjectNames.pod(id)).get();
    }

    private Pod pod(String id) {
        return api.pods().inNamespace(MockCluster.NAMESPACE).withName(ObjectNames.pod(id)).get();
    }

    @Test
    void eachSandboxIsASandboxObjectWhoseControllerMakesThePodAndClaimAgainstMockApiServer() {
        start(true, AgentSandboxMode.ON);
        assertThat(driver.agentSandboxServed()).isTrue();
        driver.create(KubernetesDriverAgainstMockApiServerTest.spec("sbx_crd"), KubernetesDriverAgainstMockApiServerTest.FENCE);

        AgentSandbox s = sandboxObject("sbx_crd");
        assertThat(s).isNotNull();
        assertThat(s.getSpec().replicas).isEqualTo(1);
        assertThat(s.getMetadata().getLabels()).containsEntry(ObjectNames.LABEL_INSTALLATION, "install-a").containsEntry(ObjectNames.LABEL_SANDBOX, "sbx_crd");
        assertThat(s.getSpec().podTemplate.spec.getRuntimeClassName()).isEqualTo("gvisor");
        assertThat(s.getSpec().podTemplate.metadata.labels).containsEntry(ObjectNames.LABEL_SANDBOX, "sbx_crd");
        assertThat(s.getSpec().volumeClaimTemplates).singleElement().satisfies(t -> {
            assertThat(t.metadata.name).isEqualTo(AgentSandboxes.CLAIM_TEMPLATE);
            assertThat(t.spec.getResources().getRequests()).containsEntry("storage", new Quantity("1Gi"));
        });
        // the pod is the controller's, made from the template, on the claim the controller made from the claim template
        Pod pod = pod("sbx_crd");
        assertThat(pod.getStatus().getPhase()).isEqualTo("Running");
        assertThat(pod.getMetadata().getOwnerReferences()).singleElement().satisfies(r -> assertThat(r.getKind()).isEqualTo("Sandbox"));
        assertThat(pod.getSpec().getRuntimeClassName()).isEqualTo("gvisor");
        Container c = pod.getSpec().getContainers().getFirst();
        assertThat(c.getResources().getLimits()).containsEntry("memory", new Quantity(Long.toString(256L << 20))).containsEntry("cpu", new Quantity("500m"));
        assertThat(c.getEnv()).anyMatch(e -> e.getName().equals("GREETING") && e.getValue().equals("hello"));
        assertThat(pod.getSpec().getVolumes()).filteredOn(v -> v.getPersistentVolumeClaim() != null).singleElement()
                .satisfies(v -> assertThat(v.getPersistentVolumeClaim().getClaimName()).isEqualTo(AgentSandboxes.claim("sbx_crd")));
        assertThat(api.persistentVolumeClaims().inNamespace(MockCluster.NAMESPACE).withName(AgentSandboxes.claim("sbx_crd")).get()).isNotNull();
        assertThat(api.persistentVolumeClaims().inNamespace(MockCluster.NAMESPACE).withName(ObjectNames.claim("sbx_crd")).get()).isNull();
        assertThat(api.network().v1().networkPolicies().inNamespace(MockCluster.NAMESPACE).withName(ObjectNames.networkPolicy("sbx_crd")).get()).isNotNull();
        assertThat(driver.list()).extracting(SandboxRef::sandboxId).containsExactly("sbx_crd");
    }

    @Test
    void suspendIsReplicasZeroPodGoneClaimKeptAndResumeBringsTheFilesBackAgainstMockApiServer() throws Exception {
        start(true, AgentSandboxMode.AUTO);
        Sandbox sandbox = driver.create(KubernetesDriverAgainstMockApiServerTest.spec("sbx_sus"), KubernetesDriverAgainstMockApiServerTest.FENCE);
        sandbox.workspace().write("kept.txt", new ByteArrayInputStream("still here".getBytes(StandardCharsets.UTF_8)));

        sandbox.suspend();
        assertThat(sandboxObject("sbx_sus").getSpec().replicas).isZero();
        assertThat(pod("sbx_sus")).isNull();
        assertThat(api.persistentVolumeClaims().inNamespace(MockCluster.NAMESPACE).withName(AgentSandboxes.claim("sbx_sus")).get()).isNotNull();
        assertThat(sandbox.inspect().frozen()).isTrue();
        // a restarted server finds it suspended
        try (KubernetesDriver other = cluster.driver("install-a", AgentSandboxMode.AUTO)) {
            assertThat(other.list()).extracting(SandboxRef::sandboxId).containsExactly("sbx_sus");
            assertThat(other.attach(sandbox.ref())).hasValueSatisfying(s -> assertThat(s.inspect().frozen()).isTrue());
        }

        sandbox.resume();
        assertThat(sandboxObject("sbx_sus").getSpec().replicas).isEqualTo(1);
        assertThat(pod("sbx_sus").getStatus().getPhase()).isEqualTo("Running");
        BoundedBuffer out = new BoundedBuffer(1 << 16);
        ExecResult r = sandbox.exec(ExecRequest.of("cat", "/workspace/kept.txt"), ExecOutput.into(out, new BoundedBuffer(1 << 16))).await();
        assertThat(r.exitCode()).isZero();
        assertThat(out.text()).isEqualTo("still here");
    }

    @Test
    void terminateEndsTheSandboxAndPurgeDeletesTheSandboxObjectAndItsClaimAgainstMockApiServer() {
        start(true, AgentSandboxMode.ON);
        Sandbox sandbox = driver.create(KubernetesDriverAgainstMockApiServerTest.spec("sbx_end"), KubernetesDriverAgainstMockApiServerTest.FENCE);

        sandbox.terminate(TerminationReason.USER_REQUEST);
        assertThat(pod("sbx_end")).isNull();
        assertThat(sandboxObject("sbx_end").getMetadata().getAnnotations()).containsEntry(AgentSandboxes.ANNOTATION_ENDED, "true");
        assertThat(driver.list()).isEmpty();
        assertThat(driver.attach(sandbox.ref())).isEmpty();
        assertThatThrownBy(() -> driver.create(KubernetesDriverAgainstMockApiServerTest.spec("sbx_end"), KubernetesDriverAgainstMockApiServerTest.FENCE))
                .isInstanceOfSatisfying(PaddockException.class, e -> assertThat(e.errorCode()).isEqualTo(ErrorCode.SANDBOX_EXISTS));

        driver.purge(sandbox.ref());
        assertThat(sandboxObject("sbx_end")).isNull();
        assertThat(api.persistentVolumeClaims().inNamespace(MockCluster.NAMESPACE).withName(AgentSandboxes.claim("sbx_end")).get()).isNull();
        // the Service goes with its owner, by garbage collection: later, as on a real cluster
        await().atMost(Duration.ofSeconds(60)).until(() -> api.services().inNamespace(MockCluster.NAMESPACE).withName(ObjectNames.pod("sbx_end")).get() == null);
        driver.create(KubernetesDriverAgainstMockApiServerTest.spec("sbx_end"), KubernetesDriverAgainstMockApiServerTest.FENCE);
        assertThat(pod("sbx_end").getStatus().getPhase()).isEqualTo("Running");
    }

    @Test
    void aFailedStartLeavesNoSandboxObjectClaimOrPolicyAgainstMockApiServer() {
        start(true, AgentSandboxMode.ON);
        SandboxSpec spec = new SandboxSpec("sbx_pull", "ten_1", FakeKubelet.UNPULLABLE + "nothing:1", false, null, Map.of(), NetworkPolicy.NONE);

        assertThatThrownBy(() -> driver.create(spec, KubernetesDriverAgainstMockApiServerTest.FENCE))
                .isInstanceOfSatisfying(PaddockException.class, e -> assertThat(e.errorCode()).isEqualTo(ErrorCode.SANDBOX_START_FAILED))
                .hasMessageContaining("ErrImagePull");
        assertThat(sandboxObject("sbx_pull")).isNull();
        assertThat(api.network().v1().networkPolicies().inNamespace(MockCluster.NAMESPACE).list().getItems()).isEmpty();
        // what the Sandbox owned goes with it (garbage collection: later, as on a real cluster)
        await().atMost(Duration.ofSeconds(60)).until(() -> api.pods().inNamespace(MockCluster.NAMESPACE).list().getItems().isEmpty()
                && api.persistentVolumeClaims().inNamespace(MockCluster.NAMESPACE).list().getItems().isEmpty());
    }

    @Test
    void askingForAgentSandboxWhereTheClusterDoesNotServeItIsAClearStartErrorAgainstMockApiServer() {
        cluster = new MockCluster(dir, false);
        assertThatThrownBy(() -> cluster.driver("install-a", AgentSandboxMode.ON))
                .isInstanceOfSatisfying(PaddockException.class, e -> assertThat(e.errorCode()).isEqualTo(ErrorCode.DRIVER_UNAVAILABLE))
                .hasMessageContaining("agents.x-k8s.io/v1alpha1").hasMessageContaining("kubernetes_agent_sandbox");
    }

    @Test
    void autoFallsBackToPodsWhereTheClusterDoesNotServeAgentSandboxAgainstMockApiServer() {
        start(false, AgentSandboxMode.AUTO);
        assertThat(driver.agentSandboxServed()).isFalse();
        driver.create(KubernetesDriverAgainstMockApiServerTest.spec("sbx_pod"), KubernetesDriverAgainstMockApiServerTest.FENCE);
        assertThat(pod("sbx_pod").getMetadata().getOwnerReferences()).isEmpty();
        assertThat(api.persistentVolumeClaims().inNamespace(MockCluster.NAMESPACE).withName(ObjectNames.claim("sbx_pod")).get()).isNotNull();
    }

    @Test
    void offMakesPodsEvenWhereTheClusterServesAgentSandboxAgainstMockApiServer() {
        start(true, AgentSandboxMode.OFF);
        assertThat(driver.agentSandboxServed()).isFalse();
        driver.create(KubernetesDriverAgainstMockApiServerTest.spec("sbx_off"), KubernetesDriverAgainstMockApiServerTest.FENCE);
        assertThat(sandboxObject("sbx_off")).isNull();
        assertThat(pod("sbx_off").getStatus().getPhase()).isEqualTo("Running");
    }

    @Test
    void theFakeControllersNameHashIsFnv1aAsTheRealOnesIs() {
        // FNV-1a 32-bit of "" and "a", the algorithm's published test values
        assertThat(FakeAgentSandboxController.nameHash("")).isEqualTo("811c9dc5");
        assertThat(FakeAgentSandboxController.nameHash("a")).isEqualTo("e40c292c");
    }
}
