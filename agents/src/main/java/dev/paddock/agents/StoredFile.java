package dev.paddock.agents;

import dev.paddock.core.agents.Resource;
import java.util.LinkedHashMap;
import java.util.Map;

/** A file uploaded through the Files API, as the SDKs know it ({@code BetaFileMetadata}); its bytes live on disk. */
public record StoredFile(String id, String filename, String mimeType, long sizeBytes, String createdAt) {
    static final String KIND = "file";

    static StoredFile of(Resource row) {
        Map<String, Object> m = row.body();
        return new StoredFile((String) m.get("id"), (String) m.get("filename"), (String) m.get("mime_type"),
                ((Number) m.get("size_bytes")).longValue(), (String) m.get("created_at"));
    }

    public Map<String, Object> toWire() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", id);
        m.put("type", "file");
        m.put("filename", filename);
        m.put("mime_type", mimeType);
        m.put("size_bytes", sizeBytes);
        m.put("created_at", createdAt);
        m.put("downloadable", true);
        m.put("expires_at", null);
        m.put("scope", null);
        return m;
    }
}
