package dev.paddock.app.serve;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** Where the server listens, as configured; {@link #loopback()} says whether only this machine can reach it. */
public record BindAddress(String host, int port) {
    /** The URL of the bound address itself (for a wildcard such as 0.0.0.0, every interface on that port). */
    public String url() {
        boolean v6 = host.contains(":") && !host.startsWith("[");
        return "http://" + (v6 ? "[" + host + "]" : host) + ":" + port;
    }

    /** True only when every address the name resolves to is a loopback address. */
    public boolean loopback() {
        try {
            InetAddress[] all = InetAddress.getAllByName(host);
            for (InetAddress a : all) {
                if (!a.isLoopbackAddress()) return false;
            }
            return all.length > 0;
        } catch (UnknownHostException e) {
            return false; // unknown: warn rather than stay silent
        }
    }
}
