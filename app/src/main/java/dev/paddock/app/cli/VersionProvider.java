package dev.paddock.app.cli;

import picocli.CommandLine.IVersionProvider;

/** The version from the jar manifest, or "dev" when run from classes. */
public final class VersionProvider implements IVersionProvider {
    public static String version() {
        String v = VersionProvider.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }

    @Override public String[] getVersion() {
        return new String[] {"paddock " + version()};
    }
}
