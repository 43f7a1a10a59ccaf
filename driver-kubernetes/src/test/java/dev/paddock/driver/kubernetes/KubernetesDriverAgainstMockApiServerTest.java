package dev.paddock.driver.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxRef;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.TerminationReason;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The driver's objects and lifecycle against fabric8's mock API server in CRUD mode. What a kubelet would do (run
 * the pod, report it Running) the fake kubelet does; no command runs here (see the exec and files tests).
 */
class KubernetesDriverAgainstMockApiServerTest extends DriverOnMockCluster {
    static final Fence FENCE = new Fence("host-a", 3);

    @BeforeEach
    void start() {
        start(false, AgentSandboxMode.OFF);
    }

    static SandboxSpec spec(String id) {
        return new SandboxSpec(id, "ten_1", null, false, new Limits(256L << 20, 64, 0.5), Map.of("GREETING", "hello"), NetworkPolicy.NONE);
    }

    @Test
    void createMakesAPodWithLimitsRuntimeClassAndNoServiceAccountTokenAgainstMockApiServer() {
        driver.create(spec("sbx_one"), FENCE);

        Pod pod = api.pods().inNamespace(MockCluster.NAMESPACE).withName(ObjectNames.pod("sbx_one")).get();
        assertThat(pod.getStatus().getPhase()).isEqualTo("Running");
        assertThat(pod.getSpec().getRuntimeClassName()).isEqualTo("gvisor");
        assertThat(pod.getSpec().getAutomountServiceAccountToken()).isFalse();
        assertThat(pod.getSpec().getSecurityContext().getRunAsNonRoot()).isTrue();
        Container c = pod.getSpec().getContainers().getFirst();
        assertThat(c.getResources().getLimits()).containsEntry("memory", new Quantity(Long.toString(256L << 20))).containsEntry("cpu", new Quantity("500m"));
        assertThat(c.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(c.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
        assertThat(c.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(c.getEnv()).anyMatch(e -> e.getName().equals("GREETING") && e.getValue().equals("hello"));
        assertThat(c.getVolumeMounts()).extracting(m -> m.getMountPath()).contains("/workspace", "/mnt/session/outputs");
        assertThat(pod.getSpec().getVolumes()).anyMatch(v -> v.getPersistentVolumeClaim() != null
                && v.getPersistentVolumeClaim().getClaimName().equals(ObjectNames.claim("sbx_one")));
        assertThat(pod.getMetadata().getLabels()).containsEntry(ObjectNames.LABEL_INSTALLATION, "install-a")
                .containsEntry(ObjectNames.LABEL_SANDBOX, "sbx_one").containsEntry(ObjectNames.LABEL_FENCE_GENERATION, "3");
        assertThat(pod.getMetadata().getAnnotations()).containsEntry(ObjectNames.LABEL_FENCE_OWNER, "host-a");
        assertThat(cluster.kubelet.runtimeClasses).contains("gvisor");
    }

    @Test
    void everySandboxGetsADenyAllNetworkPolicySelectingOnlyItsPodAgainstMockApiServer() {
        driver.create(spec("sbx_net"), FENCE);

        var policy = api.network().v1().networkPolicies().inNamespace(MockCluster.NAMESPACE).withName(ObjectNames.networkPolicy("sbx_net")).get();
        assertThat(policy.getSpec().getPolicyTypes()).containsExactlyInAnyOrder("Ingress", "Egress");
        assertThat(policy.getSpec().getEgress()).isEmpty();
        assertThat(policy.getSpec().getIngress()).isEmpty();
        assertThat(policy.getSpec().getPodSelector().getMatchLabels()).containsEntry(ObjectNames.LABEL_SANDBOX, "sbx_net")
                .containsEntry(ObjectNames.LABEL_INSTALLATION, "install-a");
    }

    @Test
    void networkModesThatNeedTheEgressProxyAreRefusedBeforeAnythingIsMadeAgainstMockApiServer() {
        SandboxSpec limited = new SandboxSpec("sbx_lim", "ten_1", null, false, null, Map.of(),
                new NetworkPolicy(NetworkPolicy.Mode.LIMITED, List.of("example.com"), false));

        assertThatThrownBy(() -> driver.create(limited, FENCE)).isInstanceOf(PaddockException.class)
                .satisfies(e -> assertThat(((PaddockException) e).errorCode()).isEqualTo(ErrorCode.UNSUPPORTED_NETWORK_POLICY));
        assertThat(api.persistentVolumeClaims().inNamespace(MockCluster.NAMESPACE).list().getItems()).isEmpty();
        assertThat(api.pods().inNamespace(MockCluster.NAMESPACE).list().getItems()).isEmpty();
    }

    @Test
    void aSecondCreateOfTheSameIdIsRefusedAgainstMockApiServer() {
        driver.create(spec("sbx_twice"), FENCE);

        assertThatThrownBy(() -> driver.create(spec("sbx_twice"), FENCE))
                .satisfies(e -> assertThat(((PaddockException) e).errorCode()).isEqualTo(ErrorCode.SANDBOX_EXISTS));
    }

    @Test
    void suspendDeletesThePodAndKeepsTheClaimAndResumeMakesItAgainAgainstMockApiServer() {
        Sandbox s = driver.create(spec("sbx_sus"), FENCE);

        s.suspend();
        assertThat(api.pods().inNamespace(MockCluster.NAMESPACE).withName(ObjectNames.pod("sbx_sus")).get()).isNull();
        PersistentVolumeClaim claim = api.persistentVolumeClaims().inNamespace(MockCluster.NAMESPACE).withName(ObjectNames.claim("sbx_sus")).get();
        assertThat(claim).isNotNull();
        assertThat(claim.getMetadata().getAnnotations()).containsEntry(ObjectNames.ANNOTATION_SUSPENDED, "true");
        assertThat(s.inspect().alive()).isTrue();
        assertThat(s.inspect().frozen()).isTrue();
        assertThatThrownBy(() -> s.exec(dev.paddock.core.spi.ExecRequest.of("true"), dev.paddock.core.spi.ExecOutput.DISCARD))
                .satisfies(e -> assertThat(((PaddockException) e).errorCode()).isEqualTo(ErrorCode.SANDBOX_NOT_RUNNING));

        s.resume();
        Pod again = api.pods().inNamespace(MockCluster.NAMESPACE).withName(ObjectNames.pod("sbx_sus")).get();
        assertThat(again.getStatus().getPhase()).isEqualTo("Running");
        assertThat(again.getSpec().getRuntimeClassName()).isEqualTo("gvisor");
        assertThat(s.inspect().frozen()).isFalse();
        assertThat(api.persistentVolumeClaims().inNamespace(MockCluster.NAMESPACE).withName(ObjectNames.claim("sbx_sus")).get()
                .getMetadata().getAnnotations()).doesNotContainKey(ObjectNames.ANNOTATION_SUSPENDED);
    }

    @Test
    void aRestartedServerListsAndReattachesItsSandboxesButNotAnotherInstallationsAgainstMockApiServer() {
        driver.create(spec("sbx_run"), FENCE);
        driver.create(spec("sbx_slept"), FENCE).suspend();

        try (KubernetesDriver restarted = cluster.driver("install-a"); KubernetesDriver other = cluster.driver("install-b")) {
            assertThat(restarted.list()).extracting(SandboxRef::sandboxId).containsExactly("sbx_run", "sbx_slept");
            assertThat(other.list()).isEmpty();
            assertThat(restarted.attach(new SandboxRef("sbx_run", "kubernetes", null))).get().satisfies(s -> assertThat(s.inspect().frozen()).isFalse());
            assertThat(restarted.attach(new SandboxRef("sbx_slept", "kubernetes", null))).get().satisfies(s -> assertThat(s.inspect().frozen()).isTrue());
            assertThat(other.attach(new SandboxRef("sbx_run", "kubernetes", null))).isEmpty();
            assertThat(restarted.attach(new SandboxRef("sbx_never", "kubernetes", null))).isEmpty();
        }
    }

    @Test
    void terminateKeepsTheClaimAndPurgeDeletesItAgainstMockApiServer() {
        Sandbox s = driver.create(spec("sbx_end"), FENCE);
        SandboxRef ref = s.ref();

        assertThatThrownBy(() -> driver.purge(ref)).satisfies(e -> assertThat(((PaddockException) e).errorCode()).isEqualTo(ErrorCode.SANDBOX_RUNNING));
        s.terminate(TerminationReason.USER_REQUEST);
        assertThat(api.pods().inNamespace(MockCluster.NAMESPACE).withName(ObjectNames.pod("sbx_end")).get()).isNull();
        assertThat(api.network().v1().networkPolicies().inNamespace(MockCluster.NAMESPACE).withName(ObjectNames.networkPolicy("sbx_end")).get()).isNull();
        assertThat(api.persistentVolumeClaims().inNamespace(MockCluster.NAMESPACE).withName(ObjectNames.claim("sbx_end")).get()).isNotNull();
        assertThat(driver.list()).isEmpty();
        assertThat(s.inspect().alive()).isFalse();

        driver.purge(ref);
        assertThat(api.persistentVolumeClaims().inNamespace(MockCluster.NAMESPACE).withName(ObjectNames.claim("sbx_end")).get()).isNull();
    }

    @Test
    void destroyOfAnOrphanRemovesItsPodButKeepsItsWorkspaceAgainstMockApiServer() {
        driver.create(spec("sbx_orphan"), FENCE);

        driver.destroy(new SandboxRef("sbx_orphan", "kubernetes", null));

        assertThat(driver.list()).isEmpty();
        assertThat(api.persistentVolumeClaims().inNamespace(MockCluster.NAMESPACE).withName(ObjectNames.claim("sbx_orphan")).get()).isNotNull();
    }

    @Test
    void anImageThatCannotBePulledFailsTheCreateWithTheKubeletsReasonAndLeavesNothingAgainstMockApiServer() {
        SandboxSpec spec = new SandboxSpec("sbx_pull", "ten_1", FakeKubelet.UNPULLABLE + "nothing:1", false, null, Map.of(), NetworkPolicy.NONE);

        assertThatThrownBy(() -> driver.create(spec, FENCE))
                .satisfies(e -> assertThat(((PaddockException) e).errorCode()).isEqualTo(ErrorCode.SANDBOX_START_FAILED))
                .hasMessageContaining("ErrImagePull").hasMessageContaining("pull access denied");
        assertThat(api.pods().inNamespace(MockCluster.NAMESPACE).list().getItems()).isEmpty();
        assertThat(api.persistentVolumeClaims().inNamespace(MockCluster.NAMESPACE).list().getItems()).isEmpty();
        assertThat(api.network().v1().networkPolicies().inNamespace(MockCluster.NAMESPACE).list().getItems()).isEmpty();
    }
}
