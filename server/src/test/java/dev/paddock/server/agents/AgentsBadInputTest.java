package dev.paddock.server.agents;

import static dev.paddock.agents.testing.ScriptedModel.toolUse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.paddock.agents.AgentsConfig;
import dev.paddock.agents.testing.ScriptedModel;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** Bad input to sessions and the work queue: each a clear 4xx, and nothing of the session's state lost. */
class AgentsBadInputTest extends ScriptedStackTest {
    @BeforeAll
    static void start() throws IOException {
        model = new ScriptedModel(results -> List.of(toolUse("toolu_1", "bash", Map.of("command", "true"))));
        startStack(AgentsConfig.defaults().withModel(model.baseUrl(), "k"));
    }

    static SelfHostedSession selfHosted() {
        return SelfHostedSession.open(api);
    }

    static void assertError(Rest.Answer a, int status, String code) {
        assertError(a, status, code, code);
    }

    /** The error shape, with the reason where the SDKs read it ({@code error.details.error_code}) besides {@code error.code}. */
    static void assertError(Rest.Answer a, int status, String code, String sdkErrorCode) {
        assertThat(a.status()).as(String.valueOf(a.body())).isEqualTo(status);
        assertThat(a.body().get("type").asString()).isEqualTo("error");
        assertThat(a.body().get("error").get("code").asString()).isEqualTo(code);
        assertThat(a.body().get("error").get("message").asString()).isNotBlank();
        assertThat(a.body().get("error").path("details").path("error_code").asString()).as(String.valueOf(a.body())).isEqualTo(sdkErrorCode);
    }

    @Test
    void idsInTheSdksFormatThatNameNothingAre404sAndOnlyNonIdsAre400s() {
        SelfHostedSession s = selfHosted();
        String session = "sesn_011CZkZAtmR3yMPDzynEDxu7";
        Map<String, Object> message = Map.of("events", List.of(Map.of("type", "user.message", "content", List.of(Map.of("type", "text", "text", "hi")))));
        assertError(api.get("/v1/sessions/" + session, Map.of()), 404, "not_found");
        assertError(api.post("/v1/sessions/" + session, Map.of("title", "t")), 404, "not_found");
        assertError(api.post("/v1/sessions/" + session + "/archive", Map.of()), 404, "not_found");
        assertError(api.get("/v1/sessions/" + session + "/events", Map.of()), 404, "not_found");
        assertError(api.post("/v1/sessions/" + session + "/events", message), 404, "not_found");
        assertError(api.get("/v1/sessions/" + session + "/events/stream", Map.of()), 404, "not_found");
        assertError(api.get("/v1/agents/agent_011CZkZAtmR3yMPDzynEDxu7", Map.of()), 404, "not_found");
        assertError(api.get("/v1/agents/agent_011CZkZAtmR3yMPDzynEDxu7/versions", Map.of()), 404, "not_found");
        assertError(api.get("/v1/environments/env_011CZkZAtmR3yMPDzynEDxu7", Map.of()), 404, "environment_not_found");
        assertError(api.get("/v1/environments/env_011CZkZAtmR3yMPDzynEDxu7/work/poll", Map.of()), 404, "environment_not_found");
        assertError(api.get("/v1/environments/" + s.env() + "/work/work_011CZkZAtmR3yMPDzynEDxu7", Map.of()), 404, "not_found");
        assertError(api.post("/v1/sessions", Map.of("agent", "agent_011CZkZAtmR3yMPDzynEDxu7", "environment_id", s.env())), 404, "not_found");

        assertError(api.get("/v1/sessions/nope", Map.of()), 400, "invalid_id");
        assertError(api.get("/v1/sessions/env_011CZkZAtmR3yMPDzynEDxu7", Map.of()), 400, "invalid_id");
        assertError(api.get("/v1/sessions/sesn_" + "A".repeat(65), Map.of()), 400, "invalid_id");
        assertError(api.get("/v1/sessions/" + session + "/nothing-here", Map.of()), 404, "route_not_found");
        assertError(new Rest(stack.baseUrl, "pdk_not-a-real-key-at-all").get("/v1/agents", Map.of()), 401, "invalid_api_key");
    }

    @Test
    void anEventOfAnotherSessionIsNoCursorOnTheListNorOnTheStream() {
        SelfHostedSession a = selfHosted();
        SelfHostedSession b = selfHosted();
        Rest.Answer sent = api.post("/v1/sessions/" + a.session() + "/events", Map.of("events", List.of(Map.of("type", "user.message",
                "content", List.of(Map.of("type", "text", "text", "hi"))))));
        assertThat(sent.status()).as(String.valueOf(sent.body())).isEqualTo(200);
        String eventOfA = api.get("/v1/sessions/" + a.session() + "/events", Map.of()).body().get("data").get(0).get("id").asString();
        String page = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(("a:" + eventOfA).getBytes(java.nio.charset.StandardCharsets.UTF_8));

        Rest.Answer list = api.get("/v1/sessions/" + b.session() + "/events?page=" + page, Map.of());
        assertThat(list.status()).as(String.valueOf(list.body())).isEqualTo(400);
        assertThat(list.body().get("error").get("code").asString()).isEqualTo("invalid_cursor");
        Rest.Answer stream = api.get("/v1/sessions/" + b.session() + "/events/stream?after_id=" + eventOfA, Map.of());
        assertThat(stream.status()).as(String.valueOf(stream.body())).isEqualTo(400);
        assertThat(stream.body().get("error").get("code").asString()).isEqualTo("invalid_cursor");
        assertThat(stream.body().get("error").get("message").asString()).as("names what was sent").startsWith("after_id ");
    }

    @Test
    void unknownEventTypesAndUnknownToolUseIdsAreRefusedAndNothingIsWritten() {
        SelfHostedSession s = selfHosted();
        assertError(api.post("/v1/sessions/" + s.session() + "/events", Map.of("events", List.of(Map.of("type", "agent.message",
                "content", List.of())))), 400, "unknown_event_type");
        assertError(api.post("/v1/sessions/" + s.session() + "/events", Map.of("events", List.of(
                Map.of("type", "user.message", "content", List.of(Map.of("type", "text", "text", "hi"))),
                Map.of("type", "user.tool_result", "tool_use_id", "sevt_0123456789abcdefghjkmnpqrs")))), 400, "unknown_tool_use_id");
        // the valid message before the bad result was not written either
        assertThat(api.get("/v1/sessions/" + s.session() + "/events", Map.of()).body().get("data")).isEmpty();
    }

    @Test
    void workOwnedByAnotherWorkerAndStaleHeartbeatsAreRefused() {
        SelfHostedSession s = selfHosted();
        Rest worker = new Rest(stack.baseUrl, s.key());
        Rest.Answer polled = worker.get("/v1/environments/" + s.env() + "/work/poll?block_ms=500", Map.of("anthropic-worker-id", "worker-a"));
        assertThat(polled.status()).isEqualTo(200);
        String work = polled.body().get("id").asString();
        assertThat(polled.body().get("state").asString()).isEqualTo("starting");
        String base = "/v1/environments/" + s.env() + "/work/" + work;

        assertError(worker.post(base + "/ack", Map.of(), Map.of("anthropic-worker-id", "worker-b")), 409, "work_owned_by_another_worker");
        assertThat(worker.post(base + "/ack", Map.of(), Map.of("anthropic-worker-id", "worker-a")).status()).isEqualTo(200);

        Rest.Answer first = worker.post(base + "/heartbeat?expected_last_heartbeat=NO_HEARTBEAT", Map.of());
        assertThat(first.status()).isEqualTo(200);
        String token = first.body().get("last_heartbeat").asString();
        assertThat(first.body().get("state").asString()).isEqualTo("active");
        assertThat(first.body().get("lease_extended").asBoolean()).isTrue();

        Rest.Answer stale = worker.post(base + "/heartbeat?expected_last_heartbeat=NO_HEARTBEAT", Map.of());
        assertError(stale, 412, "heartbeat_precondition_failed");
        JsonNode details = stale.body().get("error").get("details");
        assertThat(details.get("error_code").asString()).isEqualTo("heartbeat_precondition_failed");
        assertThat(details.get("current_state").get("last_heartbeat").asString()).isEqualTo(token);
        assertThat(worker.post(base + "/heartbeat?expected_last_heartbeat=" + token, Map.of()).status()).isEqualTo(200);

        // an environment key reaches nothing but its environment's queue and sessions
        assertThat(worker.get("/v1/agents", Map.of()).status()).isEqualTo(401);
        assertThat(worker.get("/v1/sandboxes", Map.of()).status()).isEqualTo(401);

        assertThat(worker.post(base + "/stop", Map.of("force", true)).body().get("state").asString()).isEqualTo("stopped");
        assertError(worker.post(base + "/stop", Map.of("force", true)), 409, "work_stopped");
        assertThat(worker.get("/v1/environments/" + s.env() + "/work/stats", Map.of()).body().get("depth").asLong()).isZero();
    }

    @Test
    void aLapsedLeaseIsReclaimedAndTheStaleWorkerIsFencedOut() {
        SelfHostedSession s = selfHosted();
        Rest worker = new Rest(stack.baseUrl, s.key());
        String work = worker.get("/v1/environments/" + s.env() + "/work/poll", Map.of("anthropic-worker-id", "slow")).body().get("id").asString();
        String base = "/v1/environments/" + s.env() + "/work/" + work;
        // claimed but never acknowledged: another worker may reclaim it
        Rest.Answer reclaimed = worker.get("/v1/environments/" + s.env() + "/work/poll?reclaim_older_than_ms=0",
                Map.of("anthropic-worker-id", "fast"));
        assertThat(reclaimed.status()).isEqualTo(200);
        assertThat(reclaimed.body().get("id").asString()).isEqualTo(work);
        assertError(worker.post(base + "/ack", Map.of(), Map.of("anthropic-worker-id", "slow")), 409, "work_owned_by_another_worker");
        assertThat(worker.post(base + "/ack", Map.of(), Map.of("anthropic-worker-id", "fast")).status()).isEqualTo(200);
    }

    @Test
    void toolResultsNeedALiveLeaseAndAnswerEachCallOnce() {
        SelfHostedSession s = selfHosted();
        Rest worker = new Rest(stack.baseUrl, s.key());
        api.say(s.session(), "go");
        await().atMost(Duration.ofSeconds(20)).until(() -> toolUseId(s.session()) != null);
        String useId = toolUseId(s.session());
        Map<String, Object> result = Map.of("events", List.of(Map.of("type", "user.tool_result", "tool_use_id", useId,
                "content", List.of(Map.of("type", "text", "text", "ok")))));
        assertError(worker.post("/v1/sessions/" + s.session() + "/events", result), 409, "no_live_lease");

        String work = worker.get("/v1/environments/" + s.env() + "/work/poll", Map.of("anthropic-worker-id", "w")).body().get("id").asString();
        worker.post("/v1/environments/" + s.env() + "/work/" + work + "/ack", Map.of());
        // a worker that names itself is fenced per claim: only the lease holder's results count
        assertError(worker.post("/v1/sessions/" + s.session() + "/events", result, Map.of("anthropic-worker-id", "stale")), 409, "work_owned_by_another_worker");
        assertThat(worker.post("/v1/sessions/" + s.session() + "/events", result, Map.of("anthropic-worker-id", "w")).status()).isEqualTo(200);
        assertError(worker.post("/v1/sessions/" + s.session() + "/events", result), 409, "tool_result_already_sent"); // no name: any live lease
    }

    static String toolUseId(String session) {
        for (JsonNode e : api.get("/v1/sessions/" + session + "/events?limit=100", Map.of()).body().get("data")) {
            if (e.get("type").asString().equals("agent.tool_use")) return e.get("id").asString();
        }
        return null;
    }
}
