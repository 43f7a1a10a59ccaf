package dev.paddock.driver.kubernetes;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.ArrayList;
import java.util.List;

/**
 * agent-sandbox's {@code SandboxTemplate} ({@code extensions.agents.x-k8s.io/v1alpha1}), with only the fields Paddock
 * sets: {@code spec.podTemplate} and {@code spec.volumeClaimTemplates} as a {@code Sandbox} has them, and the
 * template's own NetworkPolicy switched off ({@code networkPolicyManagement: Unmanaged}; releases without that field
 * read {@code networkPolicy: {}} as deny-all), since Paddock's policies fence the pods.
 */
@Group(WarmPoolApi.GROUP)
@Version(WarmPoolApi.VERSION)
@Kind("SandboxTemplate")
@Plural("sandboxtemplates")
public class SandboxTemplateObject extends CustomResource<SandboxTemplateObject.Spec, Void> implements Namespaced {

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public static class Spec {
        public AgentSandbox.PodTemplate podTemplate;
        public List<AgentSandbox.ClaimTemplate> volumeClaimTemplates = new ArrayList<>();
        public DenyAll networkPolicy = new DenyAll();
        public String networkPolicyManagement = "Unmanaged";
    }

    /** Empty ingress and egress lists: no traffic either way. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public static class DenyAll {
        public List<Object> ingress = new ArrayList<>();
        public List<Object> egress = new ArrayList<>();
    }
}
