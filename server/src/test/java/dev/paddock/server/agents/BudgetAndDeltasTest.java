package dev.paddock.server.agents;

import static dev.paddock.agents.testing.ScriptedModel.text;
import static dev.paddock.agents.testing.ScriptedModel.toolUse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.paddock.agents.AgentsConfig;
import dev.paddock.agents.ModelPrices;
import dev.paddock.agents.testing.ScriptedModel;
import dev.paddock.agents.testing.ScriptedModel.Reply;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Session budgets and event previews against a real Paddock on loopback (HTTP, SSE, SQLite, subprocess sandboxes), a
 * scripted Messages API in place of the vendor's that counts the requests it gets, priced by the operator setting:
 * over plain HTTP, and through the official TypeScript SDK (run by node).
 */
class BudgetAndDeltasTest {
    /** Each request costs one dollar: a million input tokens at $1 per million. */
    private static final Map<String, Object> DOLLAR = Map.of("input_tokens", 1_000_000, "output_tokens", 0);
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    ScriptedModel model;
    AgentsStack stack;
    Rest api;
    String agent;
    String env;

    /** Two requests that say something and run a command, then one that ends the turn; every request costs $1. */
    @BeforeEach
    void start() throws Exception {
        model = new ScriptedModel((results, call) -> (call <= 2
                ? Reply.message(List.of(text("working on step number " + call), toolUse("toolu_" + call, "bash", Map.of("command", "true"))))
                : Reply.message(List.of(text("all done now")))).withUsage(DOLLAR));
        stack = new AgentsStack(AgentsConfig.defaults().withModel(model.baseUrl(), "k").withModelPrices(ModelPrices.parse("claude-test=1/5")));
        api = new Rest(stack.baseUrl, stack.apiKey);
        agent = api.post("/v1/agents", Map.of("name", "priced", "model", "claude-test", "tools", List.of(Map.of("type", "agent_toolset_20260401"))))
                .body().get("id").asString();
        env = api.post("/v1/environments", Map.of("name", "box", "config", Map.of("type", "cloud"))).body().get("id").asString();
    }

    @AfterEach
    void stop() {
        if (stack != null) stack.close();
        if (model != null) model.close();
    }

    private static Map<String, Object> budget(String cents) {
        return Map.of("type", "limit", "max_list_cost", Map.of("amount", cents, "currency", "USD"));
    }

    private void say(String session, String text) {
        assertThat(api.say(session, text).status()).isEqualTo(200);
    }

    private List<JsonNode> idles(String session) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode e : api.get("/v1/sessions/" + session + "/events?limit=1000", Map.of()).body().get("data")) {
            if (e.get("type").asString().equals("session.status_idle")) out.add(e);
        }
        return out;
    }

    /** The events of a session's SSE stream (opened with {@code query}) until it has gone idle {@code idles} times. */
    private CompletableFuture<List<JsonNode>> follow(String session, String query, int idles) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(stack.baseUrl + "/v1/sessions/" + session + "/events/stream" + query))
                .header("x-api-key", stack.apiKey).build();
        HttpResponse<Stream<String>> response = HTTP.send(request, HttpResponse.BodyHandlers.ofLines());
        assertThat(response.statusCode()).isEqualTo(200);
        return CompletableFuture.supplyAsync(() -> {
            List<JsonNode> seen = new ArrayList<>();
            AtomicInteger left = new AtomicInteger(idles);
            try (Stream<String> lines = response.body()) {
                lines.takeWhile(l -> left.get() > 0).filter(l -> l.startsWith("data: ")).forEach(l -> {
                    JsonNode e = Rest.JSON.readTree(l.substring(6));
                    seen.add(e);
                    if (e.get("type").asString().equals("session.status_idle")) left.decrementAndGet();
                });
            }
            return seen;
        });
    }

    @Test
    void aReachedBudgetSendsNoFurtherRequestARaiseContinuesAndPreviewsGoOnlyToStreamsThatAsked() throws Exception {
        String session = api.post("/v1/sessions", Map.of("agent", agent, "environment_id", env, "budget", budget("150"))).body().get("id").asString();
        CompletableFuture<List<JsonNode>> previewing = follow(session, "?event_deltas[]=agent.message", 2);
        CompletableFuture<List<JsonNode>> plain = follow(session, "", 2);
        say(session, "go");

        await().atMost(Duration.ofSeconds(60)).until(() -> idles(session).size() == 1);
        assertThat(idles(session).getFirst().get("stop_reason").get("type").asString()).isEqualTo("budget_reached");
        assertThat(model.requests).hasSize(2);
        JsonNode usage = api.get("/v1/sessions/" + session, Map.of()).body().get("usage");
        assertThat(usage.get("list_cost").get("amount").asString()).isEqualTo("200");
        assertThat(usage.get("list_cost").get("currency").asString()).isEqualTo("USD");

        Rest.Answer lowered = api.post("/v1/sessions/" + session, Map.of("budget", budget("200")));
        assertThat(lowered.status()).isEqualTo(400);
        assertThat(lowered.body().get("error").get("details").get("error_code").asString()).isEqualTo("budget_not_raised");
        assertThat(api.post("/v1/sessions/" + session, Map.of("budget", budget("1000"))).body().get("budget").get("max_list_cost").get("amount")
                .asString()).isEqualTo("1000");
        say(session, "finish");
        await().atMost(Duration.ofSeconds(60)).until(() -> idles(session).size() == 2);
        assertThat(idles(session).get(1).get("stop_reason").get("type").asString()).isEqualTo("end_turn");
        assertThat(model.requests).hasSize(3);

        List<JsonNode> withDeltas = previewing.get(60, TimeUnit.SECONDS);
        List<JsonNode> without = plain.get(60, TimeUnit.SECONDS);
        assertThat(without).noneMatch(e -> e.get("type").asString().startsWith("event_"));
        List<JsonNode> messages = withDeltas.stream().filter(e -> e.get("type").asString().equals("agent.message")).toList();
        assertThat(messages).hasSize(3);
        for (JsonNode message : messages) {
            String id = message.get("id").asString();
            int start = indexOf(withDeltas, e -> e.get("type").asString().equals("event_start") && e.get("event").get("id").asString().equals(id));
            int buffered = withDeltas.indexOf(message);
            assertThat(start).isNotNegative().isLessThan(buffered);
            assertThat(withDeltas.get(start).get("event").get("type").asString()).isEqualTo("agent.message");
            StringBuilder streamed = new StringBuilder();
            for (JsonNode e : withDeltas.subList(start, buffered)) {
                if (e.get("type").asString().equals("event_delta") && e.get("event_id").asString().equals(id)) {
                    streamed.append(e.get("delta").get("content").get("text").asString());
                }
            }
            assertThat(streamed.toString()).isEqualTo(message.get("content").get(0).get("text").asString());
        }
        // the log keeps the buffered events only
        assertThat(SelfHostedWorkerTest.typesOf(api, session)).doesNotContain("event_start", "event_delta");
    }

    @Test
    void badBudgetsAndPreviewTypesAreRefusedWithTheirCodes() {
        Rest.Answer unknownType = api.get("/v1/sessions/" + api.post("/v1/sessions", Map.of("agent", agent, "environment_id", env)).body().get("id")
                .asString() + "/events/stream?event_deltas=agent.tool_use", Map.of());
        assertThat(unknownType.status()).isEqualTo(400);
        assertThat(unknownType.body().get("error").get("message").asString()).contains("event_deltas");

        String unpriced = api.post("/v1/agents", Map.of("name", "unpriced", "model", "claude-unpriced")).body().get("id").asString();
        Rest.Answer refused = api.post("/v1/sessions", Map.of("agent", unpriced, "environment_id", env, "budget", budget("100")));
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.body().get("error").get("details").get("error_code").asString()).isEqualTo("model_not_budgetable");
    }

    @Test
    void theTypeScriptSdkCreatesABudgetStreamsPreviewsAndGetsTypedRejections() throws Exception {
        String unpriced = api.post("/v1/agents", Map.of("name", "unpriced", "model", "claude-unpriced")).body().get("id").asString();
        Path sdk = NodeSdk.dir();
        // the script and its output stay out of the SDK's directory, which may be shared
        Path dir = Files.createTempDirectory("paddock-ts-budget");
        Path script = dir.resolve("budget-deltas.mjs");
        try (InputStream in = getClass().getResourceAsStream("/agents/budget-deltas.mjs")) {
            Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
        }
        Path output = dir.resolve("budget-deltas.out");
        ProcessBuilder pb = new ProcessBuilder("node", script.toString()).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(output.toFile());
        pb.environment().put("SDK_DIR", sdk.toString());
        pb.environment().put("PADDOCK_BASE_URL", stack.baseUrl);
        pb.environment().put("PADDOCK_API_KEY", stack.apiKey);
        pb.environment().put("AGENT_ID", agent);
        pb.environment().put("UNPRICED_AGENT_ID", unpriced);
        pb.environment().put("ENVIRONMENT_ID", env);
        Process node = pb.start();
        try {
            assertThat(node.waitFor(120, TimeUnit.SECONDS)).as("the script finished").isTrue();
        } finally {
            node.destroyForcibly();
        }
        String printed = Files.readString(output, StandardCharsets.UTF_8);
        Files.delete(script);
        Files.delete(output);
        Files.delete(dir);
        assertThat(node.exitValue()).as(printed).isZero();
        JsonNode out = Rest.JSON.readTree(printed.lines().reduce((a, b) -> b).orElseThrow());

        assertThat(out.get("createdBudget").get("max_list_cost").get("amount").asString()).isEqualTo("150");
        assertThat(out.get("firstStop").get("type").asString()).isEqualTo("budget_reached");
        assertThat(out.get("usageAtStop").get("list_cost").get("amount").asString()).isEqualTo("200");
        assertThat(out.get("raisedBudget").get("max_list_cost").get("amount").asString()).isEqualTo("1000");
        assertThat(model.requests).hasSize(3);

        JsonNode rejections = out.get("rejections");
        assertThat(rejections.get("lowered").get("class").asString()).isEqualTo("BadRequestError");
        assertThat(rejections.get("lowered").get("errorCode").asString()).isEqualTo("budget_not_raised");
        assertThat(rejections.get("addedLater").get("errorCode").asString()).isEqualTo("budget_create_only");
        assertThat(rejections.get("unpriced").get("errorCode").asString()).isEqualTo("model_not_budgetable");
        assertThat(rejections.get("unpriced").get("status").asInt()).isEqualTo(400);

        List<JsonNode> previewing = new ArrayList<>();
        out.get("previewing").forEach(previewing::add);
        List<JsonNode> messages = previewing.stream().filter(e -> e.get("type").asString().equals("agent.message")).toList();
        assertThat(messages).hasSize(3);
        for (JsonNode message : messages) {
            String id = message.get("id").asString();
            int start = indexOf(previewing, e -> e.get("type").asString().equals("event_start") && e.get("event").get("id").asString().equals(id));
            assertThat(start).isNotNegative().isLessThan(previewing.indexOf(message));
            assertThat(previewing.subList(start, previewing.indexOf(message)))
                    .anyMatch(e -> e.get("type").asString().equals("event_delta") && e.get("event_id").asString().equals(id));
        }
        List<String> plainTypes = new ArrayList<>();
        out.get("plainTypes").forEach(t -> plainTypes.add(t.asString()));
        assertThat(plainTypes).contains("agent.message").doesNotContain("event_start", "event_delta");
    }

    private static int indexOf(List<JsonNode> events, Predicate<JsonNode> match) {
        for (int i = 0; i < events.size(); i++) if (match.test(events.get(i))) return i;
        return -1;
    }
}
