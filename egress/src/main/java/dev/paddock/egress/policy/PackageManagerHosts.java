package dev.paddock.egress.policy;

import dev.paddock.core.egress.HostPattern;
import java.util.List;

/** The hosts {@code allow_package_managers} opens (ports 80 and 443): Debian, PyPI, npm and Maven Central. */
public final class PackageManagerHosts {
    private PackageManagerHosts() {}

    public static final List<String> HOSTS = List.of(
            // Debian (apt)
            "deb.debian.org", "security.debian.org", "ftp.debian.org", "cdn-fastly.deb.debian.org",
            // PyPI (pip)
            "pypi.org", "files.pythonhosted.org", "pypi.python.org",
            // npm
            "registry.npmjs.org",
            // Maven Central
            "repo.maven.apache.org", "repo1.maven.org");

    static final List<HostPattern> PATTERNS = HOSTS.stream().map(HostPattern::parse).toList();
}
