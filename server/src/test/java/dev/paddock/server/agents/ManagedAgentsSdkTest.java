package dev.paddock.server.agents;

import static dev.paddock.agents.testing.ScriptedModel.text;
import static dev.paddock.agents.testing.ScriptedModel.toolUse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.JsonValue;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.errors.BadRequestException;
import com.anthropic.errors.ConflictException;
import com.anthropic.errors.NotFoundException;
import com.anthropic.errors.UnauthorizedException;
import com.anthropic.models.beta.agents.AgentCreateParams;
import com.anthropic.models.beta.agents.BetaManagedAgentsAgent;
import com.anthropic.models.beta.agents.BetaManagedAgentsAgentToolset20260401Params;
import com.anthropic.models.beta.environments.BetaEnvironment;
import com.anthropic.models.beta.environments.EnvironmentCreateParams;
import com.anthropic.models.beta.environments.EnvironmentUpdateParams;
import com.anthropic.models.beta.sessions.BetaManagedAgentsSession;
import com.anthropic.models.beta.sessions.SessionCreateParams;
import com.anthropic.models.beta.sessions.events.BetaManagedAgentsSessionEvent;
import com.anthropic.models.beta.sessions.events.BetaManagedAgentsStreamSessionEvents;
import com.anthropic.models.beta.sessions.events.EventListParams;
import com.anthropic.models.beta.sessions.events.EventSendParams;
import dev.paddock.agents.AgentsConfig;
import dev.paddock.agents.testing.ScriptedModel;
import dev.paddock.core.agents.Resource;
import dev.paddock.core.agents.Session;
import dev.paddock.access.Principal;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The official Java SDK against a real Paddock on loopback, with a scripted model: the supervised lane writes,
 * edits, runs and reads files in the session's sandbox, streams every step, and goes idle with end_turn.
 */
class ManagedAgentsSdkTest {
    static ScriptedModel model;
    static AgentsStack stack;
    static AnthropicClient client;

    @BeforeAll
    static void start() throws IOException {
        model = new ScriptedModel(results -> switch (results) {
            case 0 -> List.of(text("Writing a file."), toolUse("toolu_1", "write", Map.of("file_path", "/workspace/hello.txt", "content", "hello\n")));
            case 1 -> List.of(toolUse("toolu_2", "edit", Map.of("file_path", "/workspace/hello.txt", "old_string", "hello", "new_string", "hello paddock")));
            case 2 -> List.of(toolUse("toolu_3", "bash", Map.of("command", "cat hello.txt > out.txt && echo ran")));
            case 3 -> List.of(toolUse("toolu_4", "read", Map.of("file_path", "/workspace/out.txt")));
            default -> List.of(text("All done."));
        });
        stack = new AgentsStack(AgentsConfig.defaults().withModel(model.baseUrl(), "test-model-key"));
        client = AnthropicOkHttpClient.builder().baseUrl(stack.baseUrl).apiKey(stack.apiKey).maxRetries(0).build();
    }

    @AfterAll
    static void stop() {
        client.close();
        stack.close();
        model.close();
    }

    static BetaManagedAgentsAgent coder() {
        return client.beta().agents().create(AgentCreateParams.builder().name("coder").model(com.anthropic.models.beta.agents.BetaManagedAgentsModel.of("claude-sonnet-4-5"))
                .system("You write files.").addTool(BetaManagedAgentsAgentToolset20260401Params.builder().build()).build());
    }

    static BetaEnvironment environment(String name) {
        return client.beta().environments().create(EnvironmentCreateParams.builder().name(name).build());
    }

    @Test
    void supervisedSessionRunsToolsInItsSandboxAndStreamsToIdle() {
        BetaManagedAgentsAgent agent = coder();
        assertThat(agent.version()).isEqualTo(1);
        BetaEnvironment env = environment("sandboxed-" + System.nanoTime());
        BetaManagedAgentsSession session = client.beta().sessions().create(SessionCreateParams.builder()
                .agent(agent.id()).environmentId(env.id()).title("first").build());
        assertThat(session.status()).hasToString("idle");

        List<String> types = new ArrayList<>();
        try (StreamResponse<BetaManagedAgentsStreamSessionEvents> stream = client.beta().sessions().events().streamStreaming(session.id())) {
            client.beta().sessions().events().send(session.id(), EventSendParams.builder()
                    .addUserMessageEvent(List.of(com.anthropic.models.beta.sessions.events.BetaManagedAgentsUserMessageEventParams.Content
                            .ofText(com.anthropic.models.beta.sessions.events.BetaManagedAgentsTextBlock.builder().text("make hello.txt").build())))
                    .build());
            var it = stream.stream().iterator();
            while (it.hasNext()) {
                BetaManagedAgentsStreamSessionEvents e = it.next();
                String type = field(e, "type");
                types.add(type);
                if (e.isSessionStatusIdle()) {
                    assertThat(e.asSessionStatusIdle().stopReason().isEndTurn()).isTrue();
                    break;
                }
            }
        }
        assertThat(types).startsWith("user.message", "session.status_running", "span.model_request_start", "span.model_request_end", "agent.message", "agent.tool_use", "agent.tool_result");
        assertThat(types).endsWith("agent.message", "session.status_idle");
        assertThat(types.stream().filter("agent.tool_result"::equals)).hasSize(4);

        // the model saw each tool's real result
        assertThat(model.lastToolResults().getLast()).contains("hello paddock");
        // and the files are in the session's sandbox
        Session stored = stack.store.agents().resources().find(Resource.SESSION, "default", session.id()).map(Session::new).orElseThrow();
        var ws = stack.host.workspace(new Principal("default", "agents", false), stored.sandboxId());
        assertThat(read(ws.read("/workspace/hello.txt"))).isEqualTo("hello paddock\n");
        assertThat(read(ws.read("/workspace/out.txt"))).isEqualTo("hello paddock\n");
        BetaManagedAgentsSession done = client.beta().sessions().retrieve(session.id());
        assertThat(done.status()).hasToString("idle");
        // five model requests of 10 input and 5 output tokens each, read through the SDK's own types
        assertThat(done.usage().inputTokens()).contains(50L);
        assertThat(done.usage().outputTokens()).contains(25L);
        assertThat(done.stats().activeSeconds()).hasValueSatisfying(active -> assertThat(active).isPositive()
                .isLessThanOrEqualTo(done.stats().durationSeconds().orElseThrow()));

        // events list with pagination: pages of 3 cover every event exactly once, in order
        List<String> listed = new ArrayList<>();
        var page = client.beta().sessions().events().list(session.id(), EventListParams.builder().limit(3).build());
        int pages = 0;
        while (true) {
            pages++;
            for (BetaManagedAgentsSessionEvent e : page.data()) listed.add(field(e, "type"));
            if (!page.hasNextPage()) break;
            page = page.nextPage();
        }
        assertThat(pages).isGreaterThan(3);
        assertThat(listed).hasSize(types.size());
        List<String> ids = new ArrayList<>();
        client.beta().sessions().events().list(session.id(), EventListParams.builder().limit(4).build()).autoPager()
                .forEach(e -> ids.add(field(e, "id")));
        assertThat(ids).doesNotHaveDuplicates().hasSize(types.size());

        // archive then delete
        BetaManagedAgentsSession archived = client.beta().sessions().archive(session.id());
        assertThat(archived.archivedAt()).isPresent();
        assertThat(archived.status()).hasToString("terminated");
        client.beta().sessions().delete(session.id());
        assertThatThrownBy(() -> client.beta().sessions().retrieve(session.id())).isInstanceOf(NotFoundException.class);
        BetaManagedAgentsAgent archivedAgent = client.beta().agents().archive(agent.id());
        assertThat(archivedAgent.archivedAt()).isPresent();
    }

    @Test
    void errorsArriveAsTheSdksExceptionTypes() {
        String name = "dup-" + System.nanoTime();
        environment(name);
        assertThatThrownBy(() -> environment(name)).isInstanceOf(ConflictException.class).hasMessageContaining("already exists");
        assertThatThrownBy(() -> client.beta().agents().retrieve("agent_0123456789abcdefghjkmnpqrs")).isInstanceOf(NotFoundException.class);
        assertThatThrownBy(() -> client.beta().environments().create(EnvironmentCreateParams.builder().name("bad-" + System.nanoTime())
                .putAdditionalBodyProperty("config", JsonValue.from(Map.of("type", "cloud", "networking", Map.of("type", "open")))).build()))
                .isInstanceOf(BadRequestException.class).hasMessageContaining("networking.type");
        AnthropicClient stranger = AnthropicOkHttpClient.builder().baseUrl(stack.baseUrl).apiKey("pdk_not-a-real-key-at-all").maxRetries(0).build();
        try {
            assertThatThrownBy(() -> stranger.beta().agents().list()).isInstanceOf(UnauthorizedException.class);
        } finally {
            stranger.close();
        }
    }

    @Test
    void staleIdsInTheSdksFormatAreNotFoundAndReasonsArriveAsTheSdksErrorCodes() {
        assertThatThrownBy(() -> client.beta().sessions().retrieve("sesn_011CZkZAtmR3yMPDzynEDxu7"))
                .isInstanceOfSatisfying(NotFoundException.class, e -> assertThat(e.errorCode()).contains("not_found"));
        assertThatThrownBy(() -> client.beta().environments().retrieve("env_011CZkZAtmR3yMPDzynEDxu7"))
                .isInstanceOfSatisfying(NotFoundException.class, e -> assertThat(e.errorCode()).contains("environment_not_found"));
        BetaEnvironment env = environment("typed-" + System.nanoTime());
        assertThatThrownBy(() -> client.beta().environments().update(env.id(), EnvironmentUpdateParams.builder()
                .putAdditionalBodyProperty("config", JsonValue.from(Map.of("type", "self_hosted"))).build()))
                .isInstanceOfSatisfying(BadRequestException.class, e -> assertThat(e.errorCode()).contains("invalid_config_type_change"));
        assertThatThrownBy(() -> client.beta().environments().update(env.id(), EnvironmentUpdateParams.builder()
                .putAdditionalBodyProperty("metadata", JsonValue.from(Map.of("k", "v".repeat(600)))).build()))
                .isInstanceOfSatisfying(BadRequestException.class, e -> assertThat(e.errorCode()).contains("invalid_metadata"));
        client.beta().environments().archive(env.id());
        assertThatThrownBy(() -> client.beta().environments().update(env.id(), EnvironmentUpdateParams.builder().name("renamed").build()))
                .isInstanceOfSatisfying(BadRequestException.class, e -> assertThat(e.errorCode()).contains("environment_archived"));
    }

    /** A field of an SDK object as it is on the wire. */
    private static String field(Object sdkObject, String name) {
        return com.anthropic.core.ObjectMappers.jsonMapper().valueToTree(sdkObject).path(name).asText();
    }

    private static String read(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
