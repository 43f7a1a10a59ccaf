package dev.paddock.server.agents;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;

/**
 * Answers checked against the TypeScript SDK's declared types by the TypeScript compiler: each becomes an object
 * literal typed as the SDK's type for it, so a missing field, a field of the wrong type, a null where the SDK
 * allows none or a field the SDK does not declare fails the compile, with the object's line named in the message.
 */
final class SdkTypes {
    /** A streamed event, a listed event, a session, the answer to an events send. */
    enum Type {
        STREAMED_EVENT("BetaManagedAgentsStreamSessionEvents", "sessions/events", ""),
        LISTED_EVENT("BetaManagedAgentsSessionEvent", "sessions/events", ""),
        /** With Paddock's one documented extension of the session object. */
        SESSION("BetaManagedAgentsSession", "sessions/sessions", " & { paddock_sandbox_id: string | null; paddock_limits?: { max_model_requests?: number; max_tokens?: number; max_active_seconds?: number } }"),
        EVENTS_SENT("BetaManagedAgentsSendSessionEvents", "sessions/events", "");

        final String sdkName;
        final String module;
        final String paddockExtension;

        Type(String sdkName, String module, String paddockExtension) {
            this.sdkName = sdkName;
            this.module = module;
            this.paddockExtension = paddockExtension;
        }
    }

    private SdkTypes() {}

    static void check(String label, Map<Type, List<JsonNode>> objects) throws IOException, InterruptedException {
        Path sdk = NodeSdk.dir();
        Path source = sdk.resolve("shapes-" + label.toLowerCase() + ".mts");
        StringBuilder ts = new StringBuilder();
        for (Type t : Type.values()) {
            ts.append("import type { ").append(t.sdkName).append(" } from '@anthropic-ai/sdk/resources/beta/").append(t.module).append("';\n");
        }
        int n = 0;
        int count = 0;
        for (Map.Entry<Type, List<JsonNode>> e : objects.entrySet()) {
            for (JsonNode o : e.getValue()) {
                ts.append("export const o").append(n++).append(": ").append(e.getKey().sdkName).append(e.getKey().paddockExtension).append(" = ")
                        .append(Rest.JSON.writeValueAsString(o)).append(";\n");
                count++;
            }
        }
        Files.writeString(source, ts);
        Path log = sdk.resolve("shapes-" + label.toLowerCase() + ".log");
        Process tsc = new ProcessBuilder(sdk.resolve("node_modules/.bin/tsc").toString(), "--noEmit", "--strict", "--skipLibCheck",
                "--target", "es2022", "--module", "nodenext", "--moduleResolution", "nodenext", source.toString())
                .directory(sdk.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean done = tsc.waitFor(3, TimeUnit.MINUTES);
        if (!done) tsc.destroyForcibly().waitFor();
        assertThat(done && tsc.exitValue() == 0).as("%s: %d objects against the SDK's types (%s):%n%s", label, count, source,
                Files.readString(log)).isTrue();
    }
}
