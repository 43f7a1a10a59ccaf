package dev.paddock.driver.kubernetes;

import static dev.paddock.driver.kubernetes.ClusterPods.call;
import static dev.paddock.driver.kubernetes.ClusterPods.edit;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which server holds a sandbox's proxy listener, whichever objects the sandbox is made of: the pod of a sandbox
 * with egress carries {@link #ANNOTATION} ({@code host:port} of that server's gateway as other servers reach it), set
 * when the pod is made (on the Pod, or on a Sandbox's pod template) and when a server takes the sandbox over. A
 * server whose gateway receives a pod's connection for a sandbox it does not route reads it here and relays there:
 * a pod keeps dialing the same address (the Service) whichever server holds it.
 */
final class EgressHolders {
    /** On a pod with egress: host:port of the gateway of the server holding its proxy listener (other servers relay there). */
    static final String ANNOTATION = "paddock.dev/egress-holder";
    private static final long CACHE_NANOS = 5_000_000_000L;
    private static final int CACHE_MAX = 4096;
    private static final Logger LOG = LoggerFactory.getLogger(EgressHolders.class);

    private final KubernetesClient client;
    private final KubernetesConfig config;
    /** This server's gateway as other servers reach it; null without a gateway. */
    private final String advertised;
    private record Known(EgressGateway.Holder holder, long until) {}
    private final Map<String, Known> known = new ConcurrentHashMap<>();
    /** Sandbox id to its pod's name. */
    private final UnaryOperator<String> podNames;

    /** Answers {@code gateway}'s holder lookups (where it has one and an address to advertise). */
    EgressHolders(KubernetesClient client, KubernetesConfig config, EgressGateway gateway, UnaryOperator<String> podNames) {
        this.client = client;
        this.config = config;
        this.podNames = podNames;
        PodEgress e = config.egress();
        this.advertised = gateway == null || e == null ? null : e.advertiseHost() + ":" + (e.advertisePort() == 0 ? gateway.port() : e.advertisePort());
        if (advertised != null) gateway.holders(this::find);
    }

    /**
     * Names this server the holder in a pod (or pod template) about to be made, where the pod has egress; where this
     * server has no gateway, names none (a template resumed here must not keep naming the server that made it).
     */
    void mark(Pod pod) {
        if (pod.getMetadata().getAnnotations() == null) pod.getMetadata().setAnnotations(new HashMap<>());
        if (advertised == null || SandboxObjects.proxyToken(pod) == null) pod.getMetadata().getAnnotations().remove(ANNOTATION);
        else pod.getMetadata().getAnnotations().put(ANNOTATION, advertised);
    }

    /** Whether a running pod with egress names another server (or none) as its holder: a takeover must re-point it. */
    boolean needsClaim(Pod pod) {
        return advertised != null && SandboxObjects.proxyToken(pod) != null && !advertised.equals(annotations(pod).get(ANNOTATION));
    }

    /** Marks this server as the holder of a re-attached, running pod, so other servers relay its connections here. */
    void claim(String sandboxId, Pod pod) {
        if (!needsClaim(pod)) return;
        edit("mark this server as the egress holder of " + sandboxId, () -> client.pods().inNamespace(config.namespace())
                .withName(podNames.apply(sandboxId)).edit(p -> {
                    mark(p);
                    return p;
                }));
        known.remove(sandboxId);
    }

    void forget(String sandboxId) {
        known.remove(sandboxId);
    }

    /**
     * The other server holding a sandbox's proxy listener, from its pod (this installation's, with egress), for the
     * gateway's relay; null when there is none or it is this server. Kept a few seconds: a sandbox's connections come
     * in bursts, and each would be an API call.
     */
    EgressGateway.Holder find(String sandboxId, boolean fresh) {
        if (!ObjectNames.isSandboxId(sandboxId)) return null;
        long now = System.nanoTime();
        Known cached = known.get(sandboxId);
        if (!fresh && cached != null && cached.until() - now > 0) return cached.holder();
        Pod pod = call("read the pod of " + sandboxId, () -> client.pods().inNamespace(config.namespace()).withName(podNames.apply(sandboxId)).get());
        String token = pod == null || !ours(pod) ? null : SandboxObjects.proxyToken(pod);
        String at = token == null ? null : annotations(pod).get(ANNOTATION);
        EgressGateway.Holder holder = null;
        if (at != null && !at.equals(advertised)) {
            try {
                PodEgress.HostPort hp = PodEgress.hostPort(ANNOTATION, at);
                holder = new EgressGateway.Holder(token.getBytes(StandardCharsets.US_ASCII), hp.host(), hp.port());
            } catch (IllegalArgumentException malformed) {
                LOG.warn("the pod of sandbox {} names no usable egress holder ({})", sandboxId, malformed.getMessage());
            }
        }
        if (known.size() >= CACHE_MAX) known.clear();
        known.put(sandboxId, new Known(holder, now + CACHE_NANOS));
        return holder;
    }

    private boolean ours(HasMetadata o) {
        Map<String, String> labels = o.getMetadata().getLabels();
        return labels != null && config.installation().equals(labels.get(ObjectNames.LABEL_INSTALLATION));
    }

    private static Map<String, String> annotations(HasMetadata o) {
        return o.getMetadata().getAnnotations() == null ? Map.of() : o.getMetadata().getAnnotations();
    }
}
