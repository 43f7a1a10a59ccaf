package dev.paddock.driver.kubernetes;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * agent-sandbox's {@code SandboxWarmPool} ({@code extensions.agents.x-k8s.io/v1alpha1}): {@code spec.replicas}
 * Sandboxes made ahead from the template {@code spec.sandboxTemplateRef.name}, for claims to take.
 */
@Group(WarmPoolApi.GROUP)
@Version(WarmPoolApi.VERSION)
@Kind("SandboxWarmPool")
@Plural("sandboxwarmpools")
public class SandboxWarmPoolObject extends CustomResource<SandboxWarmPoolObject.Spec, SandboxWarmPoolObject.Status> implements Namespaced {

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public static class Spec {
        public Integer replicas;
        public SandboxClaimObject.TemplateRef sandboxTemplateRef = new SandboxClaimObject.TemplateRef();
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public static class Status {
        public Integer replicas;
        public Integer readyReplicas;
    }
}
