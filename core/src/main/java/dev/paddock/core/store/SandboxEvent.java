package dev.paddock.core.store;

import java.time.Instant;
import java.util.Map;

/** An audit record of one lifecycle change or operation on a sandbox. {@code data} holds JSON-safe values only. */
public record SandboxEvent(String id, String sandboxId, String tenantId, String type, Instant at, Map<String, Object> data) {}
