package dev.paddock.server.agents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.access.Principal;
import dev.paddock.agents.AgentsConfig;
import dev.paddock.agents.testing.ScriptedModel;
import dev.paddock.agents.testing.ScriptedModel.Reply;
import dev.paddock.agents.worker.PaddockWorker;
import dev.paddock.core.store.PageRequest;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;

/**
 * The official SDKs end to end against a real Paddock on loopback (SQLite, the subprocess driver, a scripted
 * Messages API in place of the vendor's): every scenario of {@link SdkScenario#ALL} runs through each SDK in each
 * lane — the TypeScript SDK with its own EnvironmentWorker, the Java SDK and the Python SDK with Paddock's Java
 * worker ({@code paddock worker}) in the self-hosted lane. Each session's events are checked for their order,
 * for what they say, and against the TypeScript SDK's declared types; errors must arrive as the SDK's typed errors.
 */
class SdkConformanceTest {
    enum Lane {
        TYPESCRIPT_CLOUD(false), TYPESCRIPT_SDK_WORKER(true), JAVA_CLOUD(false), JAVA_PADDOCK_WORKER(true),
        PYTHON_CLOUD(false), PYTHON_PADDOCK_WORKER(true);

        final boolean selfHosted;

        Lane(boolean selfHosted) {
            this.selfHosted = selfHosted;
        }

        String client() {
            return name().substring(0, name().indexOf('_')).toLowerCase();
        }

        /** Whether the worker stops a tool that runs when the session is interrupted (the SDK's worker does not). */
        boolean killsInterruptedTools() {
            return this != TYPESCRIPT_SDK_WORKER;
        }
    }

    static ScriptedModel model;
    static AgentsStack stack;
    static Rest api;

    @BeforeAll
    static void start() throws IOException {
        model = new ScriptedModel((results, call) -> answer(model.requests.get(call - 1)));
        // a short retry budget, so that a model that stays overloaded exhausts it in seconds
        stack = new AgentsStack(AgentsConfig.defaults().withModel(model.baseUrl(), "k")
                .withModelRetry(Duration.ofSeconds(3), Duration.ofMillis(500)));
        api = new Rest(stack.baseUrl, stack.apiKey);
    }

    @AfterAll
    static void stop() {
        if (stack != null) stack.close();
        if (model != null) model.close();
    }

    /** Each agent's model is named {@code sdk.<lane>.<scenario>}; the scenario answers its session's n-th request. */
    private static Reply answer(JsonNode request) {
        String name = request.get("model").asString();
        long step = model.requests.stream().filter(r -> r.get("model").asString().equals(name)).count();
        return scenario(name.substring(name.lastIndexOf('.') + 1)).model().apply((int) step);
    }

    private static SdkScenario scenario(String name) {
        return SdkScenario.ALL.stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow();
    }

    @ParameterizedTest
    @EnumSource(Lane.class)
    @Timeout(value = 6, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void everyScenarioRunsThroughTheSdk(Lane lane) throws Exception {
        Path work = Files.createTempDirectory("paddock-sdk-" + lane.client());
        try {
            Files.createDirectories(work.resolve("workdir"));
            runLane(lane, work);
        } finally {
            try (Stream<Path> files = Files.walk(work)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static void runLane(Lane lane, Path work) throws Exception {
        String env;
        String envKey = null;
        if (lane.selfHosted) {
            env = api.post("/v1/environments", Map.of("name", "sdk-" + lane, "config", Map.of("type", "self_hosted"))).body().get("id").asString();
            envKey = api.post("/v1/environments/" + env + "/keys", Map.of("name", "worker")).body().get("key").asString();
        } else {
            env = api.post("/v1/environments", Map.of("name", "sdk-" + lane)).body().get("id").asString();
        }
        String workerId = "sdk-" + lane.name().toLowerCase();
        Function<String, Optional<String>> workerFiles = switch (lane) {
            case TYPESCRIPT_CLOUD, JAVA_CLOUD, PYTHON_CLOUD -> null;
            case TYPESCRIPT_SDK_WORKER -> name -> fileUnder(work.resolve("workdir"), name);
            default -> name -> workerFile(new Principal("worker", workerId, false), name);
        };
        List<Map<String, Object>> plans = new ArrayList<>();
        Map<SdkScenario.Gate, String> gatedAgents = new EnumMap<>(SdkScenario.Gate.class);
        Map<SdkScenario.Gate, String> gatedModels = new EnumMap<>(SdkScenario.Gate.class);
        for (SdkScenario s : SdkScenario.ALL) {
            Rest.Answer agent = api.post("/v1/agents", Map.of("name", s.name(), "model", "sdk." + lane + "." + s.name(), "tools", s.tools()));
            assertThat(agent.status()).as(agent.body().toString()).isEqualTo(200);
            String agentId = agent.body().get("id").asString();
            if (s.interruptGate() != null) {
                gatedAgents.put(s.interruptGate(), agentId);
                gatedModels.put(s.interruptGate(), "sdk." + lane + "." + s.name());
            }
            plans.add(s.plan(agentId, env, s.interruptGate() == null ? null : gateFile(work, s.interruptGate())));
        }
        // opens each gate for the client's interrupt once what it waits for has happened
        Thread gatekeeper = Thread.ofVirtual().start(() -> {
            Set<SdkScenario.Gate> closed = new HashSet<>(gatedAgents.keySet());
            while (!closed.isEmpty() && !Thread.currentThread().isInterrupted()) {
                for (SdkScenario.Gate gate : List.copyOf(closed)) {
                    boolean open = switch (gate) {
                        case MODEL_ASKED -> model.requests.stream().anyMatch(r -> r.get("model").asString().equals(gatedModels.get(gate)));
                        case TOOL_STARTED -> (workerFiles != null ? workerFiles.apply("started.txt")
                                : sessionOf(gatedAgents.get(gate)).flatMap(session -> sessionFile(session, "started.txt"))).isPresent();
                    };
                    if (!open) continue;
                    try {
                        Files.createFile(gateFile(work, gate));
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                    closed.remove(gate);
                }
                sleepQuietly(Duration.ofMillis(100));
            }
        });

        PaddockWorker worker = null;
        Thread workerThread = null;
        if (lane.selfHosted && lane != Lane.TYPESCRIPT_SDK_WORKER) {
            // it serves one session at a time, like the SDK's worker: a short idle lets it go on to the next scenario's
            worker = new PaddockWorker(new PaddockWorker.Settings(stack.baseUrl, env, envKey, workerId, Duration.ofSeconds(1),
                    Duration.ofSeconds(2), null), stack.host);
            workerThread = Thread.ofVirtual().start(worker::run);
        }
        JsonNode answer;
        try {
            answer = switch (lane.client()) {
                case "java" -> {
                    try (JavaSdkDriver driver = new JavaSdkDriver(stack.baseUrl, stack.apiKey)) {
                        yield driver.run(plans);
                    }
                }
                case "typescript" -> ScriptDrivers.typescript(plan(plans, work, lane == Lane.TYPESCRIPT_SDK_WORKER
                        ? Map.of("environmentId", env, "environmentKey", envKey, "workdir", work.resolve("workdir").toString()) : null));
                default -> ScriptDrivers.python(plan(plans, work, null));
            };
        } finally {
            gatekeeper.interrupt();
            if (worker != null) {
                worker.close();
                workerThread.join(Duration.ofSeconds(10));
            }
        }

        Map<SdkTypes.Type, List<JsonNode>> shapes = new EnumMap<>(SdkTypes.Type.class);
        for (SdkTypes.Type t : SdkTypes.Type.values()) shapes.put(t, new ArrayList<>());
        for (JsonNode result : answer.get("results")) {
            SdkScenario s = scenario(result.get("scenario").asString());
            String modelName = "sdk." + lane + "." + s.name();
            SdkOutcome o = new SdkOutcome(lane, s, result, workerFiles != null ? workerFiles : name -> sessionFile(result.get("session_id").asString(), name),
                    model.requests.stream().filter(r -> r.get("model").asString().equals(modelName)).toList());
            o.checkOrder();
            o.checkToolCallsAnswered();
            checkScenario(o);
            // the log listed page by page holds exactly what was streamed, in the same order
            List<String> listed = new ArrayList<>();
            result.get("listed").forEach(e -> listed.add(e.get("id").asString()));
            assertThat(listed).as("listed ids").containsExactlyElementsOf(o.events().stream().map(e -> e.get("id").asString()).toList());
            result.get("events").forEach(shapes.get(SdkTypes.Type.STREAMED_EVENT)::add);
            result.get("listed").forEach(shapes.get(SdkTypes.Type.LISTED_EVENT)::add);
            shapes.get(SdkTypes.Type.SESSION).add(result.get("session"));
            shapes.get(SdkTypes.Type.EVENTS_SENT).add(result.get("accepted"));
        }
        assertThat(answer.get("results")).hasSize(SdkScenario.ALL.size());
        SdkTypes.check(lane.toString(), shapes);
        JsonNode errors = answer.get("errors");
        boolean java = lane.client().equals("java");
        String notFound = java ? "NotFoundException" : "NotFoundError";
        assertThat(errors.get("stale_session").asString()).isEqualTo(notFound);
        assertThat(errors.get("stale_session_events").asString()).isEqualTo(notFound);
        assertThat(errors.get("stale_agent").asString()).isEqualTo(notFound);
        // a terminated session takes no more events
        assertThat(errors.get("terminated_session").asString()).isEqualTo(java ? "ConflictException" : "ConflictError");
    }

    private static Path gateFile(Path work, SdkScenario.Gate gate) {
        return work.resolve("gate-" + gate);
    }

    private static Path plan(List<Map<String, Object>> scenarios, Path dir, Map<String, String> worker) throws IOException {
        Map<String, Object> plan = new LinkedHashMap<>();
        plan.put("baseUrl", stack.baseUrl);
        plan.put("apiKey", stack.apiKey);
        plan.put("output", dir.resolve("result.json").toString());
        plan.put("scenarios", scenarios);
        if (worker != null) plan.put("worker", worker);
        Path file = dir.resolve("plan.json");
        Files.write(file, Rest.JSON.writeValueAsBytes(plan));
        return file;
    }

    /** What each scenario is about, beyond the order of its events. */
    private static void checkScenario(SdkOutcome o) {
        switch (o.scenario().name()) {
            case "tool_call" -> {
                JsonNode use = o.only("agent.tool_use");
                assertThat(o.toolResultText(use)).contains("hello-sdk");
                assertThat(o.modelSawResults().get(use.get("id").asString())).contains("hello-sdk");
            }
            case "parallel_tools" -> {
                // each result names its call, and the model got every result under its own call's id
                List<JsonNode> uses = o.all("agent.tool_use");
                assertThat(uses).extracting(u -> u.get("name").asString()).containsExactly("bash", "bash", "write");
                assertThat(o.toolResultText(uses.get(0))).contains("first");
                assertThat(o.toolResultText(uses.get(1))).contains("second");
                Map<String, String> seen = o.modelSawResults();
                assertThat(seen).containsOnlyKeys(uses.stream().map(u -> u.get("id").asString()).toList());
                assertThat(seen.get(uses.get(0).get("id").asString())).contains("first");
                assertThat(seen.get(uses.get(1).get("id").asString())).contains("second");
                assertThat(o.file("p3.txt")).contains("third\n");
            }
            case "tool_error" -> {
                assertThat(o.resultOf(o.only("agent.tool_use")).get("is_error").asBoolean()).isTrue();
                assertThat(o.lastModelRequestResults().getFirst().get("is_error").asBoolean()).isTrue();
            }
            case "refusal" -> {
                JsonNode idle = o.last();
                assertThat(idle.get("stop_details").get("type").asString()).isEqualTo("refusal");
                assertThat(idle.get("stop_details").get("category").asString()).isEqualTo("cyber");
                assertThat(idle.get("stop_details").get("explanation").asString()).isEqualTo("scripted refusal");
            }
            case "rate_limited" -> {
                JsonNode error = o.only("session.error").get("error");
                assertThat(error.get("type").asString()).isEqualTo("model_rate_limited_error");
                assertThat(error.get("retry_status").get("type").asString()).isEqualTo("retrying");
                assertThat(o.only("agent.message").get("content").get(0).get("text").asString()).isEqualTo("Answered after the rate limit.");
            }
            case "overloaded" -> {
                List<JsonNode> errors = o.all("session.error");
                assertThat(errors).hasSizeGreaterThan(1).allSatisfy(e -> assertThat(e.get("error").get("type").asString()).isEqualTo("model_overloaded_error"));
                assertThat(errors.subList(0, errors.size() - 1)).allSatisfy(e ->
                        assertThat(e.get("error").get("retry_status").get("type").asString()).isEqualTo("retrying"));
                assertThat(errors.getLast().get("error").get("retry_status").get("type").asString()).isEqualTo("exhausted");
                assertThat(o.last().get("stop_details").isNull()).isTrue();
            }
            case "bad_request" -> {
                JsonNode error = o.only("session.error").get("error");
                assertThat(error.get("type").asString()).isEqualTo("model_request_failed_error");
                assertThat(error.get("retry_status").get("type").asString()).isEqualTo("terminal");
                assertThat(o.result().get("status").asString()).isEqualTo("terminated");
            }
            case "custom_tool" -> {
                JsonNode use = o.only("agent.custom_tool_use");
                assertThat(use.get("name").asString()).isEqualTo("lookup");
                assertThat(use.get("input").get("q").asString()).isEqualTo("answer");
                assertThat(o.all("session.status_idle").getFirst().get("stop_reason").get("event_ids"))
                        .extracting(JsonNode::asString).containsExactly(use.get("id").asString());
                assertThat(o.modelSawResults()).containsEntry(use.get("id").asString(), "forty-two");
            }
            case "confirm_allow" -> {
                JsonNode use = o.only("agent.tool_use");
                assertThat(use.get("evaluated_permission").asString()).isEqualTo("ask");
                assertThat(o.resultOf(use).get("is_error").asBoolean()).isFalse();
                assertThat(o.file("confirm_allow.txt")).contains("confirmed\n");
            }
            case "confirm_deny" -> {
                JsonNode use = o.only("agent.tool_use");
                assertThat(o.resultOf(use).get("is_error").asBoolean()).isTrue();
                assertThat(o.modelSawResults().get(use.get("id").asString())).contains("not this time");
                assertThat(o.file("confirm_deny.txt")).isEmpty();
            }
            case "interrupt_model" -> {
                // the cancelled request recorded no answer, and the session did not wait for the slow model
                assertThat(o.types()).doesNotContain("agent.message");
                assertThat(o.only("span.model_request_end").get("is_error").asBoolean()).isTrue();
                assertThat(o.result().get("idle_after_interrupt_ms").asLong()).isLessThan(10_000);
                assertThat(o.modelRequests()).hasSize(1);
            }
            case "interrupt_tool" -> {
                JsonNode use = o.only("agent.tool_use");
                assertThat(o.resultOf(use).get("is_error").asBoolean()).isTrue();
                assertThat(o.toolResultText(use)).containsIgnoringCase("interrupt");
                assertThat(o.result().get("idle_after_interrupt_ms").asLong()).as("idle long before the tool's 20 s").isLessThan(10_000);
                assertThat(o.modelRequests()).hasSize(1);
                assertThat(o.file("started.txt")).as("the tool was running when interrupted").contains("started\n");
                if (o.lane().killsInterruptedTools()) {
                    // late.txt would be written 3 s after the start by a child in the tool's process group
                    sleepQuietly(Duration.ofMillis(3500));
                    assertThat(o.file("late.txt")).as("written by a process the interrupt should have killed").isEmpty();
                }
            }
            default -> throw new AssertionError("no checks for " + o.scenario().name());
        }
    }

    private static void sleepQuietly(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The session of this agent, once there is one. */
    private static Optional<String> sessionOf(String agent) {
        for (JsonNode session : api.get("/v1/sessions?limit=100", Map.of()).body().get("data")) {
            if (session.get("agent").get("id").asString().equals(agent)) return Optional.of(session.get("id").asString());
        }
        return Optional.empty();
    }

    /** A file the session's tools wrote in its Paddock sandbox's workspace. */
    private static Optional<String> sessionFile(String session, String name) {
        JsonNode sandbox = api.get("/v1/sessions/" + session, Map.of()).body().get("paddock_sandbox_id");
        if (sandbox == null || sandbox.isNull()) return Optional.empty();
        return read(new Principal("default", "agents", false), sandbox.asString(), name);
    }

    /** A file written in any sandbox of Paddock's Java worker (one per session it served). */
    private static Optional<String> workerFile(Principal owner, String name) {
        for (var sandbox : stack.host.list(owner, PageRequest.first(100), true).data()) {
            Optional<String> found = read(owner, sandbox.id(), name);
            if (found.isPresent()) return found;
        }
        return Optional.empty();
    }

    private static Optional<String> read(Principal owner, String sandbox, String name) {
        try (InputStream in = stack.host.workspace(owner, sandbox).read("/workspace/" + name)) {
            return Optional.of(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** A file the SDK's worker wrote somewhere under its workdir. */
    private static Optional<String> fileUnder(Path dir, String name) {
        if (!Files.isDirectory(dir)) return Optional.empty();
        try (Stream<Path> files = Files.walk(dir)) {
            Optional<Path> found = files.filter(p -> p.getFileName().toString().equals(name)).findFirst();
            return found.isEmpty() ? Optional.empty() : Optional.of(Files.readString(found.get()));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
