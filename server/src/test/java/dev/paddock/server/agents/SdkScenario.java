package dev.paddock.server.agents;

import static dev.paddock.agents.testing.ScriptedModel.text;
import static dev.paddock.agents.testing.ScriptedModel.toolUse;

import dev.paddock.agents.testing.ScriptedModel.Reply;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.regex.Pattern;

/**
 * One session the SDK conformance suite drives in every lane: the agent's tools, what the scripted model answers
 * to its n-th request (1 for the first), what the client does on the way, and the event types expected in order.
 * The client sends its interrupt on the first event of type {@code interruptOn}, once the test has opened the
 * scenario's {@link Gate} (the driver waits for the gate file named in its plan). In {@link #expected} the token
 * {@code TOOL_RESULT} stands for the lane's tool result: {@code agent.tool_result} when Paddock ran the tool,
 * {@code user.tool_result} when a worker did.
 */
record SdkScenario(String name, List<Map<String, Object>> tools, IntFunction<Reply> model, String interruptOn, Gate interruptGate,
                   String customToolResult, String confirmation, String denyMessage, String stopReason, List<String> expected) {
    static final String TOOL_RESULT = "TOOL_RESULT";

    /** What the test waits for before it lets the client interrupt. */
    enum Gate {
        /** The scripted model has the session's request. */
        MODEL_ASKED,
        /** The long tool has written {@code started.txt}. */
        TOOL_STARTED
    }

    /** A tool that runs long and would write {@code late.txt} after a while, unless its process group is killed. */
    static final String LONG_TOOL = "echo started > started.txt; (sleep 3; echo late > late.txt) & sleep 20; wait";

    private static final List<String> TURN_START = List.of("user.message", "session.status_running");
    private static final List<String> ASK = List.of("span.model_request_start", "span.model_request_end");
    /** Any number of retried model requests: a pattern over the space-joined types (see {@link #pattern}). */
    private static final String RETRIES = "(session.error span.model_request_start span.model_request_end )*";

    static final List<SdkScenario> ALL = List.of(
            scenario("tool_call", toolset(), step -> step == 1
                    ? Reply.message(List.of(text("Running it."), toolUse("toolu_one", "bash", Map.of("command", "echo hello-sdk"))))
                    : Reply.message(List.of(text("It said hello."))), "end_turn",
                    seq(TURN_START, ASK, "agent.message", "agent.tool_use", TOOL_RESULT, ASK, "agent.message", "session.status_idle")),
            scenario("parallel_tools", toolset(), step -> step == 1
                    ? Reply.message(List.of(toolUse("toolu_p1", "bash", Map.of("command", "echo first")),
                            toolUse("toolu_p2", "bash", Map.of("command", "echo second")),
                            toolUse("toolu_p3", "write", Map.of("file_path", "p3.txt", "content", "third\n"))))
                    : Reply.message(List.of(text("All three ran."))), "end_turn",
                    seq(TURN_START, ASK, "agent.tool_use", "agent.tool_use", "agent.tool_use", TOOL_RESULT, TOOL_RESULT, TOOL_RESULT,
                            ASK, "agent.message", "session.status_idle")),
            scenario("tool_error", toolset(), step -> step == 1
                    ? Reply.message(List.of(toolUse("toolu_err", "read", Map.of("file_path", "no-such-file.txt"))))
                    : Reply.message(List.of(text("That file is missing."))), "end_turn",
                    seq(TURN_START, ASK, "agent.tool_use", TOOL_RESULT, ASK, "agent.message", "session.status_idle")),
            scenario("refusal", toolset(), step -> Reply.refusal("cyber", "scripted refusal"), "refusal",
                    seq(TURN_START, ASK, "session.status_idle")),
            scenario("rate_limited", toolset(), step -> step == 1 ? Reply.error(429, "rate_limit_error", "1")
                    : Reply.message(List.of(text("Answered after the rate limit."))), "end_turn",
                    seq(TURN_START, ASK, "session.error", ASK, "agent.message", "session.status_idle")),
            scenario("overloaded", toolset(), step -> Reply.error(529, "overloaded_error", null), "retries_exhausted",
                    seq(TURN_START, ASK, RETRIES, "session.error", "session.status_idle")),
            scenario("bad_request", toolset(), step -> Reply.error(400, "invalid_request_error", null), null,
                    seq(TURN_START, ASK, "session.error", "session.status_terminated")),
            new SdkScenario("custom_tool", List.of(toolsetConfig(Map.of()), lookupTool()), step -> step == 1
                    ? Reply.message(List.of(toolUse("toolu_custom", "lookup", Map.of("q", "answer"))))
                    : Reply.message(List.of(text("The lookup said 42."))), null, null, "forty-two", null, null, "end_turn",
                    seq(TURN_START, ASK, "agent.custom_tool_use", "session.status_idle", "user.custom_tool_result", "session.status_running",
                            ASK, "agent.message", "session.status_idle")),
            confirmed("confirm_allow", "allow", null,
                    seq(TURN_START, ASK, "agent.tool_use", "session.status_idle", "user.tool_confirmation", "session.status_running",
                            TOOL_RESULT, ASK, "agent.message", "session.status_idle")),
            confirmed("confirm_deny", "deny", "not this time",
                    seq(TURN_START, ASK, "agent.tool_use", "session.status_idle", "user.tool_confirmation", "session.status_running",
                            "agent.tool_result", ASK, "agent.message", "session.status_idle")),
            new SdkScenario("interrupt_model", toolset(), step -> Reply.message(List.of(text("too late"))).after(Duration.ofSeconds(30)),
                    "span.model_request_start", Gate.MODEL_ASKED, null, null, null, "end_turn",
                    seq(TURN_START, "span.model_request_start", "user.interrupt", "span.model_request_end", "session.status_idle")),
            // last: the SDK's EnvironmentWorker keeps running a tool through an interrupt, so it is busy for a while after
            new SdkScenario("interrupt_tool", toolset(), step -> step == 1
                    ? Reply.message(List.of(toolUse("toolu_long", "bash", Map.of("command", LONG_TOOL))))
                    : Reply.message(List.of(text("should not be asked"))),
                    "agent.tool_use", Gate.TOOL_STARTED, null, null, null, "end_turn",
                    seq(TURN_START, ASK, "agent.tool_use", "user.interrupt", "agent.tool_result", "session.status_idle")));

    private static SdkScenario scenario(String name, List<Map<String, Object>> tools, IntFunction<Reply> model, String stopReason, List<String> expected) {
        return new SdkScenario(name, tools, model, null, null, null, null, null, stopReason, expected);
    }

    private static SdkScenario confirmed(String name, String verdict, String denyMessage, List<String> expected) {
        return new SdkScenario(name, List.of(toolsetConfig(Map.of("permission_policy", Map.of("type", "always_ask")))), step -> step == 1
                ? Reply.message(List.of(toolUse("toolu_ask", "bash", Map.of("command", "echo confirmed > " + name + ".txt"))))
                : Reply.message(List.of(text("Understood."))), null, null, null, verdict, denyMessage, "end_turn", expected);
    }

    private static List<Map<String, Object>> toolset() {
        return List.of(toolsetConfig(Map.of()));
    }

    private static Map<String, Object> toolsetConfig(Map<String, Object> defaultConfig) {
        Map<String, Object> toolset = new LinkedHashMap<>();
        toolset.put("type", "agent_toolset_20260401");
        if (!defaultConfig.isEmpty()) toolset.put("default_config", defaultConfig);
        return toolset;
    }

    private static Map<String, Object> lookupTool() {
        return Map.of("type", "custom", "name", "lookup", "description", "looks a word up",
                "input_schema", Map.of("type", "object", "properties", Map.of("q", Map.of("type", "string"))));
    }

    /** Event types in order, from single types and lists of them. */
    private static List<String> seq(Object... parts) {
        List<String> out = new ArrayList<>();
        for (Object p : parts) {
            if (p instanceof List<?> list) list.forEach(t -> out.add((String) t));
            else out.add((String) p);
        }
        return out;
    }

    /**
     * The expected order as a pattern over the event types joined by spaces (each followed by one), with the lane's
     * tool result in place of the token.
     */
    Pattern pattern(boolean selfHosted) {
        StringBuilder re = new StringBuilder();
        for (String t : expected) {
            if (t.equals(RETRIES)) re.append(t);
            else re.append(Pattern.quote(t.equals(TOOL_RESULT) ? (selfHosted ? "user.tool_result" : "agent.tool_result") : t)).append(' ');
        }
        return Pattern.compile(re.toString());
    }

    /** What a driver needs to run this scenario, as JSON-ready values. */
    Map<String, Object> plan(String agent, String environment, Path gateFile) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("name", name);
        p.put("agent", agent);
        p.put("environment", environment);
        p.put("prompt", "scenario " + name);
        if (interruptOn != null) {
            p.put("interruptOn", interruptOn);
            if (interruptGate != null) p.put("interruptGate", gateFile.toString());
        }
        if (customToolResult != null) p.put("customToolResult", customToolResult);
        if (confirmation != null) p.put("confirmation", confirmation);
        if (denyMessage != null) p.put("denyMessage", denyMessage);
        return p;
    }
}
