package dev.paddock.app.cli;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The arguments of one client command read without picocli, in their plain forms only: known options (a value
 * after them or after {@code =}), positionals, and {@code --} before the rest. Anything else (help, an unknown,
 * repeated or clustered option, a value that looks like an option) answers null, so that picocli parses the command
 * and answers with its own messages.
 */
final class FastArgs {
    /** The options every client command takes ({@link ClientOptions}). */
    private static final Set<String> CLIENT_FLAGS = Set.of("--json");
    private static final Set<String> CLIENT_VALUES = Set.of("--url", "--api-key", "--data-dir", "--http-timeout");
    /** Short names of the hot commands' flags, counted as their long names (so that {@code -i --stdin} is a repeat). */
    private static final Map<String, String> SHORT_NAMES = Map.of("-i", "--stdin", "-a", "--all");

    private final Map<String, List<String>> options = new HashMap<>();
    private final List<String> positionals = new ArrayList<>();

    private FastArgs() {}

    /**
     * Reads {@code args}; {@code flags} and {@code values} are the command's own options besides the client's,
     * {@code repeatable} those of its value options that may come more than once.
     */
    static FastArgs read(List<String> args, Set<String> flags, Set<String> values, Set<String> repeatable) {
        FastArgs parsed = new FastArgs();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (arg.equals("--")) {
                parsed.positionals.addAll(args.subList(i + 1, args.size()));
                return parsed;
            }
            if (!arg.startsWith("-")) {
                parsed.positionals.add(arg);
                continue;
            }
            int eq = arg.indexOf('=');
            String name = eq > 0 ? arg.substring(0, eq) : SHORT_NAMES.getOrDefault(arg, arg);
            String value;
            if (eq < 0 && (flags.contains(name) || CLIENT_FLAGS.contains(name))) {
                value = "true";
            } else if (values.contains(name) || CLIENT_VALUES.contains(name)) {
                if (eq > 0) {
                    value = arg.substring(eq + 1);
                } else if (i + 1 < args.size() && !args.get(i + 1).startsWith("-")) {
                    value = args.get(++i);
                } else {
                    return null;
                }
            } else {
                return null;
            }
            List<String> seen = parsed.options.computeIfAbsent(name, n -> new ArrayList<>());
            if (!seen.isEmpty() && !repeatable.contains(name)) return null;
            seen.add(value);
        }
        return parsed;
    }

    List<String> positionals() { return positionals; }

    /** The option's value, or null when it was not given. */
    String value(String name) {
        List<String> v = options.get(name);
        return v == null ? null : v.getFirst();
    }

    List<String> values(String name) {
        return options.getOrDefault(name, List.of());
    }

    boolean flag(String name) {
        return options.containsKey(name);
    }
}
