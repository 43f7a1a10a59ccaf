package dev.paddock.agents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.access.Principal;
import dev.paddock.agents.skills.SkillFile;
import dev.paddock.agents.testing.ScriptedModel;
import dev.paddock.core.PaddockException;
import dev.paddock.driver.subprocess.SubprocessDriver;
import dev.paddock.host.HostConfig;
import dev.paddock.host.RuntimeHost;
import dev.paddock.store.JdbcStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Skill archives on disk: private files under the data directory, counted in the tenant's storage quota, gone with the skill. */
class SkillStorageTest {
    static final long QUOTA = 64 * 1024;
    final Principal alice = new Principal("alice", "key_a", false);
    final Principal bob = new Principal("bob", "key_b", false);
    Path dataDir;
    JdbcStore store;
    RuntimeHost host;
    ManagedAgents agents;
    ScriptedModel model;

    @BeforeEach
    void start() throws IOException {
        dataDir = Files.createTempDirectory("paddock-skills-test");
        store = JdbcStore.openSqlite(dataDir.resolve("paddock.db"));
        host = new RuntimeHost(HostConfig.defaults(dataDir).withDefaultDriver("subprocess").withCheckpointStorage(0, QUOTA), store,
                List.of(new SubprocessDriver(dataDir)), Clock.systemUTC());
        host.start();
        model = new ScriptedModel(n -> List.of(Map.of("type", "text", "text", "ok")));
        agents = new ManagedAgents(host, store.agents(), AgentsConfig.defaults().withModel(model.baseUrl(), "k"), Clock.systemUTC());
    }

    @AfterEach
    void stop() throws IOException {
        agents.close();
        host.close();
        store.close();
        model.close();
        try (Stream<Path> files = Files.walk(dataDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    static List<SkillFile> skill(int payloadBytes) {
        byte[] md = "---\nname: notes\ndescription: Keep notes.\n---\n".getBytes(StandardCharsets.UTF_8);
        byte[] payload = new byte[payloadBytes];
        return List.of(new SkillFile("notes/SKILL.md", md.length, () -> new ByteArrayInputStream(md)),
                new SkillFile("notes/data.bin", payload.length, () -> new ByteArrayInputStream(payload)));
    }

    @Test
    void archivesArePrivateCountedInTheQuotaAndDeletedWithTheirSkill() throws IOException {
        Map<String, Object> first = agents.skills().create(alice, skill(20_000), null);
        String id = (String) first.get("id");
        Path archive = dataDir.resolve("skills").resolve(id).resolve(first.get("latest_version_id") + ".tar");
        assertThat(archive).exists();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(archive))).isEqualTo("rw-------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dataDir.resolve("skills")))).isEqualTo("rwx------");
        long stored = Files.size(archive);
        assertThat(agents.skills().storedBytes("alice")).isEqualTo(stored);
        assertThat(host.storedBytes("alice")).isEqualTo(stored);

        agents.skills().createVersion(alice, id, () -> skill(20_000));
        // a third archive of this size passes alice's quota; bob's quota is his own
        assertThatThrownBy(() -> agents.skills().createVersion(alice, id, () -> skill(30_000)))
                .isInstanceOfSatisfying(PaddockException.class, e -> assertThat(e.code()).isEqualTo("storage_quota_exceeded"));
        assertThat(agents.skills().storedBytes("alice")).isLessThanOrEqualTo(QUOTA);
        assertThat(agents.skills().create(bob, skill(30_000), null)).containsKey("id");
        // alice's skill is not bob's to see
        assertThatThrownBy(() -> agents.skills().get(bob, id))
                .isInstanceOfSatisfying(PaddockException.class, e -> assertThat(e.code()).isEqualTo("skill_not_found"));

        agents.skills().delete(alice, id);
        assertThat(dataDir.resolve("skills").resolve(id)).doesNotExist();
        assertThat(agents.skills().storedBytes("alice")).isZero();
        assertThat(agents.skills().create(alice, skill(30_000), null)).containsKey("id");
    }
}
