package dev.paddock.conformance;

import dev.paddock.core.testing.Prerequisites;
import java.util.Optional;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The conformance kit run once per {@link DriverFixtures#all() fixture}, with a fresh driver on a fresh data
 * directory for every check; each test's name carries the driver, e.g. {@code [driver=bwrap] suspendResume()}.
 */
@ParameterizedClass(name = "[driver={0}]")
@MethodSource("dev.paddock.conformance.DriverFixtures#all")
class DriverConformanceTest extends DriverConformanceKit {
    @Parameter DriverFixture fixture;

    @Override
    protected String driverName() {
        return fixture.name();
    }

    @Override
    protected DriverUnderTest driverUnderTest() throws Exception {
        Optional<String> missing = fixture.unavailableReason().get();
        Prerequisites.require(missing.isEmpty(), () -> fixture.name() + " cannot run on this machine: " + missing.orElse(""));
        return FreshDriver.of(fixture);
    }
}
