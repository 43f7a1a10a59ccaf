package dev.paddock.conformance;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.opentest4j.TestAbortedException;

/**
 * Build tools report class-template runs by index ({@code DriverConformanceTest[2]}) and other kit suites by their
 * class; this puts the driver's name in front of every failure so a red test says at once which driver broke, e.g.
 * {@code [driver=bwrap] ...}.
 */
final class DriverNameInFailures implements TestExecutionExceptionHandler {
    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
        if (failure instanceof TestAbortedException) throw failure;
        String driver = context.getRequiredTestInstances().getAllInstances().stream()
                .filter(DriverConformanceKit.class::isInstance)
                .map(i -> ((DriverConformanceKit) i).driverName())
                .findFirst().orElse("?");
        throw new AssertionError("[driver=" + driver + "] " + failure, failure);
    }
}
