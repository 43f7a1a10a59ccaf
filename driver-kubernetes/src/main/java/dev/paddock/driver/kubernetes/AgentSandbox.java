package dev.paddock.driver.kubernetes;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimSpec;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * kubernetes-sigs/agent-sandbox's {@code Sandbox} ({@code agents.x-k8s.io/v1alpha1}), with only the fields Paddock
 * sets or reads. Field names follow that API as of its v0.1 releases ({@code api/v1alpha1/sandbox_types.go}):
 * {@code spec.podTemplate} (metadata labels and annotations, a PodSpec), {@code spec.volumeClaimTemplates} (each
 * made by the controller as the claim {@code <template name>-<sandbox name>}, with a volume of the template's name
 * in the pod), {@code spec.replicas} (0 or 1: 0 deletes the pod and keeps the claims; later releases serve the same
 * as {@code operatingMode: Suspended} of v1beta1 through their conversion webhook). The pod is named as the Sandbox.
 */
@Group(AgentSandboxApi.GROUP)
@Version(AgentSandboxApi.VERSION)
@Kind("Sandbox")
@Plural("sandboxes")
public class AgentSandbox extends CustomResource<AgentSandbox.Spec, AgentSandbox.Status> implements Namespaced {

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public static class Spec {
        public PodTemplate podTemplate;
        public List<ClaimTemplate> volumeClaimTemplates = new ArrayList<>();
        public Integer replicas;
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public static class PodTemplate {
        public PodMetadata metadata = new PodMetadata();
        public PodSpec spec;
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public static class PodMetadata {
        public Map<String, String> labels = new LinkedHashMap<>();
        public Map<String, String> annotations = new LinkedHashMap<>();
    }

    /** A claim template: its metadata holds only name, labels and annotations. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public static class ClaimTemplate {
        public ClaimMetadata metadata = new ClaimMetadata();
        public PersistentVolumeClaimSpec spec;
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public static class ClaimMetadata {
        public String name;
        public Map<String, String> labels = new LinkedHashMap<>();
        public Map<String, String> annotations = new LinkedHashMap<>();
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public static class Status {
        public String service;
        public String serviceFQDN;
        public List<Condition> conditions = new ArrayList<>();
        public Integer replicas;
        public String selector;
    }
}
