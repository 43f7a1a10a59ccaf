package dev.paddock.egress.policy;

import java.io.IOException;
import java.net.InetAddress;
import java.util.List;

/** Turns a host name into addresses. A seam so tests can map names to chosen addresses. */
@FunctionalInterface
public interface HostResolver {
    /** All addresses of {@code host} (a canonical DNS name, never an IP literal); throws when it has none. */
    List<InetAddress> resolve(String host) throws IOException;

    /** The operating system's resolver. */
    static HostResolver system() {
        return host -> List.of(InetAddress.getAllByName(host));
    }
}
