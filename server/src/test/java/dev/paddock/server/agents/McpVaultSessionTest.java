package dev.paddock.server.agents;

import static dev.paddock.agents.testing.ScriptedModel.text;
import static dev.paddock.agents.testing.ScriptedModel.toolUse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.sun.net.httpserver.HttpServer;
import dev.paddock.agents.AgentsConfig;
import dev.paddock.agents.testing.ScriptedModel;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * Vaults and MCP servers end to end: a real Paddock on loopback whose agent names a real MCP server (the MCP SDK's
 * server side, on loopback, that requires a Bearer token); the scripted model calls the server's tool; the server-side
 * loop connects with the token from the session's vault. The token reaches the MCP server and nothing else: no event,
 * no answer, no log line.
 */
class McpVaultSessionTest {
    static final String TOKEN = "mcp-secret-token-7Qx9Lm2Vb4";
    static ScriptedModel model;
    static AgentsStack stack;
    static Rest api;
    static BearerMcpServer mcp;
    static ListAppender<ILoggingEvent> logs;
    static final List<Logger> loudened = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        logs = new ListAppender<>();
        logs.start();
        Logger root = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
        root.addAppender(logs);
        for (String name : List.of("dev.paddock", "io.modelcontextprotocol")) {
            Logger l = (Logger) LoggerFactory.getLogger(name);
            l.setLevel(Level.DEBUG);
            loudened.add(l);
        }
        mcp = new BearerMcpServer(TOKEN);
        model = new ScriptedModel(results -> switch (results) {
            case 0 -> List.of(text("Looking it up."), toolUse("toolu_1", "mcp__glossary__lookup", Map.of("q", "paddock")));
            default -> List.of(text("Found it."));
        });
        // the MCP server is on loopback: the operator setting allows it
        stack = new AgentsStack(AgentsConfig.defaults().withModel(model.baseUrl(), "k"), true);
        api = new Rest(stack.baseUrl, stack.apiKey);
    }

    @AfterAll
    static void stop() throws Exception {
        stack.close();
        model.close();
        mcp.close();
        ((Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME)).detachAppender(logs);
        loudened.forEach(l -> l.setLevel(null));
    }

    static String vaultWith(String token, String url) {
        Rest.Answer vault = api.post("/v1/vaults", Map.of("display_name", "team vault"));
        assertThat(vault.status()).isEqualTo(200);
        String id = vault.body().get("id").asString();
        Rest.Answer cred = api.post("/v1/vaults/" + id + "/credentials", Map.of("display_name", "glossary",
                "auth", Map.of("type", "static_bearer", "token", token, "mcp_server_url", url)));
        assertThat(cred.status()).isEqualTo(200);
        assertThat(cred.body().toString()).doesNotContain(token);
        return id;
    }

    static String agent(String url, String policy) {
        Rest.Answer a = api.post("/v1/agents", Map.of("name", "researcher", "model", "claude-sonnet-4-5",
                "mcp_servers", List.of(Map.of("type", "url", "name", "glossary", "url", url)),
                "tools", List.of(Map.of("type", "mcp_toolset", "mcp_server_name", "glossary",
                        "default_config", Map.of("permission_policy", Map.of("type", policy))))));
        assertThat(a.status()).isEqualTo(200);
        return a.body().get("id").asString();
    }

    static String session(String agent, String envConfigType, List<String> vaults) {
        String env = api.post("/v1/environments", Map.of("name", "env-" + System.nanoTime(), "config", Map.of("type", envConfigType)))
                .body().get("id").asString();
        Rest.Answer s = api.post("/v1/sessions", Map.of("agent", agent, "environment_id", env, "vault_ids", vaults));
        assertThat(s.status()).as(s.toString()).isEqualTo(200);
        assertThat(s.body().get("vault_ids").toString()).isEqualTo(Rest.JSON.valueToTree(vaults).toString());
        return s.body().get("id").asString();
    }

    static void say(String session, String text) {
        Rest.Answer sent = api.say(session, text);
        assertThat(sent.status()).isEqualTo(200);
    }

    static List<JsonNode> events(String session) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode e : api.get("/v1/sessions/" + session + "/events?limit=1000", Map.of()).body().get("data")) out.add(e);
        return out;
    }

    static List<JsonNode> untilIdle(String session, int idles) {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> {
            List<JsonNode> es = events(session);
            return es.stream().filter(e -> e.get("type").asString().equals("session.status_idle")).count() >= idles
                    && es.getLast().get("type").asString().equals("session.status_idle");
        });
        return events(session);
    }

    static JsonNode first(List<JsonNode> events, String type) {
        return events.stream().filter(e -> e.get("type").asString().equals(type)).findFirst().orElseThrow(() -> new AssertionError("no " + type + " in " + events));
    }

    static void assertTokenNowhere(String session, String vault) {
        assertThat(events(session).toString()).doesNotContain(TOKEN);
        assertThat(api.get("/v1/sessions/" + session, Map.of()).body().toString()).doesNotContain(TOKEN);
        assertThat(api.get("/v1/vaults/" + vault, Map.of()).body().toString()).doesNotContain(TOKEN);
        assertThat(api.get("/v1/vaults/" + vault + "/credentials", Map.of()).body().toString()).doesNotContain(TOKEN);
        for (ILoggingEvent e : List.copyOf(logs.list)) {
            assertThat(e.getFormattedMessage()).doesNotContain(TOKEN);
            if (e.getThrowableProxy() != null) assertThat(String.valueOf(e.getThrowableProxy().getMessage())).doesNotContain(TOKEN);
        }
    }

    @Test
    void theLoopCallsTheMcpToolWithTheVaultsTokenAndRecordsTheSdksEvents() {
        String vault = vaultWith(TOKEN, mcp.url());
        String session = session(agent(mcp.url(), "always_allow"), "cloud", List.of(vault));
        int callsBefore = mcp.calls.size();
        say(session, "what is paddock?");
        List<JsonNode> events = untilIdle(session, 1);

        JsonNode use = first(events, "agent.mcp_tool_use");
        assertThat(use.get("mcp_server_name").asString()).isEqualTo("glossary");
        assertThat(use.get("name").asString()).isEqualTo("lookup");
        assertThat(use.get("input").get("q").asString()).isEqualTo("paddock");
        assertThat(use.get("evaluated_permission").asString()).isEqualTo("allow");
        JsonNode result = first(events, "agent.mcp_tool_result");
        assertThat(result.get("mcp_tool_use_id").asString()).isEqualTo(use.get("id").asString());
        assertThat(result.get("is_error").asBoolean()).isFalse();
        assertThat(result.get("content").get(0).get("text").asString()).isEqualTo("definition of paddock");
        assertThat(events.getLast().get("stop_reason").get("type").asString()).isEqualTo("end_turn");

        // the MCP server got the vault's token, and the call
        assertThat(mcp.authorizations).contains("Bearer " + TOKEN);
        assertThat(mcp.calls.subList(callsBefore, mcp.calls.size())).containsExactly(Map.of("q", "paddock"));
        // the model was offered the tool under its qualified name and saw its result
        JsonNode firstRequest = model.requests.stream().filter(r -> r.toString().contains("what is paddock?")).findFirst().orElseThrow();
        assertThat(firstRequest.get("tools").toString()).contains("mcp__glossary__lookup");
        assertThat(model.lastToolResults().getLast()).contains("definition of paddock");
        assertTokenNowhere(session, vault);
    }

    @Test
    void aSelfHostedSessionsMcpCallsAreMadeByTheServer() {
        String vault = vaultWith(TOKEN, mcp.url());
        String session = session(agent(mcp.url(), "always_allow"), "self_hosted", List.of(vault));
        say(session, "what is paddock?");
        List<JsonNode> events = untilIdle(session, 1);
        assertThat(first(events, "agent.mcp_tool_result").get("content").get(0).get("text").asString()).isEqualTo("definition of paddock");
        assertThat(events.stream().map(e -> e.get("type").asString())).doesNotContain("agent.tool_use", "user.tool_result");
        assertTokenNowhere(session, vault);
    }

    @Test
    void alwaysAskWaitsForTheUsersConfirmationBeforeCalling() {
        String vault = vaultWith(TOKEN, mcp.url());
        String session = session(agent(mcp.url(), "always_ask"), "cloud", List.of(vault));
        int callsBefore = mcp.calls.size();
        say(session, "what is paddock?");
        List<JsonNode> events = untilIdle(session, 1);
        JsonNode use = first(events, "agent.mcp_tool_use");
        assertThat(use.get("evaluated_permission").asString()).isEqualTo("ask");
        JsonNode stop = events.getLast().get("stop_reason");
        assertThat(stop.get("type").asString()).isEqualTo("requires_action");
        assertThat(stop.get("event_ids").get(0).asString()).isEqualTo(use.get("id").asString());
        assertThat(mcp.calls).hasSize(callsBefore);

        Rest.Answer allow = api.post("/v1/sessions/" + session + "/events", Map.of("events",
                List.of(Map.of("type", "user.tool_confirmation", "tool_use_id", use.get("id").asString(), "result", "allow"))));
        assertThat(allow.status()).isEqualTo(200);
        events = untilIdle(session, 2);
        assertThat(first(events, "agent.mcp_tool_result").get("is_error").asBoolean()).isFalse();
        assertThat(mcp.calls).hasSize(callsBefore + 1);
        assertThat(events.getLast().get("stop_reason").get("type").asString()).isEqualTo("end_turn");
    }

    @Test
    void aWrongTokenEndsTheTurnWithMcpAuthenticationFailed() {
        String vault = vaultWith("not-the-right-token", mcp.url());
        String session = session(agent(mcp.url(), "always_allow"), "cloud", List.of(vault));
        say(session, "what is paddock?");
        List<JsonNode> events = untilIdle(session, 1);
        JsonNode error = first(events, "session.error").get("error");
        assertThat(error.get("type").asString()).isEqualTo("mcp_authentication_failed_error");
        assertThat(error.get("mcp_server_name").asString()).isEqualTo("glossary");
        assertThat(error.get("message").asString()).doesNotContain("not-the-right-token");
        assertThat(events.getLast().get("stop_reason").get("type").asString()).isEqualTo("retries_exhausted");
        assertThat(mcp.authorizations).contains("Bearer not-the-right-token");
        // the session takes new input afterwards
        assertThat(api.get("/v1/sessions/" + session, Map.of()).body().get("status").asString()).isEqualTo("idle");
        assertTokenNowhere(session, vault);
    }

    @Test
    void aSessionWithoutAMatchingCredentialSendsNoneAndIsRefused() {
        Rest.Answer vault = api.post("/v1/vaults", Map.of("display_name", "empty"));
        String session = session(agent(mcp.url(), "always_allow"), "cloud", List.of(vault.body().get("id").asString()));
        say(session, "what is paddock?");
        JsonNode error = first(untilIdle(session, 1), "session.error").get("error");
        assertThat(error.get("type").asString()).isEqualTo("mcp_authentication_failed_error");
        assertThat(mcp.authorizations).contains("");
    }

    @Test
    void anUnreachableServerEndsTheTurnWithMcpConnectionFailed() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String url = "http://127.0.0.1:" + port + "/mcp";
        String vault = vaultWith(TOKEN, url);
        String session = session(agent(url, "always_allow"), "cloud", List.of(vault));
        say(session, "what is paddock?");
        List<JsonNode> events = untilIdle(session, 1);
        JsonNode error = first(events, "session.error").get("error");
        assertThat(error.get("type").asString()).isEqualTo("mcp_connection_failed_error");
        assertThat(error.get("mcp_server_name").asString()).isEqualTo("glossary");
        assertThat(error.get("retry_status").get("type").asString()).isEqualTo("exhausted");
        assertThat(events.stream().map(e -> e.get("type").asString())).doesNotContain("span.model_request_start");
        assertTokenNowhere(session, vault);
    }

    @Test
    void aRedirectIsNotFollowedSoTheTokenGoesNowhereElse() throws Exception {
        List<String> elsewhere = new CopyOnWriteArrayList<>();
        HttpServer target = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        target.createContext("/", exchange -> {
            elsewhere.add(String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")));
            exchange.sendResponseHeaders(500, -1);
            exchange.close();
        });
        HttpServer redirector = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        redirector.createContext("/", exchange -> {
            exchange.getResponseHeaders().add("Location", "http://127.0.0.1:" + target.getAddress().getPort() + "/mcp");
            exchange.sendResponseHeaders(307, -1);
            exchange.close();
        });
        target.start();
        redirector.start();
        try {
            String url = "http://127.0.0.1:" + redirector.getAddress().getPort() + "/mcp";
            String session = session(agent(url, "always_allow"), "cloud", List.of(vaultWith(TOKEN, url)));
            say(session, "what is paddock?");
            JsonNode error = first(untilIdle(session, 1), "session.error").get("error");
            assertThat(error.get("type").asString()).isEqualTo("mcp_connection_failed_error");
            assertThat(elsewhere).isEmpty();
        } finally {
            redirector.stop(0);
            target.stop(0);
        }
    }

    @Test
    void validatingACredentialProbesItsMcpServer() throws Exception {
        String good = vaultWith(TOKEN, mcp.url());
        String bad = vaultWith("not-the-right-token", mcp.url());
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String gone = vaultWith(TOKEN, "http://127.0.0.1:" + port + "/mcp");
        JsonNode valid = validate(good);
        assertThat(valid.get("type").asString()).isEqualTo("vault_credential_validation");
        assertThat(valid.get("vault_id").asString()).isEqualTo(good);
        assertThat(valid.get("status").asString()).isEqualTo("valid");
        assertThat(valid.get("mcp_probe").isNull()).isTrue();
        assertThat(valid.get("has_refresh_token").asBoolean()).isFalse();
        JsonNode invalid = validate(bad);
        assertThat(invalid.get("status").asString()).isEqualTo("invalid");
        assertThat(invalid.get("mcp_probe").get("method").asString()).isEqualTo("initialize");
        assertThat(validate(gone).get("status").asString()).isEqualTo("unknown");
        assertThat(valid.toString() + invalid).doesNotContain(TOKEN).doesNotContain("not-the-right-token");
    }

    static JsonNode validate(String vault) {
        JsonNode credential = api.get("/v1/vaults/" + vault + "/credentials", Map.of()).body().get("data").get(0);
        Rest.Answer r = api.post("/v1/vaults/" + vault + "/credentials/" + credential.get("id").asString() + "/mcp_oauth_validate", Map.of());
        assertThat(r.status()).as(r.toString()).isEqualTo(200);
        return r.body();
    }

    @Test
    void deletingTheSessionClosesItsMcpConnections() throws Exception {
        String vault = vaultWith(TOKEN, mcp.url());
        String session = session(agent(mcp.url(), "always_allow"), "cloud", List.of(vault));
        say(session, "what is paddock?");
        untilIdle(session, 1);
        int deletesBefore = (int) mcp.methods.stream().filter("DELETE"::equals).count();
        HttpResponse<String> deleted = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(stack.baseUrl + "/v1/sessions/" + session))
                .header("x-api-key", stack.apiKey).DELETE().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(deleted.statusCode()).isEqualTo(200);
        // the client ends its MCP session (an HTTP DELETE, as streamable HTTP has it) when the Paddock session goes
        await().atMost(Duration.ofSeconds(10)).until(() -> mcp.methods.stream().filter("DELETE"::equals).count() > deletesBefore);
    }
}
