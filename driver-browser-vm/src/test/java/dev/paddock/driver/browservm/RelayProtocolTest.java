package dev.paddock.driver.browservm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.PaddockException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The relay's rules without a browser: pairing codes, strict frames, lexical paths, failing calls when a tab goes. */
class RelayProtocolTest {
    @Test
    void pairingCodesAreSingleUseTenantBoundAndExpire() {
        Clock[] now = {Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC)};
        Clock clock = new Clock() {
            @Override public ZoneOffset getZone() { return ZoneOffset.UTC; }
            @Override public Clock withZone(java.time.ZoneId z) { return this; }
            @Override public Instant instant() { return now[0].instant(); }
        };
        PairingCodes codes = new PairingCodes(Duration.ofMinutes(5), clock);
        PairingCodes.Minted a = codes.mint("tenant_a");
        assertThat(codes.redeem(a.code())).isEqualTo("tenant_a");
        assertThatThrownBy(() -> codes.redeem(a.code())).extracting(e -> ((PaddockException) e).code()).isEqualTo("pairing_code_used");

        PairingCodes.Minted b = codes.mint("tenant_b");
        now[0] = Clock.offset(now[0], Duration.ofMinutes(5));
        assertThatThrownBy(() -> codes.redeem(b.code())).extracting(e -> ((PaddockException) e).code()).isEqualTo("pairing_code_expired");
        assertThatThrownBy(() -> codes.redeem("ppc_' OR 1=1 --")).extracting(e -> ((PaddockException) e).code()).isEqualTo("pairing_code_invalid");
    }

    @Test
    void framesAreParsedStrictly() throws Exception {
        assertThat(Frames.parse("{\"v\":1,\"type\":\"heartbeat\"}")).isInstanceOf(Frames.Heartbeat.class);
        Frames.Result r = (Frames.Result) Frames.parse("{\"v\":1,\"type\":\"sandbox.result\",\"request_id\":\"req_0123456789abcdefghjkmnpqrs\","
                + "\"ok\":true,\"exit_code\":3,\"stdout\":\"aGk=\",\"chunks\":0}");
        assertThat(r.exitCode()).isEqualTo(3);
        assertThat(new String(r.stdout())).isEqualTo("hi");
        for (String bad : List.of("", "null", "{\"type\":\"heartbeat\"}", "{\"v\":\"1\",\"type\":\"heartbeat\"}",
                "{\"v\":1,\"type\":\"heartbeat\",\"v\":1}", "{\"v\":1,\"type\":\"sandbox.result\",\"request_id\":\"req_x\",\"ok\":true}",
                "{\"v\":1,\"type\":\"sandbox.result\",\"request_id\":\"req_0123456789abcdefghjkmnpqrs\",\"ok\":false}",
                "{\"v\":1,\"type\":\"sandbox.result\",\"request_id\":\"req_0123456789abcdefghjkmnpqrs\",\"ok\":true,\"exit_code\":-1}",
                "{\"v\":1,\"type\":\"sandbox.result\",\"request_id\":\"req_0123456789abcdefghjkmnpqrs\",\"ok\":true,"
                        + "\"entry\":{\"path\":\"/x\",\"name\":\"x\",\"type\":\"device\",\"size\":0,\"mode\":0,\"mtime\":0}}")) {
            assertThatThrownBy(() -> Frames.parse(bad)).as(bad).isInstanceOf(FrameException.class);
        }
    }

    @Test
    void pathsMustStayInTheWorkspace() {
        assertThat(GuestPaths.inWorkspace("a/b/../c")).isEqualTo("/workspace/a/c");
        assertThat(GuestPaths.inWorkspace("/workspace")).isEqualTo("/workspace");
        for (String bad : List.of("../etc/passwd", "/etc/passwd", "/workspace/../etc", "a/../../x", "/workspacex/y", "a\0b")) {
            assertThatThrownBy(() -> GuestPaths.inWorkspace(bad)).as(bad)
                    .extracting(e -> ((PaddockException) e).code()).isEqualTo("path_outside_workspace");
        }
    }

    @Test
    void aDroppedSocketFailsWaitingCallsWithReopenYourTab() throws Exception {
        BrowserVm vm = new BrowserVm(BrowserVmConfig.defaults(null).withTimings(Duration.ofSeconds(25), Duration.ofSeconds(60), Duration.ofMillis(200)),
                Clock.systemUTC());
        try {
            BrowserVm.Exchanged x = vm.exchange(vm.pair("tenant_a").code());
            BrowserRuntime rt = vm.authenticate(x.runtimeToken());
            List<String> sent = new CopyOnWriteArrayList<>();
            RelayConnection c = vm.connect(rt, new RelayPeer() {
                @Override public void send(String frame) { sent.add(frame); }
                @Override public void close(int code, String reason) {}
            });
            assertThat(vm.claim("tenant_a", "sbx_0123456789abcdefghjkmnpqrs")).isSameAs(rt);
            assertThatThrownBy(() -> vm.claim("tenant_b", "sbx_0123456789abcdefghjkmnpqrt"))
                    .extracting(e -> ((PaddockException) e).code()).isEqualTo("no_sandbox_tab");

            PendingCall call = vm.start(rt, "sbx_0123456789abcdefghjkmnpqrs", "stat", Map.of("path", "/workspace"), null, 10, 1 << 16);
            assertThat(sent.getLast()).contains("\"type\":\"sandbox.op\"", "\"op\":\"stat\"", call.requestId);
            c.onClosed();
            assertThatThrownBy(() -> vm.await(rt, call, Duration.ofSeconds(5)))
                    .isInstanceOf(PaddockException.class).hasMessageContaining("reopen your sandbox tab");
            // offline: a new call waits the reconnect grace, then fails the same way
            assertThatThrownBy(() -> vm.call(rt, "sbx_0123456789abcdefghjkmnpqrs", "stat", Map.of(), null, 1 << 16))
                    .extracting(e -> ((PaddockException) e).code()).isEqualTo("sandbox_tab_gone");
            assertThatThrownBy(() -> vm.authenticate("prt_" + "A".repeat(32)))
                    .extracting(e -> ((PaddockException) e).code()).isEqualTo("invalid_runtime_token");
        } finally {
            vm.close();
        }
    }
}
