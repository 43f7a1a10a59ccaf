package dev.paddock.app;

import dev.paddock.app.client.Json;
import dev.paddock.app.client.PaddockClient;
import java.util.Map;
import tools.jackson.databind.node.ObjectNode;

/** The Managed Agents calls the end-to-end tests share: an agent with the toolset, a session that was told "go". */
final class AgentSessions {
    private AgentSessions() {}

    static String toolsetAgent(PaddockClient api) {
        ObjectNode agent = Json.object().put("name", "test-agent").put("model", "test-model");
        agent.putArray("tools").addObject().put("type", "agent_toolset_20260401");
        return api.json("POST", "/v1/agents", Map.of(), agent).path("id").asString();
    }

    /** Creates a session of the agent in the environment and sends it one user message; answers its id. */
    static String sendGo(PaddockClient api, String agentId, String environmentId) {
        ObjectNode body = Json.object().put("agent", agentId).put("environment_id", environmentId);
        String id = api.json("POST", "/v1/sessions", Map.of(), body).path("id").asString();
        ObjectNode send = Json.object();
        send.putArray("events").addObject().put("type", "user.message").putArray("content").addObject().put("type", "text").put("text", "go");
        api.json("POST", "/v1/sessions/" + id + "/events", Map.of(), send);
        return id;
    }
}
