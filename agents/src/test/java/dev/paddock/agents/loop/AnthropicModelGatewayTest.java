package dev.paddock.agents.loop;

import static dev.paddock.agents.testing.ScriptedModel.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.paddock.agents.testing.ScriptedModel;
import dev.paddock.agents.testing.ScriptedModel.Reply;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The streaming gateway against a scripted Messages API on loopback (in place of the vendor's): a cancelled request
 * renews the client, and a request still under way on the old client is not left without its answer.
 */
class AnthropicModelGatewayTest {
    private static ModelGateway.Request request() {
        return new ModelGateway.Request("claude-test", null, List.of(), List.of(new ModelGateway.Message("user", List.of(new Block.Text("hi")))), 100);
    }

    @Test
    void aRequestUnderWayWhenAnotherIsCancelledStillGetsItsAnswer() throws Exception {
        try (ScriptedModel model = new ScriptedModel((results, call) -> call == 1
                ? Reply.message(List.of(text("never"))).after(Duration.ofMinutes(10))
                : Reply.message(List.of(text("the answer"))).after(Duration.ofSeconds(1)));
             AnthropicModelGateway gateway = new AnthropicModelGateway(model.baseUrl(), "k")) {
            Thread cancelled = Thread.ofVirtual().start(() -> {
                try {
                    gateway.call(request(), ModelGateway.Listener.NONE);
                } catch (RuntimeException expected) {
                    // cancelled by the interrupt below
                }
            });
            await().atMost(Duration.ofSeconds(30)).until(() -> model.requests.size() == 1);
            CompletableFuture<ModelGateway.Turn> underWay = CompletableFuture.supplyAsync(() -> gateway.call(request(), ModelGateway.Listener.NONE));
            await().atMost(Duration.ofSeconds(30)).until(() -> model.requests.size() == 2);

            // the cancel closes the client the second request is using
            cancelled.interrupt();
            assertThat(cancelled.join(Duration.ofSeconds(30))).isTrue();

            ModelGateway.Turn turn = underWay.get(30, TimeUnit.SECONDS);
            assertThat(turn.blocks()).containsExactly(new Block.Text("the answer"));
        }
    }
}
