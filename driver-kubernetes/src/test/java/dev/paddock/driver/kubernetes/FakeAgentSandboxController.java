package dev.paddock.driver.kubernetes;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A FAKE of kubernetes-sigs/agent-sandbox's controller, for tests against fabric8's mock API server, where no
 * controller runs. It does what the real controller (v0.1, {@code agents.x-k8s.io/v1alpha1}) does with a
 * {@code Sandbox}: makes each claim of {@code spec.volumeClaimTemplates} as {@code <template>-<sandbox>}, a headless
 * Service named as the Sandbox, and a pod named as the Sandbox from {@code spec.podTemplate} with a volume per claim
 * template and the label {@code agents.x-k8s.io/sandbox-name-hash}, all owned by the Sandbox; at {@code replicas: 0}
 * it deletes the pod and keeps the claims; and it writes {@code status.replicas}, {@code selector} and
 * {@code service}. Deleting a Sandbox removes what it owns, as the cluster's garbage collector would. It also
 * installs the Sandbox CRD, so API discovery shows the group. Warm pools and claims are not faked: the driver does not
 * use them.
 */
final class FakeAgentSandboxController implements AutoCloseable {
    static final String NAME_HASH_LABEL = "agents.x-k8s.io/sandbox-name-hash";

    private final KubernetesClient client;
    private final String namespace;
    private final Watch watch;
    private final FakeReconciler reconciler = new FakeReconciler("fake agent-sandbox controller");

    FakeAgentSandboxController(KubernetesClient client, String namespace) {
        this.client = client;
        this.namespace = namespace;
        client.apiextensions().v1().customResourceDefinitions().resource(crd()).create();
        this.watch = client.resources(AgentSandbox.class).inNamespace(namespace).watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, AgentSandbox sandbox) {
                String name = sandbox.getMetadata().getName();
                switch (action) {
                    case ADDED, MODIFIED -> reconciler.run("Sandbox " + name, () -> reconcile(sandbox));
                    case DELETED -> reconciler.run("the deletion of Sandbox " + name, () -> collect(sandbox));
                    default -> { }
                }
            }

            @Override
            public void onClose(WatcherException cause) {}
        });
    }

    /** The Sandbox CRD as agent-sandbox ships it, less the schema (the mock API server does not validate). */
    static CustomResourceDefinition crd() {
        return new CustomResourceDefinitionBuilder()
                .withNewMetadata().withName(AgentSandboxApi.RESOURCE + "." + AgentSandboxApi.GROUP).endMetadata()
                .withNewSpec().withGroup(AgentSandboxApi.GROUP).withScope("Namespaced")
                    .withNewNames().withKind("Sandbox").withListKind("SandboxList").withPlural(AgentSandboxApi.RESOURCE)
                        .withSingular("sandbox").withShortNames("sandbox").endNames()
                    .addNewVersion().withName(AgentSandboxApi.VERSION).withServed(true).withStorage(true)
                        .withNewSubresources().withNewStatus().endStatus().endSubresources().endVersion()
                .endSpec().build();
    }

    private void reconcile(AgentSandbox event) {
        // as the real one, from the object as it is now, not as the event saw it
        AgentSandbox sandbox = client.resources(AgentSandbox.class).inNamespace(namespace).withName(event.getMetadata().getName()).get();
        if (sandbox == null || sandbox.getMetadata().getDeletionTimestamp() != null || sandbox.getSpec() == null) return;
        String name = sandbox.getMetadata().getName();
        String hash = nameHash(name);
        for (AgentSandbox.ClaimTemplate t : sandbox.getSpec().volumeClaimTemplates) {
            String claim = t.metadata.name + "-" + name;
            if (client.persistentVolumeClaims().inNamespace(namespace).withName(claim).get() == null) {
                PersistentVolumeClaim pvc = new PersistentVolumeClaimBuilder()
                        .withMetadata(new ObjectMetaBuilder().withName(claim).withNamespace(namespace).withOwnerReferences(owner(sandbox)).build())
                        .withSpec(t.spec).build();
                client.persistentVolumeClaims().inNamespace(namespace).resource(pvc).create();
            }
        }
        if (client.services().inNamespace(namespace).withName(name).get() == null) {
            Service service = new ServiceBuilder()
                    .withMetadata(new ObjectMetaBuilder().withName(name).withNamespace(namespace).addToLabels(NAME_HASH_LABEL, hash)
                            .withOwnerReferences(owner(sandbox)).build())
                    .withNewSpec().withClusterIP("None").addToSelector(NAME_HASH_LABEL, hash).endSpec().build();
            client.services().inNamespace(namespace).resource(service).create();
        }
        boolean wanted = !Objects.equals(sandbox.getSpec().replicas, 0);
        Pod pod = client.pods().inNamespace(namespace).withName(name).get();
        if (!wanted && pod != null && ownedBy(pod, sandbox)) {
            client.pods().inNamespace(namespace).withName(name).delete();
        } else if (wanted && pod == null) {
            client.pods().inNamespace(namespace).resource(pod(sandbox, hash)).create();
        }
        AgentSandbox.Status status = sandbox.getStatus() == null ? new AgentSandbox.Status() : sandbox.getStatus();
        int replicas = wanted ? 1 : 0;
        if (!Objects.equals(status.replicas, replicas) || status.service == null) {
            status.replicas = replicas;
            status.selector = NAME_HASH_LABEL + "=" + hash;
            status.service = name;
            status.serviceFQDN = name + "." + namespace + ".svc.cluster.local";
            sandbox.setStatus(status);
            client.resources(AgentSandbox.class).inNamespace(namespace).resource(sandbox).updateStatus();
        }
    }

    /** The pod of the template: its labels plus the name hash, a volume per claim template, owned by the Sandbox. */
    private Pod pod(AgentSandbox sandbox, String hash) {
        String name = sandbox.getMetadata().getName();
        Map<String, String> labels = new LinkedHashMap<>(sandbox.getSpec().podTemplate.metadata.labels);
        labels.put(NAME_HASH_LABEL, hash);
        PodSpec spec = client.getKubernetesSerialization().clone(sandbox.getSpec().podTemplate.spec);
        List<Volume> volumes = new ArrayList<>(spec.getVolumes());
        for (AgentSandbox.ClaimTemplate t : sandbox.getSpec().volumeClaimTemplates) {
            volumes.removeIf(v -> v.getName().equals(t.metadata.name));
            volumes.add(new VolumeBuilder().withName(t.metadata.name).withNewPersistentVolumeClaim().withClaimName(t.metadata.name + "-" + name)
                    .endPersistentVolumeClaim().build());
        }
        spec.setVolumes(volumes);
        Pod pod = new Pod();
        pod.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(namespace).withLabels(labels)
                .withAnnotations(new LinkedHashMap<>(sandbox.getSpec().podTemplate.metadata.annotations)).withOwnerReferences(owner(sandbox)).build());
        pod.setSpec(spec);
        return pod;
    }

    /** What the garbage collector does when a Sandbox is deleted: everything it owns goes. */
    private void collect(AgentSandbox sandbox) {
        String name = sandbox.getMetadata().getName();
        Pod pod = client.pods().inNamespace(namespace).withName(name).get();
        if (pod != null && ownedBy(pod, sandbox)) client.pods().inNamespace(namespace).withName(name).delete();
        Service service = client.services().inNamespace(namespace).withName(name).get();
        if (service != null && ownedBy(service, sandbox)) client.services().inNamespace(namespace).withName(name).delete();
        if (sandbox.getSpec() == null) return;
        for (AgentSandbox.ClaimTemplate t : sandbox.getSpec().volumeClaimTemplates) {
            PersistentVolumeClaim pvc = client.persistentVolumeClaims().inNamespace(namespace).withName(t.metadata.name + "-" + name).get();
            if (pvc != null && ownedBy(pvc, sandbox)) client.persistentVolumeClaims().inNamespace(namespace).withName(pvc.getMetadata().getName()).delete();
        }
    }

    private static OwnerReference owner(AgentSandbox sandbox) {
        return new OwnerReferenceBuilder().withApiVersion(AgentSandboxApi.GROUP + "/" + AgentSandboxApi.VERSION).withKind("Sandbox")
                .withName(sandbox.getMetadata().getName()).withUid(sandbox.getMetadata().getUid()).withController(true)
                .withBlockOwnerDeletion(true).build();
    }

    private static boolean ownedBy(HasMetadata o, AgentSandbox sandbox) {
        return o.getMetadata().getOwnerReferences().stream().anyMatch(r -> Boolean.TRUE.equals(r.getController())
                && Objects.equals(r.getUid(), sandbox.getMetadata().getUid()));
    }

    /** The controller's label value: FNV-1a (32 bit) of the Sandbox's name, as 8 hex digits. */
    static String nameHash(String name) {
        int h = 0x811c9dc5;
        for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= 0x01000193;
        }
        return String.format("%08x", h);
    }

    /** Waits for a reconcile under way, so nothing of this controller talks to the API server once it is closed. */
    @Override
    public void close() {
        reconciler.close();
        watch.close();
    }
}
