package dev.paddock.driver.kubernetes;

import java.util.Locale;

/**
 * {@code kubernetes_agent_sandbox}: make each sandbox a plain Pod ({@link #OFF}), an agent-sandbox {@code Sandbox}
 * ({@link #ON}: the server does not start where the cluster does not serve it), or a {@code Sandbox} where the
 * cluster serves it and a Pod elsewhere ({@link #AUTO}).
 */
public enum AgentSandboxMode {
    OFF, AUTO, ON;

    /** Reads {@code false}, {@code auto} or {@code true}; anything else is refused naming the setting. */
    public static AgentSandboxMode parse(String value) {
        String v = value == null ? "" : value.strip().toLowerCase(Locale.ROOT);
        return switch (v) {
            case "", "false" -> OFF;
            case "auto" -> AUTO;
            case "true" -> ON;
            default -> throw new IllegalArgumentException("kubernetes_agent_sandbox must be false, auto or true, got '" + value + "'");
        };
    }
}
