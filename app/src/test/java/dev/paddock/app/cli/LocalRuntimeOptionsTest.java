package dev.paddock.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class LocalRuntimeOptionsTest {
    @Test
    void serveAndWorkerTakeTheSameDataDirAndDriverFlags() {
        ServeCommand serve = new ServeCommand();
        new CommandLine(serve).parseArgs("--data-dir", "/srv/paddock", "--driver", "bwrap", "--port", "0");
        WorkerCommand worker = new WorkerCommand();
        new CommandLine(worker).parseArgs("--environment", "env_01", "--data-dir", "/srv/paddock", "--driver", "bwrap");

        Map<String, String> expected = Map.of("data_dir", "/srv/paddock", "driver", "bwrap");
        assertThat(serve.local.flags()).isEqualTo(expected);
        assertThat(worker.local.flags()).isEqualTo(expected);
    }

    @Test
    void flagsLeftOutAreNotSettings() {
        WorkerCommand worker = new WorkerCommand();
        new CommandLine(worker).parseArgs("--environment", "env_01");
        assertThat(worker.local.flags()).isEmpty();
    }
}
