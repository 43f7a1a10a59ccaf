package dev.paddock.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.paddock.app.client.PaddockClient;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** {@code paddock sandbox start|ps|logs|kill} against a real server (subprocess driver). */
class CliProcessesTest extends CliAgainstTestServer {
    static String sandbox() {
        Cli.Result r = cli.run("sandbox", "create");
        assertThat(r.code()).as(r.toString()).isZero();
        return r.out().trim();
    }

    static long start(String id, String... argv) {
        String[] args = new String[4 + argv.length];
        args[0] = "sandbox";
        args[1] = "start";
        args[2] = id;
        args[3] = "--";
        System.arraycopy(argv, 0, args, 4, argv.length);
        Cli.Result r = cli.run(args);
        assertThat(r.code()).as(r.toString()).isZero();
        assertThat(r.out().trim()).matches("\\d+");
        return Long.parseLong(r.out().trim());
    }

    @Test
    void startPsAndKill() {
        String id = sandbox();
        long pid = start(id, "sleep", "300");

        Cli.Result ps = cli.run("sandbox", "ps", id);
        assertThat(ps.code()).as(ps.toString()).isZero();
        assertThat(ps.out()).contains("PID", "STATE", "COMMAND").containsPattern(pid + "\\s+running\\s+.*sleep 300");

        Cli.Result kill = cli.run("sandbox", "kill", id, String.valueOf(pid), "--signal", "KILL");
        assertThat(kill.code()).as(kill.toString()).isZero();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            JsonNode p = PaddockClient.parse(cli.run("sandbox", "ps", id, "--json").rawOut()).path("data").get(0);
            assertThat(p.path("running").asBoolean()).isFalse();
        });
        assertThat(cli.run("sandbox", "ps", id).out()).containsPattern(pid + "\\s+exited");
    }

    @Test
    void killDefaultsToTermAndRefusesUnknownSignals() {
        String id = sandbox();
        long pid = start(id, "sh", "-c", "trap 'echo got-term; exit 7' TERM; echo ready; while true; do sleep 0.1; done");
        await().atMost(Duration.ofSeconds(10)).until(() -> cli.run("sandbox", "logs", id, String.valueOf(pid)).out().equals("ready\n"));

        Cli.Result bad = cli.run("sandbox", "kill", id, String.valueOf(pid), "--signal", "NOPE");
        assertThat(bad.code()).isEqualTo(1);
        assertThat(bad.err()).contains("field 'signal' must be one of", "(invalid_field)");

        assertThat(cli.run("sandbox", "kill", id, String.valueOf(pid)).code()).isZero();
        Cli.Result logs = cli.run("sandbox", "logs", id, String.valueOf(pid), "--follow");
        assertThat(logs.code()).as(logs.toString()).isZero();
        // the signal goes to the whole group: the shell may report its killed sleep child before its trap runs
        assertThat(logs.out()).startsWith("ready\n").contains("got-term\n");
        assertThat(cli.run("sandbox", "ps", id).out()).containsPattern(pid + "\\s+exited\\s+7");
    }

    @Test
    void logsPrintsEverythingAndFollowWaitsForTheEnd() {
        String id = sandbox();
        // more than one logs chunk, written over time, ending with a marker
        long pid = start(id, "sh", "-c", "i=0; while [ $i -lt 3000 ]; do echo line-$i-abcdefghijklmnopqrstuvwxyz; i=$((i+1)); done; sleep 1; echo done");
        Cli.Result followed = cli.run("sandbox", "logs", id, String.valueOf(pid), "--follow");
        assertThat(followed.code()).as(followed.toString()).isZero();
        assertThat(followed.out()).startsWith("line-0-").endsWith("line-2999-abcdefghijklmnopqrstuvwxyz\ndone\n");
        assertThat(followed.out().lines().count()).isEqualTo(3001);
        assertThat(followed.rawOut().length).isGreaterThan(65536);

        Cli.Result again = cli.run("sandbox", "logs", id, String.valueOf(pid));
        assertThat(again.out()).isEqualTo(followed.out());
    }

    @Test
    void badInputIsAUsageErrorOrAClearApiError() {
        String id = sandbox();
        Cli.Result noCommand = cli.run("sandbox", "start", id);
        assertThat(noCommand.code()).isEqualTo(2);
        assertThat(noCommand.err()).contains("give the command after --");

        Cli.Result unknownPid = cli.run("sandbox", "logs", id, "999999");
        assertThat(unknownPid.code()).isEqualTo(1);
        assertThat(unknownPid.err()).startsWith("error: ");

        Cli.Result badId = cli.run("sandbox", "ps", "nope");
        assertThat(badId.code()).isEqualTo(2);
        assertThat(badId.err()).contains("is not a sandbox id");
    }
}
