package dev.paddock.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code paddock secret …} and the network flags of {@code sandbox create} against a real server (subprocess driver). */
class CliSecretsTest extends CliAgainstTestServer {
    static final String VALUE = "cli-secret-value-0b7e55";

    @BeforeAll
    static void cliWithATokenInItsEnvironment() {
        cli = new Cli(Map.of("PADDOCK_DATA_DIR", dataDir.toString(), "MY_TOKEN", VALUE + "-env"), dataDir);
    }

    @Test
    void secretsCanBeCreatedListedRotatedAndRemovedWithoutShowingValues() {
        Cli.Result created = cli.runWithStdin((VALUE + "\n").getBytes(StandardCharsets.UTF_8), "secret", "create", "openai", "--value-stdin");
        assertThat(created.code()).as(created.toString()).isZero();
        String id = created.out().trim();
        assertThat(id).matches("sec_[0-9a-z]{26}");
        Cli.Result fromEnv = cli.run("secret", "create", "github", "--value-env", "MY_TOKEN");
        assertThat(fromEnv.code()).as(fromEnv.toString()).isZero();

        Cli.Result list = cli.run("secret", "list");
        assertThat(list.out()).contains("openai").contains("github").contains(id);
        Cli.Result rotated = cli.runWithStdin("next-value".getBytes(StandardCharsets.UTF_8), "secret", "rotate", id, "--value-stdin");
        assertThat(rotated.out()).contains("version 2");
        Cli.Result json = cli.run("secret", "list", "--json");
        for (Cli.Result r : new Cli.Result[] {created, fromEnv, list, rotated, json}) {
            assertThat(r.out() + r.err()).doesNotContain(VALUE).doesNotContain("next-value");
        }
        assertThat(cli.run("secret", "rm", id).code()).isZero();
        assertThat(cli.run("secret", "list").out()).doesNotContain("openai");
    }

    @Test
    void badSecretAndNetworkFlagsAreUsageErrors() {
        assertThat(cli.run("secret", "create", "x").code()).as("a value source is required").isEqualTo(2);
        assertThat(cli.run("secret", "create", "x", "--value-stdin", "--value-env", "MY_TOKEN").code()).isEqualTo(2);
        assertThat(cli.run("secret", "create", "x", "--value-env", "UNSET_VAR").err()).contains("UNSET_VAR is not set");
        assertThat(cli.run("secret", "create", "x", "--value-stdin").err()).contains("standard input was empty");
        assertThat(cli.run("secret", "rm", "nope").code()).isEqualTo(2);
        assertThat(cli.run("sandbox", "create", "--network", "wide").err()).contains("--network must be");
        assertThat(cli.run("sandbox", "create", "--allow-host", "a.example.com").err()).contains("need --network limited");
        assertThat(cli.run("sandbox", "create", "--network", "limited", "--credential", "sec_x").err()).contains("--credential must look like");
    }

    @Test
    void networkFlagsReachTheServerAndAreCheckedThere() {
        Cli.Result r = cli.run("sandbox", "create", "--network", "limited", "--allow-host", "bad host!");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).contains("network.allowed_hosts[0]");
        Cli.Result cred = cli.run("sandbox", "create", "--network", "limited", "--allow-host", "api.example.com",
                "--credential", "sec_0123456789abcdefghjkmnpqrs:api.example.com:API_KEY:Host");
        assertThat(cred.err()).contains("cannot carry a credential");
    }

    @Test
    void egressOfASandboxWithoutNetworkIsAnEmptyLog() {
        Cli.Result created = cli.run("sandbox", "create");
        String id = created.out().trim();
        Cli.Result egress = cli.run("sandbox", "egress", id);
        assertThat(egress.code()).as(egress.toString()).isZero();
        assertThat(egress.out()).startsWith("TIME").contains("DECISION");
        assertThat(cli.run("sandbox", "rm", id).code()).isZero();
        Cli.Result follow = cli.run("sandbox", "egress", id, "--follow");
        assertThat(follow.code()).as("the stream ends once the sandbox has ended").isZero();
    }
}
