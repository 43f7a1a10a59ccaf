package dev.paddock.server.agents;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;

/** One scenario's session as a lane's driver saw it, with the model requests of that session. */
record SdkOutcome(SdkConformanceTest.Lane lane, SdkScenario scenario, JsonNode result, Function<String, Optional<String>> files,
                  List<JsonNode> modelRequests) {
    List<JsonNode> events() {
        List<JsonNode> out = new ArrayList<>();
        result.get("events").forEach(out::add);
        return out;
    }

    List<String> types() {
        return events().stream().map(e -> e.get("type").asString()).toList();
    }

    List<JsonNode> all(String type) {
        return events().stream().filter(e -> e.get("type").asString().equals(type)).toList();
    }

    JsonNode only(String type) {
        List<JsonNode> found = all(type);
        assertThat(found).as(type + " in " + types()).hasSize(1);
        return found.getFirst();
    }

    JsonNode last() {
        return events().getLast();
    }

    Optional<String> file(String name) {
        return files.apply(name);
    }

    void checkOrder() {
        String joined = String.join(" ", types()) + " ";
        assertThat(joined).as(lane + " " + scenario.name()).matches(scenario.pattern(lane.selfHosted));
        JsonNode last = last();
        if (scenario.stopReason() == null) {
            assertThat(last.get("type").asString()).isEqualTo("session.status_terminated");
        } else {
            assertThat(last.get("stop_reason").get("type").asString()).as(lane + " " + scenario.name()).isEqualTo(scenario.stopReason());
            assertThat(result.get("status").asString()).isEqualTo("idle");
        }
    }

    /** Every tool call is answered exactly once, after it, by a result that names it. */
    void checkToolCallsAnswered() {
        List<JsonNode> events = events();
        Set<String> answered = new HashSet<>();
        for (int i = 0; i < events.size(); i++) {
            JsonNode e = events.get(i);
            String type = e.get("type").asString();
            if (!type.equals("agent.tool_use") && !type.equals("agent.custom_tool_use")) continue;
            String id = e.get("id").asString();
            int at = i;
            List<Integer> answers = new ArrayList<>();
            for (int j = 0; j < events.size(); j++) {
                if (id.equals(answerTo(events.get(j)))) answers.add(j);
            }
            assertThat(answers).as("answers to " + id + " in " + types()).hasSize(1).allSatisfy(j -> assertThat(j).isGreaterThan(at));
            answered.add(id);
        }
        for (JsonNode e : events) {
            String to = answerTo(e);
            if (to != null) assertThat(answered).as("a result for a call that was made").contains(to);
        }
    }

    private static String answerTo(JsonNode e) {
        return switch (e.get("type").asString()) {
            case "agent.tool_result", "user.tool_result" -> e.get("tool_use_id").asString();
            case "user.custom_tool_result" -> e.get("custom_tool_use_id").asString();
            default -> null;
        };
    }

    JsonNode resultOf(JsonNode use) {
        String id = use.get("id").asString();
        return events().stream().filter(e -> id.equals(answerTo(e))).findFirst().orElseThrow();
    }

    String toolResultText(JsonNode use) {
        StringBuilder sb = new StringBuilder();
        JsonNode content = resultOf(use).get("content");
        if (content != null) content.forEach(b -> sb.append(b.path("text").asString()));
        return sb.toString();
    }

    /** The tool_result blocks of this session's last model request (they are in its last message). */
    List<JsonNode> lastModelRequestResults() {
        List<JsonNode> out = new ArrayList<>();
        JsonNode messages = modelRequests().getLast().get("messages");
        JsonNode last = messages.get(messages.size() - 1);
        if (last.get("content").isArray()) {
            for (JsonNode b : last.get("content")) if ("tool_result".equals(b.path("type").asString())) out.add(b);
        }
        return out;
    }

    /**
     * What the model was told each of its tool calls answered, by tool_use id: Paddock names a call to the model
     * by its event's id, so each result must answer a tool_use block of the message before it.
     */
    Map<String, String> modelSawResults() {
        Map<String, String> out = new LinkedHashMap<>();
        JsonNode messages = modelRequests().getLast().get("messages");
        Set<String> called = new HashSet<>();
        for (JsonNode b : messages.get(messages.size() - 2).get("content")) {
            if ("tool_use".equals(b.path("type").asString())) called.add(b.get("id").asString());
        }
        for (JsonNode b : lastModelRequestResults()) {
            assertThat(called).as("a tool_use block for each tool_result").contains(b.get("tool_use_id").asString());
            JsonNode c = b.get("content");
            StringBuilder sb = new StringBuilder();
            if (c == null) {
                // no content at all
            } else if (c.isString()) {
                sb.append(c.asString());
            } else {
                c.forEach(part -> sb.append(part.path("text").asString()));
            }
            out.put(b.get("tool_use_id").asString(), sb.toString());
        }
        return out;
    }
}
