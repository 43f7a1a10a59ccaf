package dev.paddock.server.wire;

import dev.paddock.core.Ids;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.spi.CredentialBinding;
import dev.paddock.core.spi.NetworkPolicy;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Checks the {@code credentials} of a create-sandbox body; each failure names the entry and the field. */
final class CredentialBodies {
    private static final int MAX_CREDENTIALS = 32;
    private static final int MAX_HOSTS = 64;

    private CredentialBodies() {}

    static List<CredentialBinding> toBindings(List<CreateSandboxBody.CredentialBody> bodies, Set<String> envNames, NetworkPolicy network) {
        if (bodies == null || bodies.isEmpty()) return List.of();
        if (bodies.size() > MAX_CREDENTIALS) throw Check.invalid("credentials", "may hold at most " + MAX_CREDENTIALS + " entries");
        if (network == null || network.mode() == NetworkPolicy.Mode.NONE) {
            throw Check.invalid("credentials", "need a network: set network.type to limited (with the credential's hosts allowed) or unrestricted");
        }
        Set<String> seenEnv = new HashSet<>(envNames);
        List<CredentialBinding> out = new ArrayList<>();
        for (int i = 0; i < bodies.size(); i++) {
            String field = "credentials[" + i + "]";
            CreateSandboxBody.CredentialBody c = bodies.get(i);
            if (c == null) throw Check.invalid(field, "must be an object");
            if (c.secretId() == null || !Ids.isValid("sec", c.secretId())) {
                throw Check.invalid(field + ".secret_id", "must be a secret id like sec_0123456789abcdefghjkmnpqrs, got '" + Text.clip(c.secretId(), 40) + "'");
            }
            List<String> hosts = c.hosts() == null ? List.of() : c.hosts();
            if (hosts.isEmpty() || hosts.size() > MAX_HOSTS) throw Check.invalid(field + ".hosts", "must list 1 to " + MAX_HOSTS + " hosts");
            for (int h = 0; h < hosts.size(); h++) {
                if (hosts.get(h) == null || hosts.get(h).isBlank()) throw Check.invalid(field + ".hosts[" + h + "]", "must be a host name");
                Check.noNul(field + ".hosts[" + h + "]", hosts.get(h));
            }
            if (c.env() != null && !seenEnv.add(c.env())) {
                throw Check.invalid(field + ".env", "'" + Text.clip(c.env(), 60) + "' is already set by env or another credential");
            }
            CredentialBinding binding = new CredentialBinding(c.secretId(), hosts, c.header(), c.template(), c.env());
            try {
                binding.validate();
            } catch (PaddockException e) {
                throw Check.invalid(field, "is not a valid credential rule: " + e.getMessage());
            }
            out.add(binding);
        }
        return out;
    }
}
