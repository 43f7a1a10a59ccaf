package dev.paddock.server.wire;

import java.util.List;
import java.util.Map;

/** Body of exec and of starting a background process. Checked by {@link ExecBodies}. */
public record ExecBody(
        List<String> argv,
        String command,
        Map<String, String> env,
        String cwd,
        Long timeoutSeconds,
        String stdin,
        String stdinBase64) {}
