package dev.paddock.driver.kubernetes;

import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.Workspace;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The cluster objects of one sandbox: its workspace claim, its NetworkPolicy and its Pod. Pure builders: nothing
 * here talks to the cluster.
 */
final class SandboxObjects {
    static final String CONTAINER = "sandbox";
    private static final String VOLUME = "workspace";
    /** Pid 1 of the sandbox container: waits for nothing but its end, so the pod lives until it is deleted. */
    static final List<String> KEEPER = List.of("/bin/sh", "-c", "trap 'exit 0' TERM INT; while :; do sleep 3600 & wait $!; done");

    private final KubernetesConfig config;

    SandboxObjects(KubernetesConfig config) {
        this.config = config;
    }

    /** The labels every object of the sandbox carries; the installation and sandbox labels also select them. */
    Map<String, String> selector(String sandboxId) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(ObjectNames.LABEL_MANAGED_BY, ObjectNames.MANAGED_BY);
        labels.put(ObjectNames.LABEL_INSTALLATION, config.installation());
        labels.put(ObjectNames.LABEL_SANDBOX, sandboxId);
        return labels;
    }

    private ObjectMeta meta(String name, String sandboxId, Fence fence) {
        Map<String, String> labels = selector(sandboxId);
        ObjectMetaBuilder meta = new ObjectMetaBuilder().withName(name).withNamespace(config.namespace()).withAnnotations(new LinkedHashMap<>());
        if (fence != null) {
            labels.put(ObjectNames.LABEL_FENCE_GENERATION, Long.toString(fence.generation()));
            // owner ids are free text, so they go into an annotation
            meta.addToAnnotations(ObjectNames.LABEL_FENCE_OWNER, fence.ownerId());
        }
        return meta.withLabels(labels).build();
    }

    /** The durable /workspace and outputs: one claim, two directories in it, outliving every pod of the sandbox. */
    PersistentVolumeClaim claim(String sandboxId, Fence fence) {
        return new PersistentVolumeClaimBuilder()
                .withMetadata(meta(ObjectNames.claim(sandboxId), sandboxId, fence))
                .withNewSpec()
                    .withAccessModes("ReadWriteOnce")
                    .withStorageClassName(config.storageClass())
                    .withNewResources().addToRequests("storage", new Quantity(config.workspaceSize())).endResources()
                .endSpec()
                .build();
    }

    /**
     * Denies the sandbox pod every connection in and out: traffic to the cluster, its services and the cloud
     * metadata address included. Exec and files go through the API server and the kubelet, not the pod network.
     */
    NetworkPolicy denyAll(String sandboxId, Fence fence) {
        return new NetworkPolicyBuilder()
                .withMetadata(meta(ObjectNames.networkPolicy(sandboxId), sandboxId, fence))
                .withNewSpec()
                    .withNewPodSelector().withMatchLabels(selector(sandboxId)).endPodSelector()
                    .withPolicyTypes("Ingress", "Egress")
                .endSpec()
                .build();
    }

    Pod pod(SandboxSpec spec, Fence fence, Limits limits) {
        String id = spec.sandboxId();
        String image = spec.image() != null ? spec.image() : config.image();
        return new PodBuilder()
                .withMetadata(meta(ObjectNames.pod(id), id, fence))
                .withNewSpec()
                    .withRuntimeClassName(config.runtimeClass())
                    .withHostname(ObjectNames.pod(id))
                    .withRestartPolicy("Never")
                    .withAutomountServiceAccountToken(false)
                    .withEnableServiceLinks(false)
                    .withTerminationGracePeriodSeconds(1L)
                    .withNewSecurityContext()
                        .withRunAsUser(config.uid()).withRunAsGroup(config.uid()).withFsGroup(config.uid()).withRunAsNonRoot(true)
                        .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile()
                    .endSecurityContext()
                    .addNewVolume().withName(VOLUME).withNewPersistentVolumeClaim().withClaimName(ObjectNames.claim(id)).endPersistentVolumeClaim().endVolume()
                    .addNewVolume().withName("tmp").withNewEmptyDir().withMedium("Memory").withSizeLimit(new Quantity("64Mi")).endEmptyDir().endVolume()
                    .withInitContainers(layout(image, limits))
                    .withContainers(sandbox(image, spec, limits))
                .endSpec()
                .build();
    }

    /** Makes the workspace and outputs directories on the claim as the sandbox's uid (fsGroup lets it write there). */
    private Container layout(String image, Limits limits) {
        return new ContainerBuilder()
                .withName("layout")
                .withImage(image)
                .withCommand("/bin/sh", "-c", "mkdir -p /volume/workspace /volume/outputs")
                .withResources(resources(limits))
                .withSecurityContext(locked(true))
                .addNewVolumeMount().withName(VOLUME).withMountPath("/volume").endVolumeMount()
                .build();
    }

    private Container sandbox(String image, SandboxSpec spec, Limits limits) {
        List<EnvVar> env = new ArrayList<>();
        env.add(new EnvVar("HOME", Workspace.ROOT, null));
        spec.env().forEach((k, v) -> env.add(new EnvVar(k, v, null)));
        return new ContainerBuilder()
                .withName(CONTAINER)
                .withImage(image)
                .withCommand(KEEPER)
                .withWorkingDir(Workspace.ROOT)
                .withEnv(env)
                .withResources(resources(limits))
                .withSecurityContext(locked(!spec.writableRootfs()))
                .withVolumeMounts(mount(VOLUME, Workspace.ROOT, "workspace"), mount(VOLUME, Workspace.OUTPUTS, "outputs"), mount("tmp", "/tmp", null))
                .build();
    }

    private static VolumeMount mount(String volume, String path, String subPath) {
        return new VolumeMountBuilder().withName(volume).withMountPath(path).withSubPath(subPath).build();
    }

    /** Requests equal limits: the pod is Guaranteed, so the scheduler places it where its limits fit. */
    private static ResourceRequirements resources(Limits limits) {
        Map<String, Quantity> amounts = Map.of(
                "memory", new Quantity(Long.toString(limits.memoryBytes())),
                "cpu", new Quantity(Math.max(1, Math.round(limits.cpus() * 1000)) + "m"));
        return new ResourceRequirementsBuilder().withLimits(amounts).withRequests(amounts).build();
    }

    private static SecurityContext locked(boolean readOnlyRoot) {
        return new SecurityContextBuilder()
                .withAllowPrivilegeEscalation(false)
                .withReadOnlyRootFilesystem(readOnlyRoot)
                .withNewCapabilities().withDrop("ALL").endCapabilities()
                .build();
    }
}
