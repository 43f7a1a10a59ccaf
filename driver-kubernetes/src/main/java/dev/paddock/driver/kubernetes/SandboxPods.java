package dev.paddock.driver.kubernetes;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.SandboxSpec;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.PodResource;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.net.HttpURLConnection;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster side of sandboxes: makes, finds, suspends, resumes and removes a sandbox's pod, claim and
 * NetworkPolicy in one namespace, touching only objects labelled with this installation. The pod's manifest is kept
 * in an annotation of the claim, so a resume (also by another server after a restart) makes the same pod again.
 */
final class SandboxPods implements ClusterSandboxes {
    static final String ANNOTATION_POD = "paddock.dev/pod";
    private static final Logger LOG = LoggerFactory.getLogger(SandboxPods.class);

    private final KubernetesClient client;
    private final KubernetesConfig config;
    private final SandboxObjects objects;
    /** Null where sandbox pods have no way to the egress proxy. */
    private final EgressGateway gateway;
    private final EgressHolders holders;

    SandboxPods(KubernetesClient client, KubernetesConfig config, EgressGateway gateway) {
        this.client = client;
        this.config = config;
        this.gateway = gateway;
        this.objects = new SandboxObjects(config, gateway == null ? -1 : gateway.port());
        this.holders = new EgressHolders(client, config, gateway);
    }

    @Override
    public PodExec exec(String sandboxId) {
        return new PodExec(client, config.namespace(), ObjectNames.pod(sandboxId));
    }

    /** Makes the claim, the NetworkPolicy (before the pod, so it never runs unfenced) and the pod, and waits for it to run. */
    @Override
    public void create(SandboxSpec spec, Fence fence, Limits limits) {
        String id = spec.sandboxId();
        boolean egress = spec.egress() != null;
        Pod pod = objects.pod(spec, fence, limits, egress ? EgressGateway.newToken() : null);
        PersistentVolumeClaim claim = objects.claim(id, fence);
        claim.getMetadata().getAnnotations().put(ANNOTATION_POD, client.getKubernetesSerialization().asJson(pod));
        call("create the workspace claim of " + id, () -> {
            try {
                return client.persistentVolumeClaims().inNamespace(config.namespace()).resource(claim).create();
            } catch (KubernetesClientException e) {
                if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
                    throw new PaddockException(ErrorCode.SANDBOX_EXISTS, "a kubernetes sandbox with id " + id + " exists (claim "
                            + ObjectNames.claim(id) + "); use another id or purge it");
                }
                throw e;
            }
        });
        try {
            createPolicy(id, fence, egress);
            startPod(id, pod);
        } catch (RuntimeException e) {
            try {
                release(id);
                deleteClaim(id);
            } catch (RuntimeException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
    }

    /** A policy of the same name selects the same pod (the name comes from the id): one left behind serves as well. */
    private void createPolicy(String id, Fence fence, boolean egress) {
        call("create the network policy of " + id, () -> {
            try {
                return client.network().v1().networkPolicies().inNamespace(config.namespace()).resource(objects.policy(id, fence, egress)).create();
            } catch (KubernetesClientException e) {
                if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) return null;
                throw e;
            }
        });
    }

    private void startPod(String id, Pod pod) {
        route(id, pod);
        holders.mark(pod);
        call("create the pod of " + id, () -> client.pods().inNamespace(config.namespace()).resource(pod).create());
        PodStart.await(pod(id), id, config.startTimeout());
    }

    /**
     * Lets the pod's proxy credential through the gateway to its sandbox's proxy socket (at its start, its resume,
     * and its re-attach by a restarted server: the credential and the socket's path are read back from the pod).
     */
    private void route(String id, Pod pod) {
        String token = SandboxObjects.proxyToken(pod);
        Map<String, String> annotations = annotations(pod);
        String socket = annotations.get(SandboxObjects.ANNOTATION_EGRESS_SOCKET);
        if (token == null || socket == null) return;
        if (gateway == null) {
            LOG.warn("sandbox {} was made with egress, but this server has no kubernetes egress gateway: its pod cannot reach the proxy", id);
            return;
        }
        gateway.route(id, token, Path.of(socket));
    }

    @Override
    public boolean running(String sandboxId) {
        return PodStart.running(call("read the pod of " + sandboxId, () -> pod(sandboxId).get()));
    }

    /** Whether the sandbox's claim says it is suspended (its pod deleted on purpose). */
    @Override
    public boolean suspended(String sandboxId) {
        PersistentVolumeClaim claim = call("read the claim of " + sandboxId, () -> claim(sandboxId).get());
        return claim != null && ours(claim) && "true".equals(annotations(claim).get(ObjectNames.ANNOTATION_SUSPENDED));
    }

    /** Whether this installation's pod of the sandbox runs; if so its egress is routed again (a restarted server's re-attach). */
    @Override
    public boolean ownPodRunning(String sandboxId) {
        Pod pod = call("read the pod of " + sandboxId, () -> pod(sandboxId).get());
        boolean running = pod != null && ours(pod) && PodStart.running(pod);
        if (running) {
            route(sandboxId, pod);
            holders.claim(sandboxId, pod);
        }
        return running;
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
        objects.readdress(pod, sandboxId);
        startPod(sandboxId, pod);
        annotate(sandboxId, null);
    }

    /** Deletes the pod and the NetworkPolicy; the claim (the workspace) stays. */
    @Override
    public void release(String sandboxId) {
        if (gateway != null) gateway.unroute(sandboxId);
        holders.forget(sandboxId);
        deletePod(sandboxId);
        call("delete the network policy of " + sandboxId, () -> client.network().v1().networkPolicies().inNamespace(config.namespace())
                .withName(ObjectNames.networkPolicy(sandboxId)).delete());
    }

    @Override
    public void deleteClaim(String sandboxId) {
        call("delete the claim of " + sandboxId, () -> claim(sandboxId).delete());
    }

    @Override
    public boolean podExists(String sandboxId) {
        return call("read the pod of " + sandboxId, () -> pod(sandboxId).get()) != null;
    }

    /** Sandboxes with a pod, or suspended on a claim: what a host may re-attach or reap. */
    @Override
    public List<String> live() {
        TreeSet<String> ids = new TreeSet<>();
        Map<String, String> mine = Map.of(ObjectNames.LABEL_INSTALLATION, config.installation(), ObjectNames.LABEL_MANAGED_BY, ObjectNames.MANAGED_BY);
        call("list the sandbox pods", () -> client.pods().inNamespace(config.namespace()).withLabels(mine).list())
                .getItems().stream().map(SandboxPods::sandboxOf).filter(Objects::nonNull).forEach(ids::add);
        call("list the sandbox claims", () -> client.persistentVolumeClaims().inNamespace(config.namespace()).withLabels(mine).list())
                .getItems().stream().filter(c -> "true".equals(annotations(c).get(ObjectNames.ANNOTATION_SUSPENDED)))
                .map(SandboxPods::sandboxOf).filter(Objects::nonNull).forEach(ids::add);
        return List.copyOf(ids);
    }

    private void deletePod(String sandboxId) {
        call("delete the pod of " + sandboxId, () -> pod(sandboxId).withGracePeriod(0).delete());
        // a resume makes a pod of the same name: wait until this one is gone (polling: the Role grants no watch)
        long deadline = System.nanoTime() + config.startTimeout().toNanos();
        long pause = 10;
        while (podExists(sandboxId)) {
            if (System.nanoTime() - deadline > 0) {
                throw new PaddockException(ErrorCode.CLUSTER_API_ERROR, "the pod of sandbox " + sandboxId + " was not gone within "
                        + config.startTimeout().toSeconds() + " s of its deletion");
            }
            try {
                Thread.sleep(pause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PaddockException(ErrorCode.INTERRUPTED, "interrupted while the pod of sandbox " + sandboxId + " was being deleted");
            }
            pause = Math.min(pause * 2, 500);
        }
    }

    private void annotate(String sandboxId, String suspended) {
        call("mark the claim of " + sandboxId, () -> claim(sandboxId).edit(c -> {
            if (c.getMetadata().getAnnotations() == null) c.getMetadata().setAnnotations(new HashMap<>());
            if (suspended == null) c.getMetadata().getAnnotations().remove(ObjectNames.ANNOTATION_SUSPENDED);
            else c.getMetadata().getAnnotations().put(ObjectNames.ANNOTATION_SUSPENDED, suspended);
            return c;
        }));
    }

    private PodResource pod(String sandboxId) {
        return client.pods().inNamespace(config.namespace()).withName(ObjectNames.pod(sandboxId));
    }

    private Resource<PersistentVolumeClaim> claim(String sandboxId) {
        return client.persistentVolumeClaims().inNamespace(config.namespace()).withName(ObjectNames.claim(sandboxId));
    }

    private boolean ours(HasMetadata o) {
        Map<String, String> labels = o.getMetadata().getLabels();
        return labels != null && config.installation().equals(labels.get(ObjectNames.LABEL_INSTALLATION));
    }

    private static String sandboxOf(HasMetadata o) {
        Map<String, String> labels = o.getMetadata().getLabels();
        String id = labels == null ? null : labels.get(ObjectNames.LABEL_SANDBOX);
        return ObjectNames.isSandboxId(id) ? id : null;
    }

    private static Map<String, String> annotations(HasMetadata o) {
        return o.getMetadata().getAnnotations() == null ? Map.of() : o.getMetadata().getAnnotations();
    }

    /** Runs an API call; a refusal or failure of the API server becomes {@code cluster_api_error} naming what was attempted. */
    static <T> T call(String what, Supplier<T> action) {
        try {
            return action.get();
        } catch (KubernetesClientException e) {
            String status = e.getCode() > 0 ? " (HTTP " + e.getCode() + ")" : "";
            throw new PaddockException(ErrorCode.CLUSTER_API_ERROR, "cannot " + what + status + ": " + e.getMessage(), e);
        }
    }
}
