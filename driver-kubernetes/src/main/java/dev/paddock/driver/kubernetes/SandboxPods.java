package dev.paddock.driver.kubernetes;

import static dev.paddock.driver.kubernetes.ClusterPods.annotations;
import static dev.paddock.driver.kubernetes.ClusterPods.call;
import static dev.paddock.driver.kubernetes.ClusterPods.edit;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.SandboxSpec;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.net.HttpURLConnection;
import java.util.HashMap;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;

/**
 * The cluster side of sandboxes: makes, finds, suspends, resumes and removes a sandbox's pod, claim and
 * NetworkPolicy in one namespace, touching only objects labelled with this installation. The pod's manifest is kept
 * in an annotation of the claim, so a resume (also by another server after a restart) makes the same pod again.
 */
final class SandboxPods implements ClusterSandboxes {
    static final String ANNOTATION_POD = "paddock.dev/pod";

    private final ClusterPods pods;
    private final KubernetesClient client;

    SandboxPods(ClusterPods pods) {
        this.pods = pods;
        this.client = pods.client;
    }

    @Override
    public ClusterPods pods() {
        return pods;
    }

    /** Makes the claim, the NetworkPolicy (before the pod, so it never runs unfenced) and the pod, and waits for it to run. */
    @Override
    public void create(SandboxSpec spec, Fence fence, Limits limits) {
        String id = spec.sandboxId();
        boolean egress = spec.egress() != null;
        Pod pod = pods.objects.pod(spec, fence, limits, egress ? EgressGateway.newToken() : null);
        PersistentVolumeClaim claim = pods.objects.claim(id, fence, limits);
        claim.getMetadata().getAnnotations().put(ANNOTATION_POD, client.getKubernetesSerialization().asJson(pod));
        call("create the workspace claim of " + id, () -> {
            try {
                return client.persistentVolumeClaims().inNamespace(pods.config.namespace()).resource(claim).create();
            } catch (KubernetesClientException e) {
                if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
                    throw new PaddockException(ErrorCode.SANDBOX_EXISTS, "a kubernetes sandbox with id " + id + " exists (claim "
                            + ObjectNames.claim(id) + "); use another id or purge it");
                }
                throw e;
            }
        });
        try {
            pods.createPolicy(id, fence, egress);
            startPod(id, pod);
        } catch (RuntimeException e) {
            ClusterPods.undo(e, () -> {
                release(id);
                deleteClaim(id);
            });
            throw e;
        }
    }

    private void startPod(String id, Pod pod) {
        pods.route(id, pod);
        pods.holders.mark(pod);
        call("create the pod of " + id, () -> client.pods().inNamespace(pods.config.namespace()).resource(pod).create());
        pods.awaitRunning(id);
    }

    /** Whether the sandbox's claim says it is suspended (its pod deleted on purpose). */
    @Override
    public boolean suspended(String sandboxId) {
        PersistentVolumeClaim claim = call("read the claim of " + sandboxId, () -> claim(sandboxId).get());
        return claim != null && pods.ours(claim) && "true".equals(annotations(claim).get(ObjectNames.ANNOTATION_SUSPENDED));
    }

    @Override
    public boolean ownPodRunning(String sandboxId) {
        Pod pod = pods.reattach(sandboxId);
        if (pod != null) pods.holders.claim(sandboxId, pod);
        return pod != null;
    }

    @Override
    public void suspend(String sandboxId) {
        annotate(sandboxId, "true");
        deletePod(sandboxId);
    }

    @Override
    public void resume(String sandboxId) {
        PersistentVolumeClaim claim = call("read the claim of " + sandboxId, () -> claim(sandboxId).get());
        String manifest = claim == null ? null : annotations(claim).get(ANNOTATION_POD);
        if (manifest == null) {
            throw new PaddockException(ErrorCode.SANDBOX_UNREACHABLE, "sandbox " + sandboxId + " cannot resume: its workspace claim or pod manifest is gone");
        }
        Pod pod = client.getKubernetesSerialization().unmarshal(manifest, Pod.class);
        pods.objects.readdress(pod, sandboxId);
        startPod(sandboxId, pod);
        annotate(sandboxId, null);
    }

    /** Deletes the pod and the NetworkPolicy; the claim (the workspace) stays. */
    @Override
    public void release(String sandboxId) {
        pods.unroute(sandboxId);
        deletePod(sandboxId);
        pods.deletePolicy(sandboxId);
    }

    @Override
    public void deleteClaim(String sandboxId) {
        call("delete the claim of " + sandboxId, () -> claim(sandboxId).delete());
    }

    /** Sandboxes with a pod, or suspended on a claim: what a host may re-attach or reap. */
    @Override
    public List<String> live() {
        TreeSet<String> ids = new TreeSet<>();
        call("list the sandbox pods", () -> client.pods().inNamespace(pods.config.namespace()).withLabels(pods.mine()).list())
                .getItems().stream().map(ClusterPods::sandboxOf).filter(Objects::nonNull).forEach(ids::add);
        call("list the sandbox claims", () -> client.persistentVolumeClaims().inNamespace(pods.config.namespace()).withLabels(pods.mine()).list())
                .getItems().stream().filter(c -> "true".equals(annotations(c).get(ObjectNames.ANNOTATION_SUSPENDED)))
                .map(ClusterPods::sandboxOf).filter(Objects::nonNull).forEach(ids::add);
        return List.copyOf(ids);
    }

    private void deletePod(String sandboxId) {
        call("delete the pod of " + sandboxId, () -> pods.pod(sandboxId).withGracePeriod(0).delete());
        pods.awaitGone(sandboxId, "its pod was not gone after its deletion");
    }

    private void annotate(String sandboxId, String suspended) {
        edit("mark the claim of " + sandboxId, () -> claim(sandboxId).edit(c -> {
            if (c.getMetadata().getAnnotations() == null) c.getMetadata().setAnnotations(new HashMap<>());
            if (suspended == null) c.getMetadata().getAnnotations().remove(ObjectNames.ANNOTATION_SUSPENDED);
            else c.getMetadata().getAnnotations().put(ObjectNames.ANNOTATION_SUSPENDED, suspended);
            return c;
        }));
    }

    private Resource<PersistentVolumeClaim> claim(String sandboxId) {
        return client.persistentVolumeClaims().inNamespace(pods.config.namespace()).withName(ObjectNames.claim(sandboxId));
    }
}
