package dev.paddock.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.app.client.Json;
import dev.paddock.app.client.PaddockClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code paddock serve} with {@code store_url} naming a PostgreSQL database: its records live there (a restart on
 * a fresh data directory's database still knows its API key and sandbox records), a second server on the same
 * database joins it as a node (NodesEndToEndTest goes further), and a database it cannot reach stops the
 * start with a message that names the database but never its password. Real JVMs, bwrap and PostgreSQL.
 */
@Tag("bwrap")
class ServeOnPostgresTest {
    static final String KEY = "pdk_postgres_test_admin_key_0123456789abcd";

    ServerNodes cluster;
    ServerProcess unreachable;

    @AfterEach
    void tearDown() throws Exception {
        if (cluster != null) cluster.close();
        if (unreachable != null) {
            unreachable.stop(); // one that has not given up yet when the test does
            BwrapServer.removeDataDir(unreachable.dataDir);
            Files.deleteIfExists(unreachable.log);
        }
    }

    @Test
    void recordsLiveInPostgresAndASecondServerOnTheSameDatabaseJoinsAsANode() throws Exception {
        cluster = new ServerNodes("pdp", KEY);
        ServerProcess first = cluster.node(Map.of());
        PaddockClient api = first.start();
        String id = api.json("POST", "/v1/sandboxes", Map.of(), Json.object()).path("id").asString();
        ObjectNode echo = Json.object();
        echo.putArray("argv").add("echo").add("on-postgres");
        JsonNode ran = api.json("POST", "/v1/sandboxes/" + id + "/exec", Map.of(), echo);
        assertThat(ran.path("stdout").asString()).contains("on-postgres");
        assertThat(Files.exists(first.dataDir.resolve("paddock.db"))).as("no SQLite file beside PostgreSQL").isFalse();

        // a second server on the same database joins it as another node and answers for the first one's sandbox
        ServerProcess second = cluster.node(Map.of());
        PaddockClient other = second.start();
        assertThat(other.get("/v1/nodes").path("data")).hasSize(2);
        assertThat(other.json("POST", "/v1/sandboxes/" + id + "/exec", Map.of(), echo).path("stdout").asString()).contains("on-postgres");
        second.stop();

        first.stop();
        PaddockClient again = first.start();
        assertThat(again.get("/v1/sandboxes/" + id).path("id").asString()).isEqualTo(id);
        again.call("DELETE", "/v1/sandboxes/" + id, Map.of(), null);
    }

    @Test
    void anUnreachableDatabaseStopsTheStartWithoutShowingThePassword() throws Exception {
        String password = "never-print-this-7c1e";
        unreachable = new ServerProcess(Files.createTempDirectory(Path.of("/tmp"), "pdp"), KEY,
                "postgresql://paddock:" + password + "@127.0.0.1:1/paddock");
        assertThatThrownBy(unreachable::start).hasMessageContaining("cannot connect to PostgreSQL at jdbc:postgresql://127.0.0.1:1/paddock")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(password));
        assertThat(Files.readString(unreachable.log)).doesNotContain(password);
    }
}
