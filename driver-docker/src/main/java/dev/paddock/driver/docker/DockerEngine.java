package dev.paddock.driver.docker;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The few Docker Engine API operations the driver uses (documented API, versioned with the engine's own version,
 * at least {@value #MIN_API}). Engine failures become Paddock errors that carry the engine's message.
 */
final class DockerEngine {
    static final String MIN_API = "1.41";
    private static final Pattern PATH_SAFE = Pattern.compile("[A-Za-z0-9._/:@-]+");
    static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Duration CALL = Duration.ofSeconds(30);
    /** Importing a root filesystem streams it whole. */
    private static final Duration IMPORT = Duration.ofMinutes(10);

    /** A container as inspect shows it. */
    record Container(String id, String name, boolean running, boolean paused, boolean oomKilled, long pid, Map<String, String> labels, String error) {}

    private final EngineHttp http;
    private final String prefix;

    private DockerEngine(EngineHttp http, String apiVersion) {
        this.http = http;
        this.prefix = "/v" + apiVersion;
    }

    /** Connects to {@code dockerHost} ({@code unix:///path}); throws driver_unavailable when no engine answers there. */
    static DockerEngine connect(String dockerHost, Duration timeout) {
        Path socket = socketOf(dockerHost);
        EngineHttp http = new EngineHttp(socket);
        EngineHttp.Response ping;
        try {
            ping = http.send("GET", "/_ping", null, timeout);
        } catch (IOException e) {
            throw new PaddockException(ErrorCode.DRIVER_UNAVAILABLE, "no Docker engine answers at " + dockerHost + ": " + e.getMessage(), e);
        }
        if (!ping.ok()) {
            throw new PaddockException(ErrorCode.DRIVER_UNAVAILABLE, "the Docker engine at " + dockerHost + " answers its ping with HTTP " + ping.status());
        }
        String version = ping.headers().getOrDefault("api-version", "");
        if (!atLeast(version, MIN_API)) {
            throw new PaddockException(ErrorCode.DRIVER_UNAVAILABLE, "the Docker engine at " + dockerHost + " speaks API " + (version.isEmpty() ? "(unknown)" : version)
                    + "; the docker driver needs " + MIN_API + " or later (Docker 20.10 or later)");
        }
        return new DockerEngine(http, version);
    }

    static Path socketOf(String dockerHost) {
        if (dockerHost == null || !dockerHost.startsWith("unix://") || dockerHost.length() <= "unix://".length()) {
            throw new PaddockException(ErrorCode.INVALID_CONFIG, "docker driver: the Docker host must be a unix socket such as unix:///var/run/docker.sock, got '"
                    + Text.clip(dockerHost, 100) + "'");
        }
        return Path.of(dockerHost.substring("unix://".length()));
    }

    static boolean atLeast(String version, String min) {
        try {
            String[] v = version.split("\\."), m = min.split("\\.");
            int major = Integer.parseInt(v[0]), minor = Integer.parseInt(v[1]);
            return major > Integer.parseInt(m[0]) || (major == Integer.parseInt(m[0]) && minor >= Integer.parseInt(m[1]));
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** {@code GET /info}: runtimes, CPUs and cgroup facts. */
    JsonNode info() {
        return json(call("GET", "/info", null, CALL), "info");
    }

    Optional<JsonNode> image(String ref) {
        EngineHttp.Response r = call("GET", "/images/" + enc(ref) + "/json", null, CALL);
        if (r.status() == 404) return Optional.empty();
        return Optional.of(json(r, "inspecting image " + ref));
    }

    /** Imports a root filesystem tar as {@code repo:tag} ({@code POST /images/create?fromSrc=-}); nothing is pulled. */
    void importImage(String repo, String tag, EngineHttp.BodyWriter tar) {
        EngineHttp.Response r;
        try {
            r = http.stream("POST", prefix + "/images/create?fromSrc=-&repo=" + enc(repo) + "&tag=" + enc(tag), "application/x-tar", tar, IMPORT);
        } catch (IOException e) {
            throw new PaddockException(ErrorCode.SANDBOX_START_FAILED, "importing image " + repo + ":" + tag + " into Docker failed: " + e.getMessage(), e);
        }
        // the answer is a stream of progress objects; a failure shows as one with "error", also under HTTP 200
        String text = r.text();
        if (!r.ok() || text.contains("\"error\"")) {
            throw new PaddockException(ErrorCode.SANDBOX_START_FAILED, "importing image " + repo + ":" + tag + " into Docker failed: " + message(r));
        }
    }

    /** Removes an image reference (untagging it; the layers go with the last one); gone already is fine. */
    void removeImage(String ref) {
        EngineHttp.Response r = call("DELETE", "/images/" + enc(ref), null, CALL);
        if (r.status() == 404) return;
        expect(r, "removing image " + ref, ErrorCode.INTERNAL);
    }

    /** Creates a container; a name in use is sandbox_exists, an unknown runtime or image a clear start failure. */
    String create(String name, ObjectNode config) {
        EngineHttp.Response r = call("POST", "/containers/create?name=" + enc(name), JSON.writeValueAsBytes(config), CALL);
        if (r.status() == 409) {
            throw new PaddockException(ErrorCode.SANDBOX_EXISTS, "a Docker container named " + name + " already exists; terminate the sandbox or use another id");
        }
        if (!r.ok()) throw new PaddockException(ErrorCode.SANDBOX_START_FAILED, "Docker refused to create the container: " + message(r));
        return json(r, "creating a container").path("Id").asString();
    }

    void start(String id) {
        expect(call("POST", "/containers/" + enc(id) + "/start", null, CALL), "starting container " + id, ErrorCode.SANDBOX_START_FAILED);
    }

    void pause(String id) {
        expect(call("POST", "/containers/" + enc(id) + "/pause", null, CALL), "pausing container " + id, ErrorCode.INTERNAL);
    }

    void unpause(String id) {
        expect(call("POST", "/containers/" + enc(id) + "/unpause", null, CALL), "resuming container " + id, ErrorCode.INTERNAL);
    }

    /** Kills and removes a container; gone already is fine. */
    void remove(String id) {
        EngineHttp.Response r = call("DELETE", "/containers/" + enc(id) + "?force=true&v=true", null, CALL);
        if (r.status() == 404) return;
        expect(r, "removing container " + id, ErrorCode.INTERNAL);
    }

    Optional<Container> inspect(String idOrName) {
        EngineHttp.Response r = call("GET", "/containers/" + enc(idOrName) + "/json", null, CALL);
        if (r.status() == 404) return Optional.empty();
        JsonNode c = json(r, "inspecting container " + idOrName);
        JsonNode state = c.path("State");
        return Optional.of(new Container(c.path("Id").asString(), c.path("Name").asString().replaceFirst("^/", ""),
                state.path("Running").asBoolean(), state.path("Paused").asBoolean(), state.path("OOMKilled").asBoolean(),
                state.path("Pid").asLong(), labels(c.path("Config").path("Labels")), state.path("Error").asString()));
    }

    /** The names and labels of every container, running or not, carrying {@code label=value}. */
    List<Container> list(String label, String value) {
        String filters = JSON.writeValueAsString(Map.of("label", List.of(label + "=" + value)));
        JsonNode all = json(call("GET", "/containers/json?all=true&filters=" + enc(filters), null, CALL), "listing containers");
        List<Container> out = new ArrayList<>();
        for (JsonNode c : all) {
            String name = c.path("Names").path(0).asString().replaceFirst("^/", "");
            String state = c.path("State").asString();
            out.add(new Container(c.path("Id").asString(), name, "running".equals(state) || "paused".equals(state), "paused".equals(state), false, -1,
                    labels(c.path("Labels")), ""));
        }
        return out;
    }

    /** One sample of a container's resource use ({@code stats?stream=false&one-shot=true}); empty when it is gone. */
    Optional<JsonNode> stats(String id) {
        EngineHttp.Response r = call("GET", "/containers/" + enc(id) + "/stats?stream=false&one-shot=true", null, CALL);
        if (!r.ok()) return Optional.empty();
        return Optional.of(json(r, "reading the stats of " + id));
    }

    /** The end of a container's output (its init's complaints); empty when there is none. */
    String logTail(String id) {
        EngineHttp.Response r = call("GET", "/containers/" + enc(id) + "/logs?stdout=true&stderr=true&tail=20", null, CALL);
        return r.ok() ? Text.clip(StreamFrames.text(r.body()).trim(), 600) : "";
    }

    /** Runs a command through the engine's own exec ({@code docker exec}) and returns its stdout; for comparison. */
    String engineExec(String id, List<String> argv) {
        ObjectNode create = JSON.createObjectNode();
        create.put("AttachStdout", true).put("AttachStderr", true);
        create.putArray("Cmd").addAll(argv.stream().map(JSON.getNodeFactory()::stringNode).toList());
        String execId = json(call("POST", "/containers/" + enc(id) + "/exec", JSON.writeValueAsBytes(create), CALL), "creating an exec").path("Id").asString();
        ObjectNode start = JSON.createObjectNode().put("Detach", false).put("Tty", false);
        EngineHttp.Response r = call("POST", "/exec/" + enc(execId) + "/start", JSON.writeValueAsBytes(start), CALL);
        if (!r.ok()) throw PaddockException.internal("docker exec failed: " + message(r), null);
        return StreamFrames.text(r.body());
    }

    private EngineHttp.Response call(String method, String path, byte[] body, Duration timeout) {
        try {
            return http.send(method, prefix + path, body, timeout);
        } catch (IOException e) {
            throw new PaddockException(ErrorCode.DRIVER_UNAVAILABLE, "the Docker engine at unix://" + http.socket() + " failed on " + method + " "
                    + path.replaceFirst("\\?.*", "") + ": " + e.getMessage(), e);
        }
    }

    private static void expect(EngineHttp.Response r, String what, ErrorCode code) {
        if (!r.ok() && r.status() != 304) throw new PaddockException(code, what + " failed: " + message(r));
    }

    private static JsonNode json(EngineHttp.Response r, String what) {
        if (!r.ok()) throw PaddockException.internal(what + " failed: " + message(r), null);
        try {
            return JSON.readTree(r.body());
        } catch (JacksonException e) {
            throw PaddockException.internal(what + ": the Docker engine's answer is not JSON", e);
        }
    }

    /** The engine's own words for a failure. */
    static String message(EngineHttp.Response r) {
        String text = r.text().trim();
        try {
            for (String line : text.lines().toList()) {
                JsonNode n = JSON.readTree(line);
                if (n.hasNonNull("message")) return "HTTP " + r.status() + ": " + n.get("message").asString();
                if (n.hasNonNull("error")) return "HTTP " + r.status() + ": " + n.get("error").asString();
            }
        } catch (JacksonException notJson) {
            // fall through to the raw text
        }
        return "HTTP " + r.status() + ": " + Text.clip(text, 300);
    }

    private static Map<String, String> labels(JsonNode node) {
        Map<String, String> out = new TreeMap<>();
        node.properties().forEach(e -> out.put(e.getKey(), e.getValue().asString()));
        return out;
    }

    /** Query values are encoded; path segments (ids, names, image references) must be plain already. */
    private static String enc(String s) {
        if (PATH_SAFE.matcher(s).matches()) return s;
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
