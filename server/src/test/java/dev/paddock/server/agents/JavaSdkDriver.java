package dev.paddock.server.agents;

import com.anthropic.client.AnthropicClient;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.ObjectMappers;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.models.beta.sessions.BetaManagedAgentsSession;
import com.anthropic.models.beta.sessions.SessionCreateParams;
import com.anthropic.models.beta.sessions.events.BetaManagedAgentsSendSessionEvents;
import com.anthropic.models.beta.sessions.events.BetaManagedAgentsStreamSessionEvents;
import com.anthropic.models.beta.sessions.events.BetaManagedAgentsTextBlock;
import com.anthropic.models.beta.sessions.events.BetaManagedAgentsUserCustomToolResultEventParams;
import com.anthropic.models.beta.sessions.events.BetaManagedAgentsUserInterruptEventParams;
import com.anthropic.models.beta.sessions.events.BetaManagedAgentsUserMessageEventParams;
import com.anthropic.models.beta.sessions.events.BetaManagedAgentsUserToolConfirmationEventParams;
import com.anthropic.models.beta.sessions.events.EventListParams;
import com.anthropic.models.beta.sessions.events.EventSendParams;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The official Java SDK as the client of a conformance plan: creates each session, follows it with the SDK's event
 * stream, sends the message, the interrupt (once the plan's gate file exists) and the answers to {@code requires_action} as the SDK's typed params,
 * and answers the same JSON the TypeScript and Python drivers write. Every streamed event must pass the SDK's
 * own {@code validate()}.
 */
final class JavaSdkDriver implements AutoCloseable {
    private final AnthropicClient client;

    JavaSdkDriver(String baseUrl, String apiKey) {
        client = AnthropicOkHttpClient.builder().baseUrl(baseUrl).apiKey(apiKey).maxRetries(0).build();
    }

    JsonNode run(List<Map<String, Object>> scenarios) throws InterruptedException {
        List<Map<String, Object>> results = new ArrayList<>();
        for (Map<String, Object> s : scenarios) results.add(runScenario(s));
        String terminated = (String) results.stream().filter(r -> "terminated".equals(r.get("status"))).findFirst().orElseThrow().get("session_id");
        Map<String, Object> errors = new LinkedHashMap<>();
        errors.put("stale_session", errorOf(() -> client.beta().sessions().retrieve("sesn_011CZkZAtmR3yMPDzynEDxu7")));
        errors.put("stale_session_events", errorOf(() -> client.beta().sessions().events().send("sesn_011CZkZAtmR3yMPDzynEDxu7",
                EventSendParams.builder().addEvent(BetaManagedAgentsUserInterruptEventParams.builder().build()).build())));
        errors.put("stale_agent", errorOf(() -> client.beta().agents().retrieve("agent_011CZkZAtmR3yMPDzynEDxu7")));
        errors.put("terminated_session", errorOf(() -> send(terminated, EventSendParams.builder().addUserMessageEvent(List.of(
                BetaManagedAgentsUserMessageEventParams.Content.ofText(BetaManagedAgentsTextBlock.builder().text("still there?").build()))))));
        return Rest.JSON.valueToTree(Map.of("results", results, "errors", errors));
    }

    private Map<String, Object> runScenario(Map<String, Object> s) throws InterruptedException {
        BetaManagedAgentsSession session = client.beta().sessions().create(SessionCreateParams.builder()
                .agent((String) s.get("agent")).environmentId((String) s.get("environment")).build());
        List<JsonNode> events = new ArrayList<>();
        List<String> sent = new ArrayList<>();
        Long interruptedAt = null;
        Long idleAfterInterrupt = null;
        JsonNode accepted;
        try (StreamResponse<BetaManagedAgentsStreamSessionEvents> stream = client.beta().sessions().events().streamStreaming(session.id())) {
            accepted = send(session.id(), EventSendParams.builder().addUserMessageEvent(List.of(BetaManagedAgentsUserMessageEventParams.Content.ofText(
                    BetaManagedAgentsTextBlock.builder().text((String) s.get("prompt")).build()))));
            Iterator<BetaManagedAgentsStreamSessionEvents> it = stream.stream().iterator();
            while (it.hasNext()) {
                BetaManagedAgentsStreamSessionEvents e = it.next();
                e.validate();
                JsonNode ev = wire(e);
                events.add(ev);
                String type = ev.get("type").asString();
                if (type.equals(s.get("interruptOn")) && interruptedAt == null) {
                    untilExists((String) s.get("interruptGate"));
                    interruptedAt = System.nanoTime();
                    send(session.id(), EventSendParams.builder().addEvent(BetaManagedAgentsUserInterruptEventParams.builder().build()));
                    sent.add("user.interrupt");
                }
                if (e.isSessionStatusTerminated()) break;
                if (!e.isSessionStatusIdle()) continue;
                if (interruptedAt != null && idleAfterInterrupt == null) idleAfterInterrupt = (System.nanoTime() - interruptedAt) / 1_000_000;
                var stop = e.asSessionStatusIdle().stopReason();
                if (!stop.isRequiresAction()) break;
                EventSendParams.Builder answers = EventSendParams.builder();
                for (String id : stop.asRequiresAction().eventIds()) {
                    boolean custom = events.stream().anyMatch(x -> x.get("id").asString().equals(id) && x.get("type").asString().equals("agent.custom_tool_use"));
                    if (custom) {
                        answers.addEvent(BetaManagedAgentsUserCustomToolResultEventParams.builder().customToolUseId(id)
                                .addTextContent((String) s.get("customToolResult")).build());
                        sent.add("user.custom_tool_result");
                    } else {
                        boolean deny = "deny".equals(s.get("confirmation"));
                        var confirmation = BetaManagedAgentsUserToolConfirmationEventParams.builder().toolUseId(id)
                                .result(deny ? BetaManagedAgentsUserToolConfirmationEventParams.Result.DENY
                                        : BetaManagedAgentsUserToolConfirmationEventParams.Result.ALLOW);
                        if (deny) confirmation.denyMessage((String) s.get("denyMessage"));
                        answers.addEvent(confirmation.build());
                        sent.add("user.tool_confirmation");
                    }
                }
                send(session.id(), answers);
            }
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("scenario", s.get("name"));
        result.put("session_id", session.id());
        BetaManagedAgentsSession retrieved = client.beta().sessions().retrieve(session.id());
        retrieved.validate();
        result.put("status", retrieved.status().asString());
        result.put("events", events);
        result.put("sent", sent);
        result.put("idle_after_interrupt_ms", idleAfterInterrupt);
        result.put("session", wire(retrieved));
        result.put("accepted", accepted);
        // the whole log again, through the SDK's auto-pagination in small pages
        List<JsonNode> listed = new ArrayList<>();
        client.beta().sessions().events().list(session.id(), EventListParams.builder().limit(4).build()).autoPager().forEach(e -> {
            e.validate();
            listed.add(wire(e));
        });
        result.put("listed", listed);
        return result;
    }

    private static void untilExists(String file) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (file != null && !Files.exists(Path.of(file))) {
            if (System.nanoTime() > deadline) throw new IllegalStateException("no " + file + " after 60 s");
            Thread.sleep(100);
        }
    }

    private JsonNode send(String session, EventSendParams.Builder params) {
        BetaManagedAgentsSendSessionEvents accepted = client.beta().sessions().events().send(session, params.build());
        accepted.validate();
        return wire(accepted);
    }

    /** An SDK object as its JSON on the wire, in the JSON library the tests read. */
    private static ObjectNode wire(Object sdkObject) {
        try {
            return (ObjectNode) Rest.JSON.readTree(ObjectMappers.jsonMapper().writeValueAsString(sdkObject));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String errorOf(Runnable request) {
        try {
            request.run();
            return "none";
        } catch (RuntimeException e) {
            return e.getClass().getSimpleName();
        }
    }

    @Override
    public void close() {
        client.close();
    }
}
