package dev.paddock.server.agents;

import java.util.List;
import java.util.Map;

/** A session on a new self-hosted environment (with an environment key for its worker), made through the API. */
record SelfHostedSession(String env, String key, String session) {
    static SelfHostedSession open(Rest api) {
        String agent = api.post("/v1/agents", Map.of("name", "a", "model", "m", "tools", List.of(Map.of("type", "agent_toolset_20260401"))))
                .body().get("id").asString();
        String env = api.post("/v1/environments", Map.of("name", "sh-" + System.nanoTime(), "config", Map.of("type", "self_hosted")))
                .body().get("id").asString();
        String key = api.post("/v1/environments/" + env + "/keys", Map.of()).body().get("key").asString();
        String session = api.post("/v1/sessions", Map.of("agent", agent, "environment_id", env)).body().get("id").asString();
        return new SelfHostedSession(env, key, session);
    }
}
