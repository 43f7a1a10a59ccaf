package dev.paddock.store;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.Ids;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.egress.EgressAuditEntry;
import dev.paddock.core.egress.EgressAuditLog;
import dev.paddock.core.egress.EgressAuditRecord;
import dev.paddock.core.egress.EgressDecision;
import dev.paddock.core.store.Page;
import dev.paddock.core.store.PageRequest;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The egress audit log in table {@code egress_audit}: append-only, oldest first, kept after the sandbox ended.
 * Records hold no secrets (the proxy scrubs URLs and names credentials by secret id), so they are stored as given.
 */
final class JdbcEgressAuditLog implements EgressAuditLog {
    static final String PREFIX = "egr";
    private static final String COLUMNS = "id, sandbox_id, at, host, resolved_address, port, method, url, mode, decision, rule, "
            + "status, bytes_up, bytes_down, duration_ms, injected_secrets_json, leaked_placeholders_json";

    private final Database db;

    JdbcEgressAuditLog(Database db) {
        this.db = db;
    }

    @Override
    public void record(EgressAuditRecord r) {
        Require.present(r, "egress audit record");
        Require.text(r.sandboxId(), "sandbox id", 64);
        Require.present(r.time(), "time");
        db.write("egress_audit.append", c -> {
            db.dialect().orderAppends(c, "egress_audit:" + r.sandboxId());
            return Sql.update(c, "INSERT INTO egress_audit (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    Ids.newId(PREFIX, r.time()), r.sandboxId(), Columns.micros(r.time().truncatedTo(ChronoUnit.MICROS)),
                    r.host() == null ? "" : r.host(), r.resolvedAddress(), r.port(), r.method(), r.url(),
                    r.mode() == null ? "unknown" : r.mode(), r.decision().wireName(), r.rule(), r.status(), r.bytesUp(), r.bytesDown(),
                    r.duration() == null ? 0L : r.duration().toMillis(),
                    Json.write(r.injectedSecrets(), "injected_secrets"), Json.write(r.leakedPlaceholderSecrets(), "leaked_placeholders"));
        });
    }

    @Override
    public Page<EgressAuditEntry> list(String sandboxId, PageRequest page) {
        Require.present(sandboxId, "sandbox id");
        Require.present(page, "page");
        Keyset keyset = new Keyset("SELECT " + COLUMNS + " FROM egress_audit WHERE sandbox_id = ?", List.of(sandboxId),
                "seq", "(SELECT seq FROM egress_audit WHERE id = ?)", false);
        return db.read("egress_audit.list", c -> {
            for (String cursor : Arrays.asList(page.afterId(), page.beforeId())) {
                if (cursor != null && Sql.queryOne(c, "SELECT 1 FROM egress_audit WHERE id = ? AND sandbox_id = ?", rs -> true, cursor, sandboxId).isEmpty()) {
                    throw new PaddockException(ErrorCode.INVALID_CURSOR, "'" + Text.clip(cursor, 60) + "' is not an egress record of sandbox " + sandboxId);
                }
            }
            return keyset.fetch(c, page, JdbcEgressAuditLog::map, EgressAuditEntry::id);
        });
    }

    private static EgressAuditEntry map(ResultSet rs) throws SQLException {
        var record = new EgressAuditRecord(rs.getString("sandbox_id"), Columns.getInstant(rs, "at"), rs.getString("host"),
                rs.getString("resolved_address"), rs.getInt("port"), rs.getString("method"), rs.getString("url"), rs.getString("mode"),
                EgressDecision.valueOf(rs.getString("decision").toUpperCase(Locale.ROOT)), rs.getString("rule"), rs.getInt("status"),
                rs.getLong("bytes_up"), rs.getLong("bytes_down"), Duration.ofMillis(rs.getLong("duration_ms")),
                strings(rs.getString("injected_secrets_json")), strings(rs.getString("leaked_placeholders_json")));
        return new EgressAuditEntry(rs.getString("id"), record);
    }

    @SuppressWarnings("unchecked")
    private static List<String> strings(String json) {
        return ((List<Object>) Json.read(json, List.class, "egress_audit")).stream().map(String::valueOf).toList();
    }
}
