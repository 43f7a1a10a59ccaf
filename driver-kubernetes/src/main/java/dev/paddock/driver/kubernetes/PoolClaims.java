package dev.paddock.driver.kubernetes;

import static dev.paddock.driver.kubernetes.ClusterPods.annotations;
import static dev.paddock.driver.kubernetes.ClusterPods.call;
import static dev.paddock.driver.kubernetes.ClusterPods.edit;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.SandboxSpec;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import java.io.ByteArrayInputStream;
import java.net.HttpURLConnection;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Sandboxes taken from a warm pool (agent-sandbox's extensions): at start the driver keeps one
 * {@code SandboxTemplate} and one {@code SandboxWarmPool} of the configured shape, and a NetworkPolicy that fences
 * every pool pod from its start (only the egress proxy's port, where the server has one; nothing else). A create of
 * that shape makes a {@code SandboxClaim} named as the sandbox's pod would be; the controller binds it to a ready pool
 * Sandbox (its name unchanged) or makes one. Only then does the pod get what is the request's own: Paddock's labels
 * and annotations (on the Sandbox, its pod template and the running pod), and, written through the exec API, the CA
 * bundle and a file of environment variables ({@link PodExec#ENV_FILE}: the proxy URL with the sandbox's own
 * credential, the request's variables) that every command starts with. A pool pod nobody claimed has no credential,
 * so the egress gateway lets nothing of it through.
 */
final class PoolClaims {
    /** On the claim: the request's variables (JSON), given again to a resumed pod. */
    static final String ANNOTATION_ENV = "paddock.dev/env";
    /** On the claim: the installation CA (public) the pod's bundle holds. */
    static final String ANNOTATION_CA = "paddock.dev/egress-ca";
    private static final String WRITE_FILE = "umask 077; head -c \"$2\" > \"$1.new\" && mv -f \"$1.new\" \"$1\"";
    private static final String WRITE_BUNDLE = "{ cat /etc/ssl/certs/ca-certificates.crt 2>/dev/null; head -c \"$2\"; echo; } > \"$1.new\" && mv -f \"$1.new\" \"$1\"";

    private final ClusterPods pods;
    private final WarmPoolShape pool;
    private final String name;
    /** Sandbox id to the name of its Sandbox and pod ("" where the sandbox was not claimed: its objects have their usual name). */
    private final Map<String, String> bound = new ConcurrentHashMap<>();

    PoolClaims(ClusterPods pods, WarmPoolShape pool) {
        this.pods = pods;
        this.pool = pool;
        this.name = ObjectNames.pool(pods.config.installation());
    }

    String name() {
        return name;
    }

    /** Makes (or brings up to date) the pool's fence, template and SandboxWarmPool; the fence first, so no pool pod runs unfenced. */
    void ensure() {
        String ns = pods.config.namespace();
        var fence = pods.objects.poolFence(name);
        upsert("the warm pool's network policy", pods.client.network().v1().networkPolicies().inNamespace(ns), fence,
                current -> current.setSpec(fence.getSpec()));
        SandboxTemplateObject template = new SandboxTemplateObject();
        template.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(ns).withLabels(pods.mine()).build());
        template.setSpec(new SandboxTemplateObject.Spec());
        Pod pod = pods.objects.poolPod(name, pool);
        template.getSpec().podTemplate = new AgentSandbox.PodTemplate();
        template.getSpec().podTemplate.metadata.labels.putAll(pod.getMetadata().getLabels());
        template.getSpec().podTemplate.spec = pod.getSpec();
        AgentSandbox.ClaimTemplate workspace = AgentSandboxes.claimTemplate(pods.objects.claim("pool", null, pool.limits()));
        workspace.metadata.labels.clear();
        workspace.metadata.labels.putAll(pods.objects.poolSelector(name));
        template.getSpec().volumeClaimTemplates.add(workspace);
        upsert("the warm pool's SandboxTemplate", pods.client.resources(SandboxTemplateObject.class).inNamespace(ns), template,
                current -> current.setSpec(template.getSpec()));
        SandboxWarmPoolObject warm = new SandboxWarmPoolObject();
        warm.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(ns).withLabels(pods.mine()).build());
        warm.setSpec(new SandboxWarmPoolObject.Spec());
        warm.getSpec().replicas = pool.size();
        warm.getSpec().sandboxTemplateRef.name = name;
        upsert("the SandboxWarmPool", pods.client.resources(SandboxWarmPoolObject.class).inNamespace(ns), warm,
                current -> current.setSpec(warm.getSpec()));
    }

    /** Creates the object, or where it exists brings it up to date (a restarted server, or a changed setting). */
    private <T extends HasMetadata> void upsert(String what, NonNamespaceOperation<T, ?, Resource<T>> op, T object, Consumer<T> update) {
        call("create " + what, () -> {
            try {
                return op.resource(object).create();
            } catch (KubernetesClientException e) {
                if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) throw e;
                return op.withName(object.getMetadata().getName()).edit(current -> {
                    update.accept(current);
                    return current;
                });
            }
        });
    }

    boolean fits(SandboxSpec spec, Limits limits) {
        return pool.fits(spec, limits, pods.config.egress() != null);
    }

    /** The name of the sandbox's Sandbox and pod: its claim's Sandbox where it was claimed, else the usual one. */
    String podName(String sandboxId) {
        String known = bound.get(sandboxId);
        if (known == null) {
            SandboxClaimObject claim = call("read the SandboxClaim of " + sandboxId, () -> claim(sandboxId).get());
            if (claim == null) {
                // made without the pool (or not at all): its objects have their usual name
                bound.putIfAbsent(sandboxId, "");
                return ObjectNames.pod(sandboxId);
            }
            String got = pods.ours(claim) ? claim.boundSandbox() : null;
            // not bound yet (a create under way names it itself): the usual name for now, and ask again later
            if (got == null) return ObjectNames.pod(sandboxId);
            bound.putIfAbsent(sandboxId, got);
            known = got;
        }
        return known.isEmpty() ? ObjectNames.pod(sandboxId) : known;
    }

    /** Forgets what is known of a sandbox's name (its objects are gone). */
    void forget(String sandboxId) {
        bound.remove(sandboxId);
    }

    boolean claimed(String sandboxId) {
        return !podName(sandboxId).equals(ObjectNames.pod(sandboxId));
    }

    /**
     * Claims a pool Sandbox for the sandbox and makes it the sandbox's: labels, annotations, environment. {@code mark}
     * names this server the egress holder in the Sandbox's pod template. A failed claim deletes the claim (and with it
     * what the controller made for it).
     */
    void create(SandboxSpec spec, Fence fence, Consumer<AgentSandbox> mark) {
        String id = spec.sandboxId();
        String token = spec.egress() != null ? EgressGateway.newToken() : null;
        SandboxClaimObject claim = new SandboxClaimObject();
        Map<String, String> labels = labels(id, fence);
        Map<String, String> claimAnnotations = new LinkedHashMap<>();
        claimAnnotations.put(ObjectNames.LABEL_FENCE_OWNER, fence.ownerId());
        claimAnnotations.put(ANNOTATION_ENV, pods.client.getKubernetesSerialization().asJson(requestEnv(spec)));
        if (spec.egress() != null && spec.egress().caCertificatePem() != null) claimAnnotations.put(ANNOTATION_CA, spec.egress().caCertificatePem());
        claim.setMetadata(new ObjectMetaBuilder().withName(ObjectNames.pod(id)).withNamespace(pods.config.namespace()).withLabels(labels)
                .withAnnotations(claimAnnotations).build());
        claim.setSpec(new SandboxClaimObject.Spec());
        claim.getSpec().sandboxTemplateRef.name = name;
        claim.getSpec().warmpool = name;
        call("create the SandboxClaim of " + id, () -> {
            try {
                return claims().inNamespace(pods.config.namespace()).resource(claim).create();
            } catch (KubernetesClientException e) {
                if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
                    throw new PaddockException(ErrorCode.SANDBOX_EXISTS, "a kubernetes sandbox with id " + id + " exists (SandboxClaim "
                            + ObjectNames.pod(id) + "); use another id or purge it");
                }
                throw e;
            }
        });
        try {
            String[] got = new String[1];
            pods.waitUntil(() -> {
                SandboxClaimObject c = call("read the SandboxClaim of " + id, () -> claim(id).get());
                got[0] = c == null ? null : c.boundSandbox();
                return got[0] != null;
            }, "the agent-sandbox controller bound no Sandbox to SandboxClaim " + ObjectNames.pod(id) + " (is its extensions controller running?)",
                    ErrorCode.SANDBOX_START_TIMEOUT, id);
            bound.put(id, got[0]);
            adopt(id, labels, fence, spec, token, mark);
            pods.awaitRunning(id);
            giveEnvironment(id);
        } catch (RuntimeException e) {
            ClusterPods.undo(e, () -> {
                pods.unroute(id);
                delete(id);
            });
            throw e;
        }
    }

    /** Paddock's labels and annotations on the bound Sandbox (and its pod template, for a pod made again) and on its pod. */
    private void adopt(String id, Map<String, String> labels, Fence fence, SandboxSpec spec, String token, Consumer<AgentSandbox> mark) {
        Map<String, String> podAnnotations = new LinkedHashMap<>();
        podAnnotations.put(ObjectNames.LABEL_FENCE_OWNER, fence.ownerId());
        if (token != null) {
            podAnnotations.put(SandboxObjects.ANNOTATION_EGRESS_SOCKET, spec.egress().socketDir() + "/" + spec.egress().socketName());
            podAnnotations.put(SandboxObjects.ANNOTATION_EGRESS_TOKEN, token);
        }
        AgentSandbox adopted = edit("adopt the Sandbox of " + id, () -> pods.client.resources(AgentSandbox.class).inNamespace(pods.config.namespace())
                .withName(bound.get(id)).edit(s -> {
                    if (s.getMetadata().getLabels() == null) s.getMetadata().setLabels(new HashMap<>());
                    s.getMetadata().getLabels().putAll(labels);
                    if (s.getMetadata().getAnnotations() == null) s.getMetadata().setAnnotations(new HashMap<>());
                    s.getMetadata().getAnnotations().put(ObjectNames.LABEL_FENCE_OWNER, fence.ownerId());
                    s.getSpec().podTemplate.metadata.labels.putAll(labels);
                    s.getSpec().podTemplate.metadata.annotations.putAll(podAnnotations);
                    mark.accept(s);
                    return s;
                }));
        pods.waitUntil(() -> pods.exists(id), "the agent-sandbox controller made no pod for Sandbox " + bound.get(id),
                ErrorCode.SANDBOX_START_TIMEOUT, id);
        Pod pod = edit("adopt the pod of " + id, () -> pods.pod(id).edit(p -> {
            p.getMetadata().getLabels().putAll(labels);
            if (p.getMetadata().getAnnotations() == null) p.getMetadata().setAnnotations(new HashMap<>());
            p.getMetadata().getAnnotations().putAll(podAnnotations);
            p.getMetadata().getAnnotations().putAll(adopted.getSpec().podTemplate.metadata.annotations);
            return p;
        }));
        pods.route(id, pod);
    }

    /**
     * Writes the sandbox's CA bundle and its environment file into its running pod (at its claim, and again after a
     * resume, since both live in memory volumes of the pod). The proxy URL is this server's: a resume by another
     * server points it there.
     */
    void giveEnvironment(String id) {
        SandboxClaimObject claim = call("read the SandboxClaim of " + id, () -> claim(id).get());
        Pod pod = pods.read(id);
        if (claim == null || pod == null) throw new PaddockException(ErrorCode.SANDBOX_UNREACHABLE, "sandbox " + id + ": its SandboxClaim or pod is gone");
        @SuppressWarnings("unchecked")
        Map<String, String> requestEnv = pods.client.getKubernetesSerialization().unmarshal(annotations(claim).getOrDefault(ANNOTATION_ENV, "{}"), Map.class);
        String token = SandboxObjects.proxyToken(pod);
        String proxyUrl = token == null || pods.config.egress() == null ? null : pods.objects.proxyUrl(id, token);
        PodExec exec = pods.exec(id);
        String ca = annotations(claim).get(ANNOTATION_CA);
        if (proxyUrl != null && ca != null) write(exec, WRITE_BUNDLE, SandboxObjects.CA_BUNDLE, ca.getBytes(StandardCharsets.UTF_8), "the CA bundle");
        byte[] env = SandboxObjects.envScript(SandboxObjects.environment(requestEnv, proxyUrl)).getBytes(StandardCharsets.UTF_8);
        write(exec, WRITE_FILE, PodExec.ENV_FILE, env, "the environment file");
    }

    private static void write(PodExec exec, String script, String path, byte[] bytes, String what) {
        PodExec.Result r = exec.run(List.of("/bin/sh", "-c", script, "paddock-write", path, Integer.toString(bytes.length)), new ByteArrayInputStream(bytes));
        if (r.exitCode() != 0) throw new PaddockException(ErrorCode.SANDBOX_START_FAILED, "writing " + what + " into the pod failed (exit code " + r.exitCode() + "): " + r.stderr());
    }

    /** The request's variables and the credential placeholders, in that order (placeholders win). */
    private static Map<String, String> requestEnv(SandboxSpec spec) {
        Map<String, String> env = new LinkedHashMap<>(spec.env());
        if (spec.egress() != null) env.putAll(spec.egress().env());
        return env;
    }

    private Map<String, String> labels(String id, Fence fence) {
        Map<String, String> labels = pods.objects.selector(id);
        labels.put(ObjectNames.LABEL_FENCE_GENERATION, Long.toString(fence.generation()));
        return labels;
    }

    /** Deletes the sandbox's SandboxClaim (the cluster's garbage collector removes the Sandbox it owns). */
    void delete(String id) {
        SandboxClaimObject current = call("read the SandboxClaim of " + id, () -> claim(id).get());
        if (current != null && pods.ours(current)) call("delete the SandboxClaim of " + id, () -> claim(id).delete());
        bound.remove(id);
    }

    private MixedOperation<SandboxClaimObject, KubernetesResourceList<SandboxClaimObject>, Resource<SandboxClaimObject>> claims() {
        return pods.client.resources(SandboxClaimObject.class);
    }

    private Resource<SandboxClaimObject> claim(String id) {
        return claims().inNamespace(pods.config.namespace()).withName(ObjectNames.pod(id));
    }
}
