package dev.paddock.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.SandboxSpec;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Specs written before a field existed still read: a sandbox's limits from before limits.disk have no disk limit, and a
 * spec from before templates is a plain sandbox's.
 */
class SpecJsonCompatibilityTest {
    @Test
    void limitsWithoutDiskReadAsNoDiskLimit() {
        String now = Json.write(SandboxSpec.defaults("sbx_1", "t"), "sandbox_spec");
        String before = now.replace(",\"diskBytes\":0", "");
        assertThat(before).doesNotContain("disk").contains("\"cpus\":1.0");
        SandboxSpec spec = Json.read(before, SandboxSpec.class, "sandbox_spec");
        assertThat(spec.limits()).isEqualTo(Limits.DEFAULT);
        assertThat(Json.read(Json.write(spec.limits().withDisk(1L << 30), "l"), Limits.class, "l").diskBytes()).isEqualTo(1L << 30);
    }

    @Test
    void theTemplateIsKeptAndASpecWithoutOneIsAPlainSandboxs() {
        SandboxSpec browser = new SandboxSpec("sbx_1", "t", null, false, null, Map.of(), null, List.of(), null, "browser");
        assertThat(Json.read(Json.write(browser, "sandbox_spec"), SandboxSpec.class, "sandbox_spec").template()).isEqualTo("browser");
        String before = Json.write(SandboxSpec.defaults("sbx_1", "t"), "sandbox_spec").replace(",\"template\":null", "");
        assertThat(before).doesNotContain("template");
        assertThat(Json.read(before, SandboxSpec.class, "sandbox_spec").template()).isNull();
    }
}
