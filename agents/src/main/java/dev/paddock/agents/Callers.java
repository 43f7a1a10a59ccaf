package dev.paddock.agents;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.access.Principal;

/**
 * Who may do what. An environment key (key id {@code ekey_…}) is a worker's credential: it reaches its own
 * environment's work queue and the sessions of that environment, nothing else.
 */
public final class Callers {
    public static final String ENVIRONMENT_KEY_PREFIX = "ekey";

    private Callers() {}

    public static boolean isEnvironmentKey(Principal p) {
        return p.keyId() != null && p.keyId().startsWith(ENVIRONMENT_KEY_PREFIX + "_");
    }

    /** Refuses environment keys: the call manages resources, which only API keys may. */
    public static void requireApiKey(Principal p, String what) {
        if (isEnvironmentKey(p)) {
            throw new PaddockException(ErrorCode.ENVIRONMENT_KEY_NOT_ALLOWED,
                    "an environment key cannot " + what + "; use an API key");
        }
    }
}
