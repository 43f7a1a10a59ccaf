package dev.paddock.agents;

import dev.paddock.core.ErrorCode;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code error.details.error_code} of a Managed Agents error: where the official SDKs pick typed errors and their
 * {@code errorCode}. Most of Paddock's codes that have an SDK counterpart share its name ({@code environment_archived},
 * {@code environment_not_found}, {@code invalid_config_type_change}, {@code invalid_metadata},
 * {@code heartbeat_precondition_failed}); the few whose names differ are mapped here. A condition the SDKs do not
 * name carries Paddock's own code, as {@code error.code} does.
 */
public final class SdkErrorCodes {
    private static final Map<ErrorCode, String> RENAMED = Map.of(ErrorCode.REQUEST_TIMEOUT, "request_body_timeout");

    private SdkErrorCodes() {}

    /** The SDK's name for the code, or Paddock's own where the SDKs have none. */
    public static String of(ErrorCode code) {
        return RENAMED.getOrDefault(code, code.wire());
    }

    /** The {@code error.details} object of an error with this code. */
    public static Map<String, Object> details(ErrorCode code) {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("error_code", of(code));
        return details;
    }
}
