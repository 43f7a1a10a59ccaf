package dev.paddock.driver.kubernetes;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.Fence;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.PodResource;
import java.net.HttpURLConnection;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a sandbox's pod needs whichever object makes it (the driver itself, {@link SandboxPods}, or agent-sandbox's
 * controller, {@link AgentSandboxes}): exec in it, its NetworkPolicy, the wait for it to run or to be gone, its egress
 * route through the gateway and its egress holder, and whether an object is this installation's.
 */
final class ClusterPods {
    /** Tries of an edit that keeps meeting a concurrent writer before it is given up. */
    private static final int EDIT_ATTEMPTS = 8;
    private static final Logger LOG = LoggerFactory.getLogger(ClusterPods.class);

    final KubernetesClient client;
    final KubernetesConfig config;
    final SandboxObjects objects;
    /** Null where sandbox pods have no way to the egress proxy. */
    final EgressGateway gateway;
    final EgressHolders holders;
    /** Sandbox id to its pod's name: {@link ObjectNames#pod}, but for a pod taken from a warm pool. */
    private volatile UnaryOperator<String> names = ObjectNames::pod;

    ClusterPods(KubernetesClient client, KubernetesConfig config, EgressGateway gateway) {
        this.client = client;
        this.config = config;
        this.gateway = gateway;
        this.objects = new SandboxObjects(config, gateway == null ? -1 : gateway.port());
        this.holders = new EgressHolders(client, config, gateway, this::podName);
    }

    void names(UnaryOperator<String> podNames) {
        this.names = podNames;
    }

    String podName(String sandboxId) {
        return names.apply(sandboxId);
    }

    PodExec exec(String sandboxId) {
        return new PodExec(client, config.namespace(), podName(sandboxId));
    }

    PodResource pod(String sandboxId) {
        return client.pods().inNamespace(config.namespace()).withName(podName(sandboxId));
    }

    Pod read(String sandboxId) {
        return call("read the pod of " + sandboxId, () -> pod(sandboxId).get());
    }

    boolean running(String sandboxId) {
        return PodStart.running(read(sandboxId));
    }

    boolean exists(String sandboxId) {
        return read(sandboxId) != null;
    }

    /** This installation's running pod of the sandbox, its egress routed again (a restarted server's re-attach); else null. */
    Pod reattach(String sandboxId) {
        Pod pod = read(sandboxId);
        if (pod == null || !ours(pod) || !PodStart.running(pod)) return null;
        route(sandboxId, pod);
        return pod;
    }

    /** Waits for the sandbox's pod to run; {@code sandbox_start_failed} or {@code sandbox_start_timeout} if it does not. */
    void awaitRunning(String sandboxId) {
        PodStart.await(pod(sandboxId), sandboxId, config.startTimeout());
    }

    /** Waits until the sandbox has no pod (a resume makes one of the same name). */
    void awaitGone(String sandboxId, String failure) {
        waitUntil(() -> !exists(sandboxId), failure, ErrorCode.CLUSTER_API_ERROR, sandboxId);
    }

    /** Polls (the Role grants no watch) until {@code done}, or throws {@code code} after the start timeout. */
    void waitUntil(BooleanSupplier done, String failure, ErrorCode code, String sandboxId) {
        long deadline = System.nanoTime() + config.startTimeout().toNanos();
        long pause = 10;
        while (!done.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new PaddockException(code, "sandbox " + sandboxId + ": " + failure + " within " + config.startTimeout().toSeconds() + " s");
            }
            try {
                Thread.sleep(pause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PaddockException(ErrorCode.INTERRUPTED, "interrupted while waiting for the pod of sandbox " + sandboxId);
            }
            pause = Math.min(pause * 2, 500);
        }
    }

    /** Made before the pod, so it never runs unfenced. One of the same name selects the same pod (the name comes from the id): one left behind serves as well. */
    void createPolicy(String sandboxId, Fence fence, boolean egress) {
        call("create the network policy of " + sandboxId, () -> {
            try {
                return client.network().v1().networkPolicies().inNamespace(config.namespace()).resource(objects.policy(sandboxId, fence, egress)).create();
            } catch (KubernetesClientException e) {
                if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) return null;
                throw e;
            }
        });
    }

    void deletePolicy(String sandboxId) {
        call("delete the network policy of " + sandboxId, () -> client.network().v1().networkPolicies().inNamespace(config.namespace())
                .withName(ObjectNames.networkPolicy(sandboxId)).delete());
    }

    /**
     * Lets the pod's proxy credential through the gateway to its sandbox's proxy socket (at its start, its resume,
     * and its re-attach by a restarted server: the credential and the socket's path are read back from the pod).
     */
    void route(String sandboxId, Pod pod) {
        String token = SandboxObjects.proxyToken(pod);
        String socket = annotations(pod).get(SandboxObjects.ANNOTATION_EGRESS_SOCKET);
        if (token == null || socket == null) return;
        if (gateway == null) {
            LOG.warn("sandbox {} was made with egress, but this server has no kubernetes egress gateway: its pod cannot reach the proxy", sandboxId);
            return;
        }
        gateway.route(sandboxId, token, Path.of(socket));
    }

    /** Closes the sandbox's way through this server's gateway. */
    void unroute(String sandboxId) {
        if (gateway != null) gateway.unroute(sandboxId);
        holders.forget(sandboxId);
    }

    /** Runs {@code undo} after a failed create, keeping its own failure as suppressed by the first. */
    static void undo(RuntimeException failure, Runnable undo) {
        try {
            undo.run();
        } catch (RuntimeException cleanup) {
            failure.addSuppressed(cleanup);
        }
    }

    /** The labels that select this installation's objects. */
    Map<String, String> mine() {
        return Map.of(ObjectNames.LABEL_INSTALLATION, config.installation(), ObjectNames.LABEL_MANAGED_BY, ObjectNames.MANAGED_BY);
    }

    boolean ours(HasMetadata o) {
        Map<String, String> labels = o.getMetadata().getLabels();
        return labels != null && config.installation().equals(labels.get(ObjectNames.LABEL_INSTALLATION));
    }

    /** The sandbox id an object is labelled with, or null. */
    static String sandboxOf(HasMetadata o) {
        Map<String, String> labels = o.getMetadata().getLabels();
        String id = labels == null ? null : labels.get(ObjectNames.LABEL_SANDBOX);
        return ObjectNames.isSandboxId(id) ? id : null;
    }

    static Map<String, String> annotations(HasMetadata o) {
        return o.getMetadata().getAnnotations() == null ? Map.of() : o.getMetadata().getAnnotations();
    }

    /**
     * Runs an edit (read, change, write back with the read's resourceVersion) as {@link #call} does, again while the
     * write meets 409: another writer (the agent-sandbox controller updating a Sandbox's status, the kubelet a pod's)
     * changed the object between the read and the write, which on a live cluster is routine, not a failure.
     */
    static <T> T edit(String what, Supplier<T> action) {
        return call(what, () -> {
            for (int attempt = 1; ; attempt++) {
                try {
                    return action.get();
                } catch (KubernetesClientException e) {
                    if (e.getCode() != HttpURLConnection.HTTP_CONFLICT || attempt >= EDIT_ATTEMPTS) throw e;
                }
            }
        });
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
