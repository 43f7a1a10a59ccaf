package dev.paddock.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.core.Ids;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * An environment key (a self-hosted worker's credential) reaches its own environment's work and sessions and the skill
 * versions they pin. Everything else of its tenant — another environment and its keys, a skill no session pins — must
 * answer it exactly as an id that does not exist (status, code and message, ids aside), on every route the
 * router has under the paths such a key is accepted on, so a leaked worker key cannot map its tenant's ids.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EnvironmentKeyReachTest {
    private static final Pattern PARAM = Pattern.compile("\\{([^}]+)}|<([^>]+)>");
    private static final List<String> KEY_PATHS = List.of("/v1/sessions/", "/v1/environments/", "/v1/skills/");

    private final TestServer t = new TestServer(ServerConfig.defaults().withPort(0)
            .withLimits(ServerConfig.DEFAULT_MAX_JSON_BYTES, TestServer.UPLOAD_LIMIT), true, true);
    /** The tenant's resources outside the key's environment, by path parameter. */
    private final Map<String, String> outside = new LinkedHashMap<>();
    private Api worker;

    @BeforeAll
    void fixtures() {
        Api api = t.admin;
        String mine = api.post("/v1/environments", "{\"name\":\"mine\",\"config\":{\"type\":\"self_hosted\"}}").json().path("id").asString();
        worker = new Api(t.server.port(), api.post("/v1/environments/" + mine + "/keys", "{}").json().path("key").asString());
        String other = api.post("/v1/environments", "{\"name\":\"other\",\"config\":{\"type\":\"self_hosted\"}}").json().path("id").asString();
        outside.put("environment_id", other);
        outside.put("key_id", api.post("/v1/environments/" + other + "/keys", "{}").json().path("id").asString());
        // this server has no model, so it makes no sessions: those ids are made up on both sides (SessionFinder
        // answers a session of another environment as one that does not exist before anything else)
        outside.put("session_id", Ids.newId("sesn"));
        outside.put("work_id", Ids.newId("work"));
        String boundary = "reach";
        var skill = api.send(api.request("POST", "/v1/skills", HttpRequest.BodyPublishers.ofString("--" + boundary
                + "\r\nContent-Disposition: form-data; name=\"files\"; filename=\"notes/SKILL.md\"\r\n\r\n---\nname: notes\ndescription: Notes.\n---\n\r\n--"
                + boundary + "--\r\n")).header("Content-Type", "multipart/form-data; boundary=" + boundary)).json();
        outside.put("skill_id", skill.path("id").asString());
        outside.put("version", skill.path("latest_version_id").asString());
        outside.put("resource_id", Ids.newId("sesrsc"));
        outside.values().forEach(v -> assertThat(v).as("fixtures: %s", outside).isNotBlank());
    }

    @AfterAll
    void close() {
        t.close();
    }

    @Test
    void whatTheKeyMayNotReachAnswersAsWhatDoesNotExist() {
        Map<String, String> missing = new LinkedHashMap<>();
        outside.forEach((param, id) -> missing.put(param, param.equals("version") ? "1700000000000000" : Ids.newId(id.substring(0, id.lastIndexOf('_')))));
        List<String> differ = new ArrayList<>();
        int walked = 0;
        for (String route : t.server.routes()) {
            String method = route.substring(0, route.indexOf(' '));
            String template = route.substring(route.indexOf(' ') + 1);
            if (method.equals("WS") || KEY_PATHS.stream().noneMatch(template::startsWith)) continue;
            String body = method.equals("GET") || method.equals("DELETE") ? null : "{}";
            String reached = shape(worker.call(method, fill(template, outside), body), outside, missing);
            String absent = shape(worker.call(method, fill(template, missing), body), outside, missing);
            if (!reached.equals(absent)) differ.add(route + "\n   outside: " + reached + "\n   missing: " + absent);
            walked++;
        }
        assertThat(walked).as("routes under the environment key's paths").isGreaterThan(20);
        assertThat(differ).as("routes where the worker's key tells an id it may not reach from a missing one").isEmpty();
        assertThat(t.admin.get("/v1/skills/" + outside.get("skill_id")).status()).as("nothing was changed").isEqualTo(200);
        assertThat(t.admin.get("/v1/environments/" + outside.get("environment_id")).status()).isEqualTo(200);
    }

    private static String fill(String template, Map<String, String> ids) {
        Matcher m = PARAM.matcher(template);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = m.group(1) != null ? m.group(1) : m.group(2);
            m.appendReplacement(out, Matcher.quoteReplacement(ids.getOrDefault(name, "x")));
        }
        m.appendTail(out);
        return out.toString();
    }

    private static String shape(Api.Resp r, Map<String, String> a, Map<String, String> b) {
        String body = r.body();
        for (Map<String, String> ids : List.of(a, b)) for (String v : ids.values()) body = body.replace(v, "<id>");
        return r.status() + " " + body;
    }
}
