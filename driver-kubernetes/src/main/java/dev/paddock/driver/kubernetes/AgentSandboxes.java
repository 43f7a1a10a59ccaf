package dev.paddock.driver.kubernetes;

import static dev.paddock.driver.kubernetes.ClusterPods.annotations;
import static dev.paddock.driver.kubernetes.ClusterPods.call;
import static dev.paddock.driver.kubernetes.ClusterPods.edit;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.SandboxSpec;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.net.HttpURLConnection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Objects;

/**
 * Sandboxes as kubernetes-sigs/agent-sandbox {@code Sandbox} objects: the driver makes the NetworkPolicy and the
 * {@code Sandbox} (its pod template the same pod {@link SandboxObjects} builds, {@code /workspace} and the outputs on
 * a claim from its volume claim template); agent-sandbox's controller makes the pod, the claim and a headless
 * Service and owns them. Suspend is agent-sandbox's own: {@code spec.replicas: 0}, the controller deletes the pod and
 * keeps the claim; resume sets it back to 1 and the controller makes the pod again from the same template. An ended
 * sandbox stays at 0 replicas, marked {@link #ANNOTATION_ENDED}, until it is purged: then the {@code Sandbox} and its
 * claim are deleted (the cluster's garbage collector removes the rest, which the Sandbox owns).
 */
final class AgentSandboxes implements ClusterSandboxes {
    /** The volume claim template's name, the same as the pod volume the sandbox container mounts. */
    static final String CLAIM_TEMPLATE = "workspace";
    /** On the Sandbox: the sandbox ended (terminated or reaped); only a purge follows. */
    static final String ANNOTATION_ENDED = "paddock.dev/ended";

    private final ClusterPods pods;
    private final KubernetesClient client;
    private final KubernetesConfig config;
    /** Null without a warm pool. */
    private final PoolClaims pool;

    AgentSandboxes(ClusterPods pods) {
        this(pods, null);
    }

    /** With {@code pool}, creates of its shape are claimed from it (its objects must exist: {@link PoolClaims#ensure}). */
    AgentSandboxes(ClusterPods pods, PoolClaims pool) {
        this.pods = pods;
        this.client = pods.client;
        this.config = pods.config;
        this.pool = pool;
        if (pool != null) pods.names(pool::podName);
    }

    /** The claim agent-sandbox's controller makes from the template: {@code <template name>-<sandbox name>}. */
    static String claim(String sandboxId) {
        return claimOf(ObjectNames.pod(sandboxId));
    }

    static String claimOf(String sandboxName) {
        return CLAIM_TEMPLATE + "-" + sandboxName;
    }

    /** The volume claim template of the sandbox's workspace claim. */
    static AgentSandbox.ClaimTemplate claimTemplate(PersistentVolumeClaim claim) {
        AgentSandbox.ClaimTemplate template = new AgentSandbox.ClaimTemplate();
        template.metadata.name = CLAIM_TEMPLATE;
        template.metadata.labels.putAll(claim.getMetadata().getLabels());
        template.spec = claim.getSpec();
        return template;
    }

    @Override
    public ClusterPods pods() {
        return pods;
    }

    /** The Sandbox object of a sandbox: named as its pod, carrying the pod's labels so this installation lists it. */
    AgentSandbox sandbox(SandboxSpec spec, Fence fence, Limits limits, String proxyToken) {
        String id = spec.sandboxId();
        Pod pod = pods.objects.pod(spec, fence, limits, proxyToken);
        // the controller adds the claim's volume under the template's name; a second volume of that name would be refused
        pod.getSpec().getVolumes().removeIf(v -> v.getPersistentVolumeClaim() != null);
        PersistentVolumeClaim claim = pods.objects.claim(id, fence, limits);

        AgentSandbox sandbox = new AgentSandbox();
        sandbox.setMetadata(new ObjectMetaBuilder().withName(ObjectNames.pod(id)).withNamespace(config.namespace())
                .withLabels(new LinkedHashMap<>(pod.getMetadata().getLabels()))
                .withAnnotations(new LinkedHashMap<>(pod.getMetadata().getAnnotations())).build());
        AgentSandbox.Spec s = new AgentSandbox.Spec();
        s.podTemplate = new AgentSandbox.PodTemplate();
        s.podTemplate.metadata.labels.putAll(pod.getMetadata().getLabels());
        s.podTemplate.metadata.annotations.putAll(pod.getMetadata().getAnnotations());
        s.podTemplate.spec = pod.getSpec();
        s.volumeClaimTemplates.add(claimTemplate(claim));
        s.replicas = 1;
        sandbox.setSpec(s);
        return sandbox;
    }

    /** The pod a Sandbox's template describes (what the controller will make); it shares the template's spec, so changes reach it. */
    static Pod templatePod(AgentSandbox sandbox) {
        Pod pod = new Pod();
        pod.setMetadata(new ObjectMetaBuilder().withName(sandbox.getMetadata().getName())
                .withLabels(sandbox.getSpec().podTemplate.metadata.labels)
                .withAnnotations(sandbox.getSpec().podTemplate.metadata.annotations).build());
        pod.setSpec(sandbox.getSpec().podTemplate.spec);
        return pod;
    }

    /** Makes the NetworkPolicy (before the Sandbox, so its pod never runs unfenced) and the Sandbox, and waits for its pod to run. */
    @Override
    public void create(SandboxSpec spec, Fence fence, Limits limits) {
        String id = spec.sandboxId();
        if (pool != null && pool.fits(spec, limits)) {
            if (call("read the Sandbox of " + id, () -> sandboxes().withName(ObjectNames.pod(id)).get()) != null) throw exists(id);
            pool.create(spec, fence, this::markHolder);
            return;
        }
        boolean egress = spec.egress() != null;
        AgentSandbox sandbox = sandbox(spec, fence, limits, egress ? EgressGateway.newToken() : null);
        markHolder(sandbox);
        if (call("read the Sandbox of " + id, () -> resource(id).get()) != null) {
            throw exists(id);
        }
        pods.createPolicy(id, fence, egress);
        try {
            call("create the Sandbox of " + id, () -> sandboxes().resource(sandbox).create());
        } catch (PaddockException e) {
            if (e.getCause() instanceof KubernetesClientException k && k.getCode() == HttpURLConnection.HTTP_CONFLICT) {
                // made meanwhile by another server: the policy of that name is that sandbox's, so it stays
                throw exists(id);
            }
            ClusterPods.undo(e, () -> pods.deletePolicy(id));
            throw e;
        }
        try {
            pods.route(id, templatePod(sandbox));
            awaitPod(id);
        } catch (RuntimeException e) {
            ClusterPods.undo(e, () -> {
                release(id);
                deleteClaim(id);
            });
            throw e;
        }
    }

    private static PaddockException exists(String id) {
        return new PaddockException(ErrorCode.SANDBOX_EXISTS, "a kubernetes sandbox with id " + id + " exists (Sandbox "
                + ObjectNames.pod(id) + "); use another id or purge it");
    }

    /** Waits for the controller to make the pod, then for the pod to run. */
    private void awaitPod(String id) {
        pods.waitUntil(() -> pods.exists(id), "the agent-sandbox controller made no pod for Sandbox " + pods.podName(id)
                + " (is the controller running?)", ErrorCode.SANDBOX_START_TIMEOUT, id);
        pods.awaitRunning(id);
    }

    @Override
    public boolean suspended(String sandboxId) {
        AgentSandbox s = call("read the Sandbox of " + sandboxId, () -> resource(sandboxId).get());
        return s != null && pods.ours(s) && !ended(s) && s.getSpec() != null && Integer.valueOf(0).equals(s.getSpec().replicas);
    }

    @Override
    public boolean ownPodRunning(String sandboxId) {
        Pod pod = pods.reattach(sandboxId);
        if (pod != null) claimEgress(sandboxId, pod);
        return pod != null;
    }

    /**
     * A takeover of a running pod: marks this server the holder on the pod, which the relays read, and on the
     * Sandbox's pod template, so a pod the controller makes again (after the pod's loss) names this server too.
     */
    private void claimEgress(String sandboxId, Pod pod) {
        if (!pods.holders.needsClaim(pod)) return;
        pods.holders.claim(sandboxId, pod);
        edit("mark this server as the egress holder in the Sandbox of " + sandboxId, () -> resource(sandboxId).edit(s -> {
            markHolder(s);
            return s;
        }));
    }

    /** Names this server the egress holder in the Sandbox's pod template (the controller copies its annotations to the pod). */
    private void markHolder(AgentSandbox sandbox) {
        Pod template = templatePod(sandbox);
        pods.holders.mark(template);
        String holder = annotations(template).get(EgressHolders.ANNOTATION);
        if (holder != null) sandbox.getSpec().podTemplate.metadata.annotations.put(EgressHolders.ANNOTATION, holder);
        else sandbox.getSpec().podTemplate.metadata.annotations.remove(EgressHolders.ANNOTATION);
    }

    @Override
    public void suspend(String sandboxId) {
        edit("suspend the Sandbox of " + sandboxId, () -> resource(sandboxId).edit(s -> {
            s.getSpec().replicas = 0;
            return s;
        }));
        awaitPodGone(sandboxId);
    }

    /** Sets replicas back to 1, with the proxy variables pointing at this server (which may not be the one that made it). */
    @Override
    public void resume(String sandboxId) {
        AgentSandbox current = call("read the Sandbox of " + sandboxId, () -> resource(sandboxId).get());
        if (current == null || ended(current)) {
            throw new PaddockException(ErrorCode.SANDBOX_UNREACHABLE, "sandbox " + sandboxId + " cannot resume: its Sandbox object is gone or ended");
        }
        AgentSandbox resumed = edit("resume the Sandbox of " + sandboxId, () -> resource(sandboxId).edit(s -> {
            pods.objects.readdress(templatePod(s), sandboxId);
            markHolder(s);
            s.getSpec().replicas = 1;
            return s;
        }));
        pods.route(sandboxId, templatePod(resumed));
        awaitPod(sandboxId);
        // a pool pod's environment and CA bundle live in memory volumes: the new pod gets them again
        if (pool != null && pool.claimed(sandboxId)) pool.giveEnvironment(sandboxId);
    }

    @Override
    public void release(String sandboxId) {
        pods.unroute(sandboxId);
        AgentSandbox current = call("read the Sandbox of " + sandboxId, () -> resource(sandboxId).get());
        if (current != null && pods.ours(current)) {
            edit("end the Sandbox of " + sandboxId, () -> resource(sandboxId).edit(s -> {
                if (s.getMetadata().getAnnotations() == null) s.getMetadata().setAnnotations(new HashMap<>());
                s.getMetadata().getAnnotations().put(ANNOTATION_ENDED, "true");
                s.getSpec().replicas = 0;
                return s;
            }));
            awaitPodGone(sandboxId);
        }
        pods.deletePolicy(sandboxId);
    }

    @Override
    public void deleteClaim(String sandboxId) {
        AgentSandbox current = call("read the Sandbox of " + sandboxId, () -> resource(sandboxId).get());
        if (current != null && !pods.ours(current)) return;
        String name = pods.podName(sandboxId);
        call("delete the Sandbox of " + sandboxId, () -> resource(sandboxId).delete());
        // the garbage collector would remove the claim too, later; deleting it here makes the purge whole at once
        call("delete the claim of " + sandboxId, () -> client.persistentVolumeClaims().inNamespace(config.namespace()).withName(claimOf(name)).delete());
        if (pool != null) pool.delete(sandboxId);
    }

    @Override
    public List<String> live() {
        return call("list the Sandboxes", () -> sandboxes().withLabels(pods.mine()).list()).getItems().stream()
                .filter(s -> !ended(s)).map(ClusterPods::sandboxOf).filter(Objects::nonNull).sorted().toList();
    }

    private void awaitPodGone(String sandboxId) {
        pods.awaitGone(sandboxId, "the pod of Sandbox " + pods.podName(sandboxId) + " was not gone after replicas 0");
    }

    private io.fabric8.kubernetes.client.dsl.NonNamespaceOperation<AgentSandbox, io.fabric8.kubernetes.api.model.KubernetesResourceList<AgentSandbox>,
            Resource<AgentSandbox>> sandboxes() {
        return client.resources(AgentSandbox.class).inNamespace(config.namespace());
    }

    private Resource<AgentSandbox> resource(String sandboxId) {
        return sandboxes().withName(pods.podName(sandboxId));
    }

    private static boolean ended(AgentSandbox s) {
        return "true".equals(annotations(s).get(ANNOTATION_ENDED));
    }
}
