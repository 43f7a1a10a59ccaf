package dev.paddock.conformance;

import dev.paddock.core.conformance.Conformance;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Renders drivers' conformance records as the Markdown of {@code docs/drivers.md}: one summary table plus the
 * port facts of each driver. Values use the API's wire names (lower snake_case). Deterministic: same records,
 * same bytes, so a test can tell when the file on disk is stale.
 */
public final class DriversTable {
    public static final String REGENERATE_HINT =
            "./mvnw -B -q -pl conformance test -Dtest=DriversDocTest -Dpaddock.regenerate-docs=true";

    private DriversTable() {}

    public static String render(Collection<Conformance> drivers) {
        List<Conformance> sorted = drivers.stream().sorted(Comparator.comparing(Conformance::driver)).toList();
        StringBuilder md = new StringBuilder();
        md.append("# Drivers\n\n");
        md.append("<!-- Generated from each driver's conformance record by DriversDocTest; do not edit by hand.\n");
        md.append("     Regenerate with: ").append(REGENERATE_HINT).append(" -->\n\n");
        md.append("Every claim below is proven by the conformance kit (`conformance/`), which runs against each driver: ");
        md.append("`supported` must work, `unsupported` must fail fast with a clear error. The same records are served at `GET /v1/drivers`.\n\n");
        md.append("| Driver | Lanes | Lease | Suspend/resume | Hard terminate | Workspace | Durability | Outputs | Credential egress | Checkpoints | Orphan reap |\n");
        md.append("|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (Conformance c : sorted) {
            md.append("| `").append(c.driver()).append("` | ")
                    .append(join(c.lanes().stream().map(DriversTable::wire).sorted().toList())).append(" | ")
                    .append(wire(c.lifecycle().lease())).append(" | ")
                    .append(wire(c.lifecycle().suspendResume())).append(" | ")
                    .append(wire(c.lifecycle().hardTerminate())).append(" | ")
                    .append(join(c.workspace().strategies().stream().map(DriversTable::wire).toList())).append(" | ")
                    .append(wire(c.workspace().durability())).append(" | ")
                    .append(c.outputs().collection()).append(" | ")
                    .append(egress(c.credentialEgress())).append(" | ")
                    .append(join(c.runtimeCheckpoints())).append(" | ")
                    .append(wire(c.lifecycle().orphanReap())).append(" |\n");
        }
        for (Conformance c : sorted) {
            md.append("\n## `").append(c.driver()).append("`\n\n");
            md.append(c.description()).append("\n\n");
            md.append("- Port facts, available: ").append(join(c.portFacts().available())).append('\n');
            md.append("- Port facts, unavailable: ").append(join(c.portFacts().unavailable())).append('\n');
        }
        return md.toString();
    }

    private static String egress(Conformance.CredentialEgress egress) {
        String enforcement = wire(egress.enforcement());
        return egress.interceptedProtocols().isEmpty() ? enforcement : enforcement + " (" + String.join(", ", egress.interceptedProtocols()) + ")";
    }

    private static String join(List<String> values) {
        return values.isEmpty() ? "none" : values.stream().collect(Collectors.joining(", "));
    }

    /** The wire name of an enum value: lower case, as in the API. */
    public static String wire(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT);
    }
}
