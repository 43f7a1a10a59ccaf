package dev.paddock.browser;

import java.util.List;

/**
 * How a script-mode run ended. {@code files} are workspace paths the run created or changed (screenshots,
 * downloads); they stay in the sandbox until read through the files API. On failure {@code error} holds the tail of
 * stderr and {@code failureScreenshot} the workspace path of the last page's screenshot, when one could be taken.
 */
public record ScriptResult(int exitCode, boolean timedOut, String stdout, String stderr, boolean stdoutTruncated,
                           boolean stderrTruncated, List<String> files, String error, String failureScreenshot,
                           long durationMs) {}
