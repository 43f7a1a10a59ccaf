package dev.paddock.driver.kubernetes;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Names and labels of a sandbox's cluster objects. Object names must be DNS labels (lower case, digits, '-'), while
 * sandbox ids may hold '_' and upper case: the name is the id made legal plus a short hash of the exact id, so two
 * ids never share a name. The exact id is kept in a label.
 */
final class ObjectNames {
    static final String LABEL_MANAGED_BY = "app.kubernetes.io/managed-by";
    static final String MANAGED_BY = "paddock";
    static final String LABEL_INSTALLATION = "paddock.dev/installation";
    static final String LABEL_SANDBOX = "paddock.dev/sandbox";
    static final String LABEL_FENCE_OWNER = "paddock.dev/fence-owner";
    static final String LABEL_FENCE_GENERATION = "paddock.dev/fence-generation";
    /** On warm pool pods, their template and the pool's fence: the pool (until a claim, the pod belongs to no sandbox). */
    static final String LABEL_WARM_POOL = "paddock.dev/warm-pool";
    /** On the claim: the sandbox is suspended (its pod deleted on purpose), not lost. */
    static final String ANNOTATION_SUSPENDED = "paddock.dev/suspended";

    private static final Pattern LABEL_VALUE = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9_.-]{0,61}[A-Za-z0-9])?");

    static boolean isLabelValue(String s) {
        return s != null && LABEL_VALUE.matcher(s).matches();
    }

    /** Sandbox ids this driver accepts: they go into a label as they are. */
    static boolean isSandboxId(String id) {
        return isLabelValue(id);
    }

    static String pod(String sandboxId) {
        return "paddock-" + dnsPart(sandboxId) + "-" + hash(sandboxId);
    }

    static String claim(String sandboxId) {
        return pod(sandboxId) + "-workspace";
    }

    static String networkPolicy(String sandboxId) {
        return pod(sandboxId) + "-deny";
    }

    /** The warm pool of an installation: its SandboxTemplate, SandboxWarmPool and NetworkPolicy (pool Sandboxes add a suffix). */
    static String pool(String installation) {
        return "paddock-pool-" + dnsPart(installation) + "-" + hash(installation);
    }

    private static String dnsPart(String id) {
        String s = id.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("^-+|-+$", "");
        return s.length() > 30 ? s.substring(0, 30).replaceAll("-+$", "") : s;
    }

    private static String hash(String s) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d).substring(0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private ObjectNames() {}
}
