package dev.paddock.driver.browservm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.paddock.core.Ids;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.spi.RuntimeListener;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxSpec;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A sandbox outlives its tab, without a browser: stand-in tabs answer ops over the relay. A closed tab is reported
 * to the host as a lost runtime after the reconnect grace; a new tab of the same tenant that offers the sandbox's
 * mirror adopts it (and the closed tab's token dies); a tab of another tenant never does.
 */
class RuntimePresenceTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Duration GRACE = Duration.ofMillis(300);

    BrowserVm vm;
    BrowserVmDriver driver;
    final List<String> heard = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() {
        vm = new BrowserVm(BrowserVmConfig.defaults(null).withTimings(Duration.ofSeconds(25), Duration.ofSeconds(60), GRACE), Clock.systemUTC());
        driver = new BrowserVmDriver(vm);
        driver.watchRuntimes(new RuntimeListener() {
            @Override public void runtimeLost(String id, String detail) { heard.add("lost " + id + " " + detail); }
            @Override public void runtimeRestored(String id, String detail) { heard.add("restored " + id + " " + detail); }
        });
    }

    @AfterEach
    void stop() {
        driver.close();
        vm.close();
    }

    /** A tab that answers every op with success and remembers the ops it got. */
    final class FakeTab implements RelayPeer {
        final String token;
        final BrowserRuntime runtime;
        final List<JsonNode> ops = new CopyOnWriteArrayList<>();
        RelayConnection connection;

        FakeTab(String tenant) {
            token = vm.exchange(vm.pair(tenant).code()).runtimeToken();
            runtime = vm.authenticate(token);
        }

        FakeTab connect(List<String> mirrors, String sandboxId) throws Exception {
            connection = vm.connect(runtime, this);
            var hello = JSON.createObjectNode().put("v", 1).put("type", "hello").put("engine", "v86").put("vm", "ready");
            if (sandboxId != null) hello.put("sandbox_id", sandboxId);
            hello.set("mirrors", JSON.valueToTree(mirrors));
            connection.onText(JSON.writeValueAsString(hello));
            return this;
        }

        @Override
        public void send(String frame) throws Exception {
            JsonNode f = JSON.readTree(frame);
            if (!f.path("type").asString().equals("sandbox.op")) return;
            ops.add(f);
            String reply = "{\"v\":1,\"type\":\"sandbox.result\",\"request_id\":\"" + f.path("request_id").asString() + "\",\"ok\":true,\"chunks\":0}";
            Thread.ofVirtual().start(() -> connection.onText(reply));
        }

        @Override
        public void close(int code, String reason) {}

        List<String> binds() {
            return ops.stream().filter(o -> o.path("op").asString().equals("bind"))
                    .map(o -> o.path("sandbox_id").asString() + " fresh=" + o.path("args").path("fresh").asBoolean()).toList();
        }
    }

    Sandbox create(String tenant) {
        return driver.create(new SandboxSpec(Ids.newId("sbx"), tenant, null, false, driver.limits(null), Map.of(), NetworkPolicy.NONE),
                new Fence("host-test", 1));
    }

    @Test
    void aClosedTabIsReportedLostAndANewTabOfTheSameTenantAdoptsTheSandboxFromItsMirror() throws Exception {
        FakeTab first = new FakeTab("tenant_a").connect(List.of(), null);
        Sandbox s = create("tenant_a");
        String id = s.ref().sandboxId();
        assertThat(first.binds()).containsExactly(id + " fresh=true");

        first.connection.onClosed();
        await().atMost(Duration.ofSeconds(10)).until(() -> heard.contains("lost " + id + " tab_closed"));
        assertThat(s.inspect().alive()).isFalse();

        // another tenant's tab that claims the mirror gets nothing
        FakeTab stranger = new FakeTab("tenant_b").connect(List.of(id), null);
        Thread.sleep(GRACE.toMillis());
        assertThat(stranger.binds()).isEmpty();

        FakeTab reopened = new FakeTab("tenant_a").connect(List.of(id), null);
        await().atMost(Duration.ofSeconds(10)).until(() -> heard.contains("restored " + id + " " + reopened.runtime.id()));
        assertThat(reopened.binds()).containsExactly(id + " fresh=false");
        assertThat(s.ref().handle()).isEqualTo(reopened.runtime.id());
        assertThat(s.inspect().alive()).isTrue();
        assertThatThrownBy(() -> vm.authenticate(first.token)).as("the closed tab's token is retired")
                .extracting(e -> ((PaddockException) e).code()).isEqualTo("invalid_runtime_token");
        assertThat(heard).containsExactly("lost " + id + " tab_closed", "restored " + id + " " + reopened.runtime.id());
    }

    @Test
    void aTabReloadedWithinTheGraceIsNoLoss() throws Exception {
        FakeTab tab = new FakeTab("tenant_a").connect(List.of(), null);
        Sandbox s = create("tenant_a");
        tab.connection.onClosed();
        tab.connect(List.of(), s.ref().sandboxId());
        Thread.sleep(GRACE.toMillis() * 3);
        assertThat(heard).isEmpty();
    }

    @Test
    void aLiveTabsSandboxIsNeverAdopted() throws Exception {
        FakeTab tab = new FakeTab("tenant_a").connect(List.of(), null);
        Sandbox s = create("tenant_a");
        FakeTab other = new FakeTab("tenant_a").connect(List.of(s.ref().sandboxId()), null);
        Thread.sleep(GRACE.toMillis());
        assertThat(other.binds()).isEmpty();
        assertThat(s.ref().handle()).isEqualTo(tab.runtime.id());
    }
}
