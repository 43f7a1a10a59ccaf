package dev.paddock.agents;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A skill an agent version carries: the skill and the version it was resolved to when the agent was created or
 * updated ({@code latest} resolves then), so every session of that agent version sees the same files.
 *
 * @param type {@code custom}, or {@code anthropic} for a reference by id to a skill uploaded here
 */
public record AgentSkill(String type, String skillId, String version) {
    static final String CUSTOM = "custom";
    static final String ANTHROPIC = "anthropic";

    Map<String, Object> toWire() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", type);
        m.put("skill_id", skillId);
        m.put("version", version);
        return m;
    }

    static AgentSkill fromWire(Map<String, Object> m) {
        return new AgentSkill(String.valueOf(m.get("type")), String.valueOf(m.get("skill_id")), String.valueOf(m.get("version")));
    }
}
