package dev.paddock.app.daemon;

import java.util.Base64;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The daemon reads what the server sends as strictly as the server reads a runtime: anything off is refused. */
class ServerFramesTest {
    static final String RID = "req_0123456789abcdefghjkmnpqrs";
    static final String SBX = "sbx_0123456789abcdefghjkmnpqrs";

    @Test
    void wellFormedFramesParse() throws Exception {
        assertThat(ServerFrames.parse("{\"v\":1,\"type\":\"welcome\",\"runtime_id\":\"rt_0123456789abcdefghjkmnpqrs\",\"heartbeat_seconds\":25}"))
                .isEqualTo(new ServerFrames.Welcome("rt_0123456789abcdefghjkmnpqrs", 25));
        ServerFrames.Op op = (ServerFrames.Op) ServerFrames.parse("{\"v\":1,\"type\":\"sandbox.op\",\"request_id\":\"" + RID
                + "\",\"sandbox_id\":\"" + SBX + "\",\"op\":\"exec\",\"args\":{\"argv\":[\"true\"]},\"timeout_seconds\":5}");
        assertThat(op.op()).isEqualTo("exec");
        assertThat(op.timeoutSeconds()).isEqualTo(5);
        ServerFrames.OpChunk c = (ServerFrames.OpChunk) ServerFrames.parse("{\"v\":1,\"type\":\"sandbox.op.chunk\",\"request_id\":\"" + RID
                + "\",\"seq\":0,\"data\":\"" + Base64.getEncoder().encodeToString(new byte[] {1, 2, 3}) + "\"}");
        assertThat(c.data()).containsExactly(1, 2, 3);
    }

    @Test
    void malformedFramesAreRefused() {
        String op = "{\"v\":1,\"type\":\"sandbox.op\",\"request_id\":\"" + RID + "\",\"sandbox_id\":\"" + SBX + "\",";
        String[][] cases = {
                {"not json", "not valid JSON"},
                {"[1]", "JSON object"},
                {"{\"v\":2,\"type\":\"heartbeat\"}", "version"},
                {"{\"v\":1,\"type\":\"shell\"}", "unknown frame type"},
                {"{\"v\":1,\"type\":\"heartbeat\",\"x\":1}", "unknown field"},
                {"{\"v\":1,\"type\":\"heartbeat\",\"type\":\"welcome\"}", "not valid JSON"},
                {op + "\"op\":\"spawn_shell\",\"args\":{},\"timeout_seconds\":5}", "unknown op"},
                {op + "\"op\":\"exec\",\"args\":[],\"timeout_seconds\":5}", "args must be an object"},
                {op + "\"op\":\"exec\",\"args\":{},\"timeout_seconds\":0}", "timeout_seconds"},
                {"{\"v\":1,\"type\":\"sandbox.op\",\"request_id\":\"req_1\",\"sandbox_id\":\"" + SBX + "\",\"op\":\"exec\",\"args\":{},\"timeout_seconds\":5}", "request_id"},
                {"{\"v\":1,\"type\":\"sandbox.op\",\"request_id\":\"" + RID + "\",\"sandbox_id\":\"../etc\",\"op\":\"exec\",\"args\":{},\"timeout_seconds\":5}", "sandbox_id"},
                {"{\"v\":1,\"type\":\"sandbox.op.chunk\",\"request_id\":\"" + RID + "\",\"seq\":0,\"data\":\"%%%\"}", "base64"},
                {"{\"v\":1,\"type\":\"sandbox.op.chunk\",\"request_id\":\"" + RID + "\",\"seq\":-1,\"data\":\"\"}", "seq"},
                {"{\"v\":1,\"type\":\"welcome\",\"runtime_id\":\"rt_x\",\"heartbeat_seconds\":25}", "runtime_id"},
                {"{\"v\":1,\"type\":\"heartbeat\",\"pad\":\"" + "x".repeat(ServerFrames.MAX_FRAME_CHARS) + "\"}", "larger than"}};
        for (String[] c : cases) {
            assertThatThrownBy(() -> ServerFrames.parse(c[0])).as(c[0].length() > 200 ? c[0].substring(0, 200) : c[0])
                    .isInstanceOf(ServerFrames.BadFrame.class).hasMessageContaining(c[1]);
        }
    }

    @Test
    void aRefusedOpNamesItsRequestSoItsCallFailsAtOnce() {
        assertThatThrownBy(() -> ServerFrames.parse("{\"v\":1,\"type\":\"sandbox.op\",\"request_id\":\"" + RID + "\",\"sandbox_id\":\"" + SBX
                + "\",\"op\":\"exec\",\"args\":{},\"timeout_seconds\":5,\"extra\":true}"))
                .isInstanceOfSatisfying(ServerFrames.BadFrame.class, e -> assertThat(e.requestId).isEqualTo(RID));
    }
}
