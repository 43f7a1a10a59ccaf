package dev.paddock.server.agents;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;

/**
 * Events checked against the TypeScript SDK's declared types by the TypeScript compiler: each event becomes an
 * object literal typed as the SDK's {@code BetaManagedAgentsStreamSessionEvents}, so a missing field, a field of
 * the wrong type, a null where the SDK allows none or a field the SDK does not declare fails the compile, with
 * the event's line named in the message.
 */
final class SdkTypes {
    private SdkTypes() {}

    static void check(String label, List<JsonNode> events) throws IOException, InterruptedException {
        Path sdk = NodeSdk.dir();
        Path source = sdk.resolve("events-" + label.toLowerCase() + ".mts");
        StringBuilder ts = new StringBuilder("import type { BetaManagedAgentsStreamSessionEvents as Event } from "
                + "'@anthropic-ai/sdk/resources/beta/sessions/events';\n");
        for (int i = 0; i < events.size(); i++) {
            ts.append("export const e").append(i).append(": Event = ").append(Rest.JSON.writeValueAsString(events.get(i))).append(";\n");
        }
        Files.writeString(source, ts);
        Path log = sdk.resolve("tsc-" + label.toLowerCase() + ".log");
        Process tsc = new ProcessBuilder(sdk.resolve("node_modules/.bin/tsc").toString(), "--noEmit", "--strict", "--skipLibCheck",
                "--target", "es2022", "--module", "nodenext", "--moduleResolution", "nodenext", source.toString())
                .directory(sdk.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean done = tsc.waitFor(3, TimeUnit.MINUTES);
        if (!done) tsc.destroyForcibly().waitFor();
        assertThat(done && tsc.exitValue() == 0).as("%s: %d events against the SDK's types (%s):%n%s", label, events.size(), source,
                Files.readString(log)).isTrue();
    }
}
