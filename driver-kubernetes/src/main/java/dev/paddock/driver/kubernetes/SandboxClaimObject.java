package dev.paddock.driver.kubernetes;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.ArrayList;
import java.util.List;

/**
 * agent-sandbox's {@code SandboxClaim} ({@code extensions.agents.x-k8s.io/v1alpha1}): asks for a Sandbox from the
 * template {@code spec.sandboxTemplateRef.name}, from the warm pool {@code spec.warmpool} where one is ready (the
 * controller hands that Sandbox over, its name unchanged) or else made anew; {@code status.sandbox.name} names the
 * Sandbox it got, whose pod has the same name.
 */
@Group(WarmPoolApi.GROUP)
@Version(WarmPoolApi.VERSION)
@Kind("SandboxClaim")
@Plural("sandboxclaims")
public class SandboxClaimObject extends CustomResource<SandboxClaimObject.Spec, SandboxClaimObject.Status> implements Namespaced {

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public static class Spec {
        public TemplateRef sandboxTemplateRef = new TemplateRef();
        /** {@code none}, {@code default} or the name of one warm pool. */
        public String warmpool;
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public static class TemplateRef {
        public String name;
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public static class Status {
        public List<Condition> conditions = new ArrayList<>();
        public BoundSandbox sandbox;
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public static class BoundSandbox {
        public String name;
    }

    /** The name of the Sandbox the claim got, or null while it has none. */
    String boundSandbox() {
        Status s = getStatus();
        return s == null || s.sandbox == null || s.sandbox.name == null || s.sandbox.name.isBlank() ? null : s.sandbox.name;
    }
}
