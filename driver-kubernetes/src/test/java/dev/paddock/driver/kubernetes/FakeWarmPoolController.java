package dev.paddock.driver.kubernetes;

import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A FAKE of agent-sandbox's extensions controller (SandboxTemplate, SandboxWarmPool, SandboxClaim in
 * {@code extensions.agents.x-k8s.io/v1alpha1}), for tests against fabric8's mock API server, beside
 * {@link FakeAgentSandboxController} which makes the pods of the Sandboxes made here. Written from the real
 * controller's source: a SandboxWarmPool keeps {@code spec.replicas} Sandboxes of its template (named
 * {@code <pool>-<suffix>}, owned by the pool, labelled {@link #POOL_LABEL}); a SandboxClaim naming the pool in
 * {@code spec.warmpool} takes one of them, a ready one first (its pod running), unready else: the Sandbox keeps its
 * name, loses the pool label, gets the claim as its owner, and the claim's {@code status.sandbox.name} names it; the
 * pool makes another. With no pool Sandbox left, the claim gets a new Sandbox named as the claim. Deleting a claim
 * deletes its Sandbox (the garbage collector's part). The label name is this fake's: the real controller has its own.
 */
final class FakeWarmPoolController implements AutoCloseable {
    static final String POOL_LABEL = "agents.x-k8s.io/fake-warm-pool";

    private final KubernetesClient client;
    private final String namespace;
    private final List<Watch> watches = new ArrayList<>();
    private final AtomicInteger suffix = new AtomicInteger();
    private final FakeReconciler reconciler = new FakeReconciler("fake warm pool controller");

    FakeWarmPoolController(KubernetesClient client, String namespace) {
        this.client = client;
        this.namespace = namespace;
        for (String[] r : List.of(new String[] {"SandboxTemplate", "sandboxtemplates"}, new String[] {"SandboxWarmPool", "sandboxwarmpools"},
                new String[] {"SandboxClaim", "sandboxclaims"})) {
            client.apiextensions().v1().customResourceDefinitions().resource(crd(r[0], r[1])).create();
        }
        watches.add(client.resources(SandboxWarmPoolObject.class).inNamespace(namespace).watch(watcher(p -> refill(p.getMetadata().getName()))));
        watches.add(client.resources(SandboxClaimObject.class).inNamespace(namespace).watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, SandboxClaimObject claim) {
                String name = claim.getMetadata().getName();
                if (action == Action.DELETED) reconciler.run("the release of claim " + name, () -> release(claim));
                else reconciler.run("claim " + name, () -> bind(name));
            }

            @Override
            public void onClose(WatcherException cause) {}
        }));
    }

    private <T extends HasMetadata> Watcher<T> watcher(java.util.function.Consumer<T> onChange) {
        return new Watcher<>() {
            @Override
            public void eventReceived(Action action, T object) {
                if (action != Action.DELETED) reconciler.run(object.getKind() + " " + object.getMetadata().getName(), () -> onChange.accept(object));
            }

            @Override
            public void onClose(WatcherException cause) {}
        };
    }

    static CustomResourceDefinition crd(String kind, String plural) {
        return new CustomResourceDefinitionBuilder()
                .withNewMetadata().withName(plural + "." + WarmPoolApi.GROUP).endMetadata()
                .withNewSpec().withGroup(WarmPoolApi.GROUP).withScope("Namespaced")
                    .withNewNames().withKind(kind).withListKind(kind + "List").withPlural(plural).withSingular(kind.toLowerCase(java.util.Locale.ROOT)).endNames()
                    .addNewVersion().withName(WarmPoolApi.VERSION).withServed(true).withStorage(true)
                        .withNewSubresources().withNewStatus().endStatus().endSubresources().endVersion()
                .endSpec().build();
    }

    /** Makes pool Sandboxes until the pool has {@code spec.replicas} unclaimed ones. */
    private void refill(String poolName) {
        SandboxWarmPoolObject pool = client.resources(SandboxWarmPoolObject.class).inNamespace(namespace).withName(poolName).get();
        if (pool == null || pool.getSpec() == null || pool.getSpec().replicas == null) return;
        SandboxTemplateObject template = client.resources(SandboxTemplateObject.class).inNamespace(namespace).withName(pool.getSpec().sandboxTemplateRef.name).get();
        if (template == null) return;
        for (int have = members(poolName).size(); have < pool.getSpec().replicas; have++) {
            AgentSandbox sandbox = fromTemplate(template, poolName + "-" + String.format("%05d", suffix.incrementAndGet()), owner(pool));
            sandbox.getMetadata().getLabels().put(POOL_LABEL, poolName);
            client.resources(AgentSandbox.class).inNamespace(namespace).resource(sandbox).create();
        }
    }

    private List<AgentSandbox> members(String poolName) {
        return client.resources(AgentSandbox.class).inNamespace(namespace).withLabel(POOL_LABEL, poolName).list().getItems().stream()
                .filter(s -> s.getMetadata().getDeletionTimestamp() == null).sorted(Comparator.comparing(s -> s.getMetadata().getName())).toList();
    }

    private AgentSandbox fromTemplate(SandboxTemplateObject template, String name, OwnerReference owner) {
        AgentSandbox sandbox = new AgentSandbox();
        sandbox.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(namespace).withLabels(new LinkedHashMap<>())
                .withOwnerReferences(owner).build());
        AgentSandbox.Spec spec = new AgentSandbox.Spec();
        spec.podTemplate = client.getKubernetesSerialization().clone(template.getSpec().podTemplate);
        spec.volumeClaimTemplates = new ArrayList<>(template.getSpec().volumeClaimTemplates);
        spec.replicas = 1;
        sandbox.setSpec(spec);
        return sandbox;
    }

    /** Binds an unbound claim: a pool Sandbox (ready first), else a new one named as the claim. */
    private void bind(String claimName) {
        SandboxClaimObject claim = client.resources(SandboxClaimObject.class).inNamespace(namespace).withName(claimName).get();
        if (claim == null || claim.getMetadata().getDeletionTimestamp() != null || claim.boundSandbox() != null) return;
        String poolName = claim.getSpec().warmpool;
        AgentSandbox taken = null;
        if (poolName != null && !"none".equals(poolName)) {
            List<AgentSandbox> members = members(poolName);
            taken = members.stream().filter(this::ready).findFirst().orElse(members.isEmpty() ? null : members.getFirst());
        }
        String name;
        if (taken != null) {
            name = taken.getMetadata().getName();
            client.resources(AgentSandbox.class).inNamespace(namespace).withName(name).edit(s -> {
                s.getMetadata().getLabels().remove(POOL_LABEL);
                s.getMetadata().setOwnerReferences(List.of(owner(claim)));
                return s;
            });
        } else {
            SandboxTemplateObject template = client.resources(SandboxTemplateObject.class).inNamespace(namespace)
                    .withName(claim.getSpec().sandboxTemplateRef.name).get();
            if (template == null) return;
            name = claimName;
            client.resources(AgentSandbox.class).inNamespace(namespace).resource(fromTemplate(template, name, owner(claim))).create();
        }
        claim.setStatus(new SandboxClaimObject.Status());
        claim.getStatus().sandbox = new SandboxClaimObject.BoundSandbox();
        claim.getStatus().sandbox.name = name;
        claim.getStatus().conditions.add(new ConditionBuilder().withType("Ready").withStatus("True").withReason("SandboxReady").build());
        client.resources(SandboxClaimObject.class).inNamespace(namespace).resource(claim).updateStatus();
        if (taken != null) refill(poolName);
    }

    private boolean ready(AgentSandbox sandbox) {
        Pod pod = client.pods().inNamespace(namespace).withName(sandbox.getMetadata().getName()).get();
        return PodStart.running(pod);
    }

    /** What the garbage collector does when a claim is deleted: its Sandbox goes (and with it, its pod and claims). */
    private void release(SandboxClaimObject claim) {
        for (AgentSandbox s : client.resources(AgentSandbox.class).inNamespace(namespace).list().getItems()) {
            if (ownedBy(s, claim)) client.resources(AgentSandbox.class).inNamespace(namespace).withName(s.getMetadata().getName()).delete();
        }
    }

    private static OwnerReference owner(HasMetadata o) {
        return new OwnerReferenceBuilder().withApiVersion(WarmPoolApi.GROUP + "/" + WarmPoolApi.VERSION).withKind(o.getKind())
                .withName(o.getMetadata().getName()).withUid(o.getMetadata().getUid()).withController(true).withBlockOwnerDeletion(true).build();
    }

    private static boolean ownedBy(HasMetadata o, HasMetadata owner) {
        return o.getMetadata().getOwnerReferences().stream().anyMatch(r -> Boolean.TRUE.equals(r.getController())
                && Objects.equals(r.getUid(), owner.getMetadata().getUid()));
    }

    @Override
    public void close() {
        reconciler.close();
        watches.forEach(Watch::close);
    }
}
